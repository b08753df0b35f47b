// The Pareto front of a plan: the configurations' answers that no other beats on every one of
// price, GPUs, TTFT and TPOT (at the SLOs' quantiles) at once.
#ifndef KVSIM_SIM_PLAN_PARETO_H_
#define KVSIM_SIM_PLAN_PARETO_H_

#include <cstddef>
#include <vector>

#include "sim/plan/plan_search.h"

namespace kvsim {

// The quantiles the front's latencies are read at: the first TTFT and TPOT SLOs' (p99 without).
struct FrontQuantiles {
  SloQuantile ttft = SloQuantile::kP99;
  SloQuantile tpot = SloQuantile::kP99;
};
FrontQuantiles FrontQuantilesOf(const SweepCriteria& criteria);

// A plan's four figures, lower is better on each.
struct FrontPoint {
  double usd_per_hour = 0;
  double gpus = 0;
  double ttft_s = 0;
  double tpot_s = 0;
};
FrontPoint FrontPointOf(const ConfigPlan& plan, const FrontQuantiles& q);

// Indexes of the found plans on the front, by price then GPUs (of identical points, the first).
std::vector<size_t> ParetoFront(const std::vector<ConfigPlan>& plans, const FrontQuantiles& q);

}  // namespace kvsim

#endif  // KVSIM_SIM_PLAN_PARETO_H_
