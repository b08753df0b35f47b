#include "sim/plan/plan_search.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <thread>

#include "kvcache/base/check.h"
#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"

namespace kvsim {
namespace {

double FirstSloLatency(const SweepCriteria& c, const ReplaySummary& s) {
  for (const SloConstraint& slo : c.slos)
    if (slo.metric != SloMetric::kGoodput) return SloValue(s, slo.metric, slo.quantile);
  return SloValue(s, SloMetric::kTtft, SloQuantile::kP99);
}

// The largest replica count whose key can still tie or beat `best` (which is found), given the
// configuration's GPUs per replica and price; 0 when not even one replica can. Only cost and GPUs
// grow with the replicas; the latency objective has no such bound.
//
// Proof that the bound drops no winner: a plan's key is replicas x g x price (cost) or
// replicas x g (GPUs), strictly increasing in the replicas. A configuration wins only with a key at
// most the best found so far (the best only falls as the search goes on, so it is at least the
// winner's key), i.e. only with at most this many replicas. Its fewest replicas meeting the SLOs,
// if within the bound, are found by the search over [1, bound] (replica counts are monotone: more
// replicas of the same configuration never make the SLOs worse, the same assumption the sweep's
// --find replicas makes, which --exhaustive checks by replaying every count); if they lie beyond it,
// or do not exist, the configuration's key is above the best and it cannot win.
int64_t ReplicasWithin(const ConfigPlan& best, int64_t gpus_per_replica, double price, PlanObjective objective) {
  if (objective == PlanObjective::kLatency) return std::numeric_limits<int64_t>::max();
  int64_t n = 0;
  if (objective == PlanObjective::kGpus) {
    n = best.gpus / gpus_per_replica;
  } else {
    const double per_replica = static_cast<double>(gpus_per_replica) * price;
    if (!(per_replica > 0)) return std::numeric_limits<int64_t>::max();
    n = static_cast<int64_t>(std::floor(best.usd_per_hour / per_replica));
    // The same product PricePlan computes decides, not the division's rounding.
    while (n >= 0 && static_cast<double>(n + 1) * static_cast<double>(gpus_per_replica) * price <= best.usd_per_hour) ++n;
    while (n > 0 && static_cast<double>(n) * static_cast<double>(gpus_per_replica) * price > best.usd_per_hour) --n;
  }
  return n;
}

}  // namespace

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

namespace {
constexpr size_t kTasksPerSlot = 4;
}  // namespace

PlanResult SearchPlan(const PlanSpace& space, const PlanSettings& settings, const PlanPointEvaluator& evaluate,
                      const std::function<void(size_t, size_t)>& progress, const std::atomic<bool>* stop,
                      const ConfigWaveRunner& run_wave) {
  const size_t n = space.configs.size();
  PlanResult result;
  result.plans.resize(n);
  auto price_of = [&](const PlanConfig& c) {
    const auto it = settings.gpu_hourly_usd.find(c.gpu);
    return it == settings.gpu_hourly_usd.end() ? 0.0 : it->second;
  };
  if (settings.objective == PlanObjective::kCost)
    for (const PlanConfig& c : space.configs)
      if (!(price_of(c) > 0)) throw Error("--gpu-hourly-cost: no price for " + c.gpu + " (the GPU table has none; give GPU=USD)");
  // The most replicas each configuration may use: --max-replicas, and --max-gpus over its GPUs.
  std::vector<int64_t> cap(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t g = space.configs[i].GpusPerReplica();
    cap[i] = settings.max_replicas;
    if (settings.max_gpus > 0) cap[i] = std::min(cap[i], settings.max_gpus / g);
    result.points += std::max<int64_t>(cap[i], 0);
    result.plans[i].config = i;
    if (cap[i] < 1)
      result.plans[i].not_searched = Format("one replica's %lld GPUs exceed --max-gpus %lld", static_cast<long long>(g),
                                            static_cast<long long>(settings.max_gpus));
  }
  // Cheapest first by what one replica costs (the key's lower bound at one replica), so that the
  // bound is tight early; the order does not change the answer (PlanBeats breaks ties by index).
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  auto one_replica_key = [&](size_t i) {
    const double g = static_cast<double>(space.configs[i].GpusPerReplica());
    return settings.objective == PlanObjective::kGpus ? std::tuple(g, g * price_of(space.configs[i]))
                                                      : std::tuple(g * price_of(space.configs[i]), g);
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return one_replica_key(a) < one_replica_key(b); });

