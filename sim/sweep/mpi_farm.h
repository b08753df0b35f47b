// A sweep spread over the ranks of an MPI job (`mpirun -np N kvsim sweep ...`, `srun kvsim ...`).
// Every rank parses the same command line and builds the same variants, so only task ids, judged
// outcomes (sim/sweep/point_wire.h) and, on request, the trace travel. Rank 0 (the leader) hands tasks
// out one at a time, longest expected first, to a free slot: each rank, the leader included, runs
// `jobs` replays at once on threads, and each worker holds one task more in its queue so that it
// never waits for the leader between two points. Only the leader's main thread and each worker's
// main thread call MPI (MPI_THREAD_FUNNELED); they poll with sleeps instead of blocking, because
// Open MPI's blocking calls spin a core that the replays need.
//
// Failures: Open MPI 4.1 (Debian 12) has no ULFM, and mpirun (like srun) ends the whole job when
// a rank dies: it sends SIGTERM to the surviving ranks and SIGKILL one second later
// (odls_base_sigkill_timeout). The leader catches SIGTERM (and SIGINT, which Ctrl-C on mpirun
// becomes), stops handing out tasks and returns what finished, naming the tasks that did not, so
// the caller writes its outputs marked partial within that second.
//
// Without MPI (KVSIM_WITH_MPI off, or not launched by mpirun/srun) JoinMpiJob() returns null and
// callers take their threaded path unchanged.
#ifndef KVSIM_SIM_MPI_FARM_H_
#define KVSIM_SIM_MPI_FARM_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/run/replay_runner.h"
#include "sim/sweep/farm_task.h"
#include "sim/sweep/sweep.h"

namespace kvsim {

class RankFarm {
 public:
  virtual ~RankFarm() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  bool leader() const { return rank() == 0; }

  // Collective: the leader runs `load` and sends the trace; every other rank receives it
  // (--broadcast-trace, for nodes whose disks do not hold the trace).
  virtual std::shared_ptr<const PreloadedTrace> ShareTrace(
      const std::function<std::shared_ptr<const PreloadedTrace>()>& load) = 0;

  // Leader only: evaluates every task across the ranks; `expected_cost` (same length) orders them,
  // longest first. Returns early, partial, when the leader is signalled.
  virtual FarmRound Run(const std::vector<double>& tasks, const std::vector<double>& expected_cost,
                        const TaskEvaluator& evaluate) = 0;
  // Leader only: evaluates tasks across the ranks as they become ready. Each slot that frees up asks
  // `next` for a task (nullopt: none until a running task finishes; asked again after each `done`);
  // `done` gets each answer. The two are called one at a time, from any thread. Ends when `next` has
  // none and none is running, or early, partial, when the leader is signalled (then `lost` names the
  // ids sent or running, and `outcomes` stays empty). `queue_ahead()`: whether a worker may hold one
  // task beyond its slots (it then never waits for the leader's poll between two tasks).
  virtual FarmRound Stream(const std::function<std::optional<FarmTask>()>& next,
                           const std::function<void(uint64_t id, PointOutcome outcome)>& done,
                           const std::function<bool()>& queue_ahead, const TaskEvaluator& evaluate) = 0;
  // Leader only: tells the workers that no more Run() or Stream() follows.
  virtual void Finish() = 0;
  // Workers only: evaluates the leader's tasks until Finish().
  virtual void Serve(const TaskEvaluator& evaluate) = 0;
};

// Joins the MPI job this process was launched in (mpirun's OMPI_COMM_WORLD_SIZE, or PMIx/PMI from
// srun) when it has two ranks or more; null otherwise, or when kvsim was built without MPI.
// `jobs`: replays each rank runs at once. Destroying the farm finalizes MPI.
std::unique_ptr<RankFarm> JoinMpiJob(int jobs);

// Whether an MPI launcher started this process (mpirun's OMPI_COMM_WORLD_SIZE, PMIx's PMIX_RANK,
// PMI's PMI_RANK or PMI_SIZE in the environment).
bool LaunchedByMpi();

}  // namespace kvsim

#endif  // KVSIM_SIM_MPI_FARM_H_
