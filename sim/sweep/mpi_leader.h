// The leader's side of an MPI farm's stream (sim/sweep/mpi_farm.h, RankFarm::Stream): its own replay
// threads and every worker's slots take tasks as they free up, each worker holding one more queued
// when `queue_ahead()` says so; only the calling thread calls MPI.
//
// Internal to sim/sweep: included only by files compiled with the MPI headers.
#ifndef KVSIM_SIM_SWEEP_MPI_LEADER_H_
#define KVSIM_SIM_SWEEP_MPI_LEADER_H_

#include <cstdint>
#include <functional>
#include <optional>

#include "sim/sweep/farm_task.h"
#include "sim/sweep/mpi_library.h"

namespace kvsim {

// One stream, numbered `round` on the wire, over `ranks` ranks of `jobs` slots each.
FarmRound StreamFromLeader(const MpiLibrary& mpi, uint64_t round, int ranks, int jobs,
                           const std::function<std::optional<FarmTask>()>& next,
                           const std::function<void(uint64_t id, PointOutcome outcome)>& done,
                           const std::function<bool()>& queue_ahead, const TaskEvaluator& evaluate);

}  // namespace kvsim

#endif  // KVSIM_SIM_SWEEP_MPI_LEADER_H_
