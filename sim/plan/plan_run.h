// Runs `kvsim plan`'s search (sim/plan/plan_search.h): the configuration searches in the order and with
// the bounds of the window (sim/plan/plan_window.h), on this process's threads or on a caller's slots
// (MPI ranks, sim/plan/plan_ranks.h).
#ifndef KVSIM_SIM_PLAN_PLAN_RUN_H_
#define KVSIM_SIM_PLAN_PLAN_RUN_H_

#include <atomic>
#include <cstddef>
#include <functional>

#include "sim/plan/plan_search.h"
#include "sim/plan/plan_space.h"
#include "sim/plan/plan_window.h"

namespace kvsim {

// Runs the searches a window hands out (sim/plan/plan_window.h: Next() when a slot is free, Done()
// with each answer, one call at a time) by the caller's means (MPI ranks) until every search has
// started and finished; throws PlanInterrupted when a stop cuts it short. The default runs them on
// `jobs` threads.
using ConfigStreamRunner = std::function<void(PlanWindow& window)>;

// The search. `progress(done, total)` after every configuration; `stop` ends it early (partial).
// `run_stream` (optional) replaces the threads (MPI ranks). The plan is the same for any number of
// threads or ranks.
PlanResult SearchPlan(const PlanSpace& space, const PlanSettings& settings, const PlanPointEvaluator& evaluate,
                      const std::function<void(size_t done, size_t total)>& progress = {},
                      const std::atomic<bool>* stop = nullptr, const ConfigStreamRunner& run_stream = {});

}  // namespace kvsim

#endif  // KVSIM_SIM_PLAN_PLAN_RUN_H_
