// What a farm of ranks (sim/sweep/mpi_farm.h) evaluates and hands back: a task is a number every rank
// turns into the same variant, its answer a judged point; a round's answers, and what a stop lost.
#ifndef KVSIM_SIM_SWEEP_FARM_TASK_H_
#define KVSIM_SIM_SWEEP_FARM_TASK_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/sweep/sweep.h"

namespace kvsim {

// One task: a grid point's index or a search's probe value; the same number means the same
// variant on every rank. `stop` becomes true when the leader is interrupted: the replay ends early
// and its outcome is discarded.
using TaskEvaluator = std::function<PointOutcome(double task, const std::atomic<bool>* stop)>;

// What one Run() produced, in task order.
struct FarmRound {
  std::vector<std::optional<PointOutcome>> outcomes;  // empty where the task did not finish
  bool partial = false;
  int signal = 0;                 // the signal that stopped the run (SIGTERM, SIGINT), 0 if none
  std::string reason;             // why the run is partial
  struct Lost {
    size_t index;       // into the tasks
    std::string where;  // "sent to rank 1" (running or queued there), "running on rank 0", "not started"
  };
  std::vector<Lost> lost;
};

// A task of a stream: an id the caller chooses (unique in the stream) and its value.
struct FarmTask {
  uint64_t id = 0;
  double value = 0;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_SWEEP_FARM_TASK_H_
