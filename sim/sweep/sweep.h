// Deciding between deployments: run replays at many points (in parallel, sharing one preloaded
// trace), judge each against SLOs and a preemption-rate limit, and rank by an objective. The
// searches over one knob live in sweep_search.h, the grid of option values in sweep_grid.h.
#ifndef KVSIM_SIM_SWEEP_H_
#define KVSIM_SIM_SWEEP_H_

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "kvcache/base/enum_names.h"
#include "sim/run/replay_runner.h"
#include "sim/sweep/variant.h"

namespace kvsim {

// kGoodput: the fraction of finished requests within the per-request TTFT/TPOT limits, as
// "goodput-min=0.95" (at least); every other metric is a latency at most its limit.
// ttft and client_ttft are the time to first token as a benchmark client measures it; server_ttft
// the engine's part alone (ReplaySummary::Latency).
enum class SloMetric { kQueue, kTtft, kClientTtft, kServerTtft, kTpot, kItl, kE2e, kGoodput };
template <>
struct EnumNames<SloMetric> {
  static constexpr EnumEntry<SloMetric> kEntries[] = {
      {SloMetric::kTtft, "ttft"}, {SloMetric::kClientTtft, "client_ttft"}, {SloMetric::kTpot, "tpot"},
      {SloMetric::kItl, "itl"},   {SloMetric::kE2e, "e2e"},                  {SloMetric::kQueue, "queue"},
      {SloMetric::kServerTtft, "server_ttft"}, {SloMetric::kGoodput, "goodput"}};
};

enum class SloQuantile { kMean, kP50, kP90, kP99, kP999, kMin };
template <>
struct EnumNames<SloQuantile> {
  static constexpr EnumEntry<SloQuantile> kEntries[] = {{SloQuantile::kP50, "p50"},   {SloQuantile::kP90, "p90"},
                                                        {SloQuantile::kP99, "p99"},   {SloQuantile::kP999, "p99.9"},
                                                        {SloQuantile::kMean, "mean"}, {SloQuantile::kMin, "min"}};
};

enum class Objective {
  kThroughput,  // finished requests per second
  kGoodput,     // finished requests per second within the per-request SLOs
  kCost,        // million output tokens per USD (--gpu-hourly-cost): the cheapest deployment
};
template <>
struct EnumNames<Objective> {
  static constexpr EnumEntry<Objective> kEntries[] = {{Objective::kThroughput, "throughput"}, {Objective::kGoodput, "goodput"}, {Objective::kCost, "cost"}};
};

// "ttft-p99=2s": the p99 of time to first token must be at most 2 seconds.
struct SloConstraint {
  SloMetric metric = SloMetric::kTtft;
  SloQuantile quantile = SloQuantile::kP99;
  double limit_s = 0;
  std::string text;
};

// The figure an SLO constrains, from a summary.
double SloValue(const ReplaySummary& summary, SloMetric metric, SloQuantile quantile);

struct SweepCriteria {
  Objective objective = Objective::kThroughput;
  std::vector<SloConstraint> slos;
  double max_preemption_rate = -1;  // preemptions per finished request; < 0: no limit
};

// Parses --objective, --slo "ttft-p99=2s,tpot-p99=100ms" and --max-preemption-rate.
// Throws kvsim::Error naming the bad piece.
SweepCriteria ParseCriteria(const std::string& objective, const std::string& slo, double max_preemption_rate);

struct PointOutcome {
  std::string label;
  std::optional<ReplaySummary> summary;  // empty when `error` is set
  double objective = 0;                  // requests/s, or goodput requests/s
  bool feasible = false;
  std::vector<std::string> violations;   // "ttft-p99 3.10 s > 2 s (by 1.10 s)"
  double distance = 0;                   // largest violated ratio (value / limit); <= 1 when the SLOs hold
  std::string binding;                   // what binds (sim/stats/binding.h), for infeasible points
  std::string error;                     // the deployment failed to run (e.g. does not fit)
  bool interrupted = false;              // stopped before its replay finished: not judged
};

// A point or deployment that did not finish, and why ("interrupted").
struct UnfinishedPoint {
  std::string label;
  std::string reason;
};

struct VariantRun {
  std::optional<ReplayResult> result;  // when interrupted: the replay so far (summary.partial), or none
  std::string error;  // set when the variant could not run (bad settings, does not fit)
  bool interrupted = false;  // `stop` was raised before or while it ran
};
// Replays every variant, up to `jobs` at once, in input order; variants that read the same trace
// the same way share one preloaded copy. `observers_for(i)` (optional) gives variant i's extra
// observers (chart recorders for a report). Once `*stop` is true (a signal), running replays end
// early and no new one starts; those variants come back `interrupted`.
std::vector<VariantRun> RunVariants(std::vector<Variant>& variants, int jobs,
                                    const std::function<std::vector<ReplayObserver*>(size_t)>& observers_for = {},
                                    const std::atomic<bool>* stop = nullptr);

// A grid's judged points, in input order, without the ones a stop left unfinished.
struct GridOutcome {
  std::vector<PointOutcome> points;
  bool partial = false;
  std::vector<UnfinishedPoint> unfinished;
};
GridOutcome EvaluateGrid(std::vector<Variant> variants, const SweepCriteria& criteria, int jobs,
                         const std::atomic<bool>* stop);

// Runs every variant (up to `jobs` at once) and judges it. Results are in input order whatever
// the thread count; a variant that cannot run becomes an infeasible point with `error` set.
std::vector<PointOutcome> EvaluatePoints(std::vector<Variant> variants, const SweepCriteria& criteria, int jobs);

// One variant, judged (searches run their probes one at a time through this, MPI ranks every
// point). `stop` (optional) ends the replay early, its summary marked partial.
PointOutcome EvaluateOne(Variant& variant, const SweepCriteria& criteria, std::shared_ptr<const PreloadedTrace> preloaded,
                         const std::atomic<bool>* stop = nullptr);

// Index of the best feasible point (highest objective, first on ties), or -1.
int BestPoint(const std::vector<PointOutcome>& points);

// The objective's unit as printed ("req/s", "goodput req/s", "M output tokens/USD").
const char* ObjectiveUnit(Objective objective);

// Why a point is not the best: its violations, or how far its objective falls short.
std::string WhyNotBest(const PointOutcome& point, const PointOutcome& best, const SweepCriteria& criteria);

}  // namespace kvsim

#endif  // KVSIM_SIM_SWEEP_H_
