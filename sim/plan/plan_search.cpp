#include "sim/plan/plan_search.h"

#include <tuple>

namespace kvsim {
namespace {

double FirstSloLatency(const SweepCriteria& c, const ReplaySummary& s) {
  const LatencyObjective o = LatencyObjectiveOf(c);
  return SloValue(s, o.metric, o.quantile);
}

}  // namespace

LatencyObjective LatencyObjectiveOf(const SweepCriteria& c) {
  for (const SloConstraint& slo : c.slos)
    if (slo.metric != SloMetric::kGoodput) return {slo.metric, slo.quantile, true};
  return {SloMetric::kTtft, SloQuantile::kP99, false};
}

ConfigPlan SearchReplicas(size_t config, int64_t upper, bool exhaustive, const PlanPointEvaluator& evaluate,
                          const std::atomic<bool>* stop) {
  ConfigPlan plan;
  plan.config = config;
  plan.upper = upper;
  bool have_nearest = false;
  auto eval = [&](int64_t n) {
    if (stop && stop->load()) throw PlanInterrupted{};
    PointOutcome p = evaluate(config, n);
    if (p.interrupted) throw PlanInterrupted{};
    ++plan.replays;
    if (!p.feasible && (!have_nearest || p.distance < plan.outcome.distance)) {
      plan.outcome = p;
      plan.nearest_replicas = n;
      have_nearest = true;
    }
    return p;
  };
  if (upper < 1) return plan;
  if (exhaustive) {  // every count, the smallest that meets the SLOs kept
    for (int64_t n = 1; n <= upper; ++n) {
      PointOutcome p = eval(n);
      if (p.feasible && !plan.found) {
        plan.found = true;
        plan.replicas = n;
        plan.outcome = std::move(p);
      }
    }
    return plan;
  }
  // The most replicas first: a configuration that misses there (fewer replicas only do worse)
  // costs one replay; otherwise bisection between a count that misses (lo) and one that meets (hi).
  PointOutcome at_hi = eval(upper);
  if (!at_hi.feasible) return plan;
  int64_t lo = 0, hi = upper;
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    PointOutcome p = eval(mid);
    if (p.feasible) {
      hi = mid;
      at_hi = std::move(p);
    } else {
      lo = mid;
    }
  }
  plan.found = true;
  plan.replicas = hi;
  plan.outcome = std::move(at_hi);
  return plan;
}

bool PlanBeats(const ConfigPlan& a, const ConfigPlan& b, PlanObjective objective) {
  if (a.found != b.found) return a.found;
  // Equal on the objective, the faster plan wins (the first SLO's latency): the winner is then on the front.
  auto cost = [](const ConfigPlan& p) { return std::tuple(p.usd_per_hour, p.gpus, p.latency); };
  auto gpus = [](const ConfigPlan& p) { return std::tuple(p.gpus, p.usd_per_hour, p.latency); };
  switch (objective) {
    case PlanObjective::kCost:
      if (cost(a) != cost(b)) return cost(a) < cost(b);
      break;
    case PlanObjective::kGpus:
      if (gpus(a) != gpus(b)) return gpus(a) < gpus(b);
      break;
    case PlanObjective::kLatency:
      if (a.latency != b.latency) return a.latency < b.latency;
      if (cost(a) != cost(b)) return cost(a) < cost(b);
      break;
  }
  return a.config < b.config;
}

void PricePlan(ConfigPlan& plan, const PlanConfig& config, const PlanSettings& settings) {
  if (!plan.found || !plan.outcome.summary) return;
  const ReplaySummary& s = *plan.outcome.summary;
  plan.gpus = plan.replicas * config.GpusPerReplica();
  const auto price = settings.gpu_hourly_usd.find(config.gpu);
  plan.usd_per_hour = price == settings.gpu_hourly_usd.end() ? 0.0 : static_cast<double>(plan.gpus) * price->second;
  // The fleet is paid for while the traffic arrives: its price per hour over the output tokens the
  // rate brings in an hour (every request of a served load finishes, so the offered tokens are the
  // finished ones, spread over the arrivals' span).
  const double output_tokens = s.throughput.output_tokens_per_s * s.throughput.simulated_s;
  const double span_s = s.throughput.offered_requests_per_s > 0
                            ? static_cast<double>(s.requests.total) / s.throughput.offered_requests_per_s
                            : s.throughput.simulated_s;
  const double tokens_per_hour = span_s > 0 ? output_tokens / span_s * 3600.0 : 0.0;
  plan.usd_per_million_output_tokens = tokens_per_hour > 0 ? plan.usd_per_hour / (tokens_per_hour / 1e6) : 0.0;
  plan.latency = settings.latency_of ? settings.latency_of(plan.config, plan.replicas, s) : FirstSloLatency(settings.criteria, s);
}

}  // namespace kvsim
