// `kvsim plan` on the ranks of an MPI job (sim/sweep/mpi_farm.h): each configuration search handed to
// the next free slot of any rank, in the order and with the bound the plan's window gives it. Every
// rank parsed the same command line and built the same space, so only (configuration, most replicas)
// travel out and a configuration's answer comes back as a judged point.
#ifndef KVSIM_SIM_PLAN_PLAN_RANKS_H_
#define KVSIM_SIM_PLAN_PLAN_RANKS_H_

#include <optional>

#include "sim/plan/plan_run.h"
#include "sim/sweep/mpi_farm.h"

namespace kvsim {

// The leader gets the plan (the same as SearchPlan's in one process); the workers serve and get
// nullopt. `settings.jobs` is each rank's threads.
std::optional<PlanResult> SearchPlanOnRanks(RankFarm& farm, const PlanSpace& space, const PlanSettings& settings,
                                            const PlanPointEvaluator& evaluate,
                                            const std::function<void(size_t done, size_t total)>& progress = {});

}  // namespace kvsim

#endif  // KVSIM_SIM_PLAN_PLAN_RANKS_H_