  const int jobs = std::max(1, settings.jobs);
  size_t done = 0;
  std::mutex progress_mutex;  // the threads report each configuration as it finishes (a wide wave is long)
  ConfigWaveRunner threads = [&](const std::vector<ConfigTask>& tasks) {
    std::vector<ConfigPlan> plans(tasks.size());
    std::vector<std::exception_ptr> errors(tasks.size());
    std::atomic<size_t> next{0};
    size_t finished = 0;
    auto worker = [&] {
      for (size_t t = next++; t < tasks.size(); t = next++) {
        try {
          plans[t] = SearchReplicas(tasks[t].config, tasks[t].upper, settings.exhaustive, evaluate, stop);
        } catch (...) {
          errors[t] = std::current_exception();
        }
        const std::lock_guard<std::mutex> lock(progress_mutex);
        ++finished;
        if (progress) progress(done + finished, n);
      }
    };
    std::vector<std::thread> pool;
    for (int j = 1; j < std::min<int>(jobs, static_cast<int>(tasks.size())); ++j) pool.emplace_back(worker);
    worker();
    for (std::thread& t : pool) t.join();
    for (const std::exception_ptr& e : errors)
      if (e) std::rethrow_exception(e);
    return plans;
  };
  const ConfigWaveRunner& run = run_wave ? run_wave : threads;

  int best = -1;
  // Waves of kTasksPerSlot x `jobs` configurations, each searched with the bound known when the wave
  // starts: searches differ in length by several times (a configuration that fits few requests probes
  // more replica counts), so a wave of one per slot left slots idle waiting for its longest search.
  // The bound only loses what a wave finds meanwhile; the answer is the same. One slot has no one to
  // wait for, so it keeps waves of one and the tightest bound.
  const size_t wave = settings.exhaustive ? n : jobs == 1 ? 1 : kTasksPerSlot * static_cast<size_t>(jobs);
  for (size_t start = 0; start < n; start += std::max<size_t>(wave, 1)) {
    std::vector<ConfigTask> tasks;
    const size_t end = std::min(n, start + std::max<size_t>(wave, 1));
    for (size_t k = start; k < end; ++k) {
      const size_t i = order[k];
      ConfigPlan& p = result.plans[i];
      if (cap[i] < 1) {
        ++done;
        continue;
      }
      int64_t upper = cap[i];
      if (!settings.exhaustive && best >= 0) {
        const int64_t within =
            ReplicasWithin(result.plans[best], space.configs[i].GpusPerReplica(), price_of(space.configs[i]), settings.objective);
        if (within < upper) upper = within;
        if (upper < 1) {
          p.not_searched = settings.objective == PlanObjective::kGpus
                               ? Format("one replica's %lld GPUs > the best plan's %lld",
                                        static_cast<long long>(space.configs[i].GpusPerReplica()),
                                        static_cast<long long>(result.plans[best].gpus))
                               : Format("one replica costs %.2f USD/h > the best plan's %.2f",
                                        static_cast<double>(space.configs[i].GpusPerReplica()) * price_of(space.configs[i]),
                                        result.plans[best].usd_per_hour);
          ++done;
          continue;
        }
      }
      tasks.push_back({i, upper});
    }
    std::vector<ConfigPlan> plans;
    try {
      plans = run(tasks);
    } catch (const PlanInterrupted&) {
      result.partial = true;
      break;
    }
    KVSIM_CHECK(plans.size() == tasks.size(), "a wave runner returns one plan per task");
    for (size_t t = 0; t < tasks.size(); ++t) {
      ConfigPlan& p = result.plans[tasks[t].config];
      p = std::move(plans[t]);
      p.config = tasks[t].config;
      PricePlan(p, space.configs[p.config], settings);
      result.replays += p.replays;
      if (p.found && (best < 0 || PlanBeats(p, result.plans[best], settings.objective))) best = static_cast<int>(p.config);
      ++done;
      if (progress) progress(done, n);
    }
    if (stop && stop->load()) {
      result.partial = true;
      break;
    }
  }
  result.winner = best;
  return result;
}

}  // namespace kvsim
