#include "sim/plan/pareto.h"

#include <algorithm>
#include <tuple>

namespace kvsim {

FrontQuantiles FrontQuantilesOf(const SweepCriteria& criteria) {
  FrontQuantiles q;
  bool ttft = false, tpot = false;
  for (const SloConstraint& slo : criteria.slos) {
    const bool is_ttft = slo.metric == SloMetric::kTtft || slo.metric == SloMetric::kClientTtft || slo.metric == SloMetric::kServerTtft;
    if (is_ttft && !ttft && slo.quantile != SloQuantile::kMin) q.ttft = slo.quantile, ttft = true;
    if (slo.metric == SloMetric::kTpot && !tpot) q.tpot = slo.quantile, tpot = true;
  }
  return q;
}

FrontPoint FrontPointOf(const ConfigPlan& plan, const FrontQuantiles& q) {
  FrontPoint f;
  f.usd_per_hour = plan.usd_per_hour;
  f.gpus = static_cast<double>(plan.gpus);
  if (plan.outcome.summary) {
    f.ttft_s = SloValue(*plan.outcome.summary, SloMetric::kTtft, q.ttft);
    f.tpot_s = SloValue(*plan.outcome.summary, SloMetric::kTpot, q.tpot);
  }
  return f;
}

namespace {
auto Key(const FrontPoint& f) { return std::tuple(f.usd_per_hour, f.gpus, f.ttft_s, f.tpot_s); }

bool Dominates(const FrontPoint& a, const FrontPoint& b) {
  const bool no_worse = a.usd_per_hour <= b.usd_per_hour && a.gpus <= b.gpus && a.ttft_s <= b.ttft_s && a.tpot_s <= b.tpot_s;
  return no_worse && Key(a) != Key(b);
}
}  // namespace

std::vector<size_t> ParetoFront(const std::vector<ConfigPlan>& plans, const FrontQuantiles& q) {
  std::vector<size_t> found;
  std::vector<FrontPoint> points(plans.size());
  for (size_t i = 0; i < plans.size(); ++i)
    if (plans[i].found) {
      found.push_back(i);
      points[i] = FrontPointOf(plans[i], q);
    }
  std::vector<size_t> front;
  for (size_t i : found) {
    bool dominated = false;
    for (size_t j : found) {
      // Dominated, or a duplicate of an earlier plan: not on the front.
      if (Dominates(points[j], points[i]) || (j < i && Key(points[j]) == Key(points[i]))) {
        dominated = true;
        break;
      }
    }
    if (!dominated) front.push_back(i);
  }
  std::stable_sort(front.begin(), front.end(), [&](size_t a, size_t b) { return Key(points[a]) < Key(points[b]); });
  return front;
}

}  // namespace kvsim
