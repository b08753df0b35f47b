// `kvsim plan`'s search: for every configuration of the space (sim/plan/plan_space.h), the fewest
// replicas that meet the SLOs at the trace's rate, and the winner under the objective. Exact: the
// pruned search skips only replays that provably cannot change the winner (the bounds are proved in
// plan_window.cpp; sim/plan/plan_run.h runs the search), and --exhaustive replays every replica count of every configuration to check it.
#ifndef KVSIM_SIM_PLAN_PLAN_SEARCH_H_
#define KVSIM_SIM_PLAN_PLAN_SEARCH_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "kvcache/base/enum_names.h"
#include "sim/plan/plan_space.h"
#include "sim/sweep/sweep.h"

namespace kvsim {

enum class PlanObjective {
  kCost,     // the lowest fleet price per hour at the rate (= the lowest USD per million output tokens)
  kGpus,     // the fewest GPUs
  kLatency,  // the lowest latency of the first SLO (TTFT p99 without one)
};
template <>
struct EnumNames<PlanObjective> {
  static constexpr EnumEntry<PlanObjective> kEntries[] = {
      {PlanObjective::kCost, "cost"}, {PlanObjective::kGpus, "gpus"}, {PlanObjective::kLatency, "latency"}};
};

struct PlanSettings {
  SweepCriteria criteria;  // the SLOs and the preemption limit (its objective is not used)
  PlanObjective objective = PlanObjective::kCost;
  std::map<std::string, double> gpu_hourly_usd;  // by GPU id; required for every GPU with kCost
  int64_t max_replicas = 16;                     // per configuration
  int64_t max_gpus = 0;                          // the whole fleet; 0: no limit
  bool exhaustive = false;
  int jobs = 1;                                  // configurations searched at once (threads)
  // How far behind its bound a search may start (sim/plan/plan_window.h). Searches differ in length
  // several-fold (a configuration that fits few requests probes more replica counts), so a slot
  // that had to wait for the search just before its own would idle. Six searches free to run at
  // once kept two slots busy all through a 576-configuration plan of the Azure hour (three at 97%,
  // four at 91%, scheduled offline from each search's CPU time), at 5% more replays than a lag of 0.
  // It is not the slot count, so that every --jobs and every number of MPI ranks replays the same
  // points and prints the same plan.
  size_t window_lag = 5;
  // The latency kLatency ranks by (default: the first SLO's figure, TTFT p99 without one); --robust
  // passes the pessimistic edge of its error band.
  std::function<double(size_t config, int64_t replicas, const ReplaySummary& summary)> latency_of;
};

// A configuration's answer.
struct ConfigPlan {
  size_t config = 0;          // index into PlanSpace::configs
  bool found = false;         // some replica count in [1, the bound] meets the SLOs
  int64_t replicas = 0;       // the fewest that do
  int64_t gpus = 0;           // replicas x TP x PP
  double usd_per_hour = 0;    // gpus x the GPU's hourly price (0 without a price)
  double usd_per_million_output_tokens = 0;  // the fleet's price over the output tokens the rate offers an hour
  double latency = 0;         // the objective's latency figure (kLatency), s
  PointOutcome outcome;       // at `replicas`; when not found, the nearest miss among the replays
  int64_t nearest_replicas = 0;  // the replica count of the nearest miss
  int64_t replays = 0;
  int64_t upper = 0;          // the most replicas searched
  std::string not_searched;   // the bound that made every replay pointless (then replays = 0)
};

struct PlanResult {
  std::vector<ConfigPlan> plans;  // one per configuration, in the space's order
  int winner = -1;                // index into plans, or -1
  int64_t replays = 0;
  int64_t points = 0;             // (configuration, replica count) pairs in the space: what --exhaustive replays
  bool partial = false;           // a stop cut the search short: the answer is the best of what finished
};

// Thrown by a configuration's search (or a stream runner) when a stop cut a replay short.
struct PlanInterrupted {};

// One judged replay of a configuration at a replica count. Called from several threads at once.
using PlanPointEvaluator = std::function<PointOutcome(size_t config, int64_t replicas)>;

// A configuration search to run: its index and the most replicas to try.
struct ConfigTask {
  size_t config = 0;
  int64_t upper = 0;
};

// One configuration's search over [1, upper] replicas (every count when `exhaustive`).
ConfigPlan SearchReplicas(size_t config, int64_t upper, bool exhaustive, const PlanPointEvaluator& evaluate,
                          const std::atomic<bool>* stop = nullptr);

// Orders the plans: true when `a` beats `b` on the objective, ties broken by price, GPUs, the first
// SLO's latency, then the space's order.
// The latency a plan is ranked by under the latency objective, and its tie-break under the others:
// the first SLO on a latency, else TTFT p99 (from_slo false).
struct LatencyObjective {
  SloMetric metric = SloMetric::kTtft;
  SloQuantile quantile = SloQuantile::kP99;
  bool from_slo = false;
};
LatencyObjective LatencyObjectiveOf(const SweepCriteria& c);

bool PlanBeats(const ConfigPlan& a, const ConfigPlan& b, PlanObjective objective);

// Fills a found plan's GPUs, price and latency figures from its outcome (the configuration given).
void PricePlan(ConfigPlan& plan, const PlanConfig& config, const PlanSettings& settings);

}  // namespace kvsim

#endif  // KVSIM_SIM_PLAN_PLAN_SEARCH_H_
