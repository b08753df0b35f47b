// Deciding between deployments: run replays at many points (in parallel, sharing one preloaded
// trace), judge each against SLOs and a preemption-rate limit, rank by an objective, and search
// for the largest max_num_seqs or the highest load that still meets the SLOs.
#ifndef KVSIM_SIM_SWEEP_H_
#define KVSIM_SIM_SWEEP_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/cli/variant_options.h"

namespace kvsim {

// "ttft-p99=2s": the p99 of time to first token must be at most 2 seconds.
struct SloConstraint {
  std::string metric;    // queue | ttft | tpot | e2e
  std::string quantile;  // mean | p50 | p90 | p99
  double limit_s = 0;
  std::string text;
};

struct SweepCriteria {
  std::string objective = "throughput";  // throughput | goodput
  std::vector<SloConstraint> slos;
  double max_preemption_rate = -1;       // preemptions per finished request; < 0: no limit
};

// Parses --objective, --slo "ttft-p99=2s,tpot-p99=100ms" and --max-preemption-rate.
// Throws kvsim::Error naming the bad piece.
SweepCriteria ParseCriteria(const std::string& objective, const std::string& slo, double max_preemption_rate);

struct PointOutcome {
  std::string label;
  nlohmann::json summary;               // the replay summary (empty when `error` is set)
  double objective = 0;                 // requests/s, or goodput requests/s
  bool feasible = false;
  std::vector<std::string> violations;  // "ttft-p99 3.10 s > 2 s (by 1.10 s)"
  std::string error;                    // the deployment failed to run (e.g. does not fit)
};

struct VariantRun {
  ReplayResult result;
  std::string error;  // set when the variant could not run (bad settings, does not fit)
};
// Replays every variant, up to `jobs` at once, in input order; variants that read the same trace
// the same way share one preloaded copy.
std::vector<VariantRun> RunVariants(std::vector<Variant>& variants, int jobs);

// Runs every variant (up to `jobs` at once) and judges it. Results are in input order whatever
// the thread count; a variant that cannot run becomes an infeasible point with `error` set.
std::vector<PointOutcome> EvaluatePoints(std::vector<Variant> variants, const SweepCriteria& criteria, int jobs);

// Index of the best feasible point (highest objective, first on ties), or -1.
int BestPoint(const std::vector<PointOutcome>& points);

// Why a point is not the best: its violations, or how far its objective falls short.
std::string WhyNotBest(const PointOutcome& point, const PointOutcome& best, const SweepCriteria& criteria);

struct SearchResult {
  bool found = false;
  double value = 0;                     // the largest max_num_seqs / rate scale that meets the SLOs
  double smallest_value = 0;            // max_num_seqs: the smallest cap that meets them (the range's start)
  PointOutcome at_value;
  bool has_next = false;
  double next_value = 0;                // the next larger value tried, which violates
  PointOutcome at_next;
  std::vector<std::pair<double, PointOutcome>> probes;  // every replay, in the order run
  std::string precision;
};

// Why a search found nothing: the probe that came closest (highest throughput) and its
// violations, and, when even that probe finishes requests much slower than the trace offers
// them, that the deployment is overloaded so no setting of the searched knob can help.
std::string ExplainNoFeasibleProbe(const SearchResult& result, const SweepCriteria& criteria);

// Largest integer max_num_seqs in [1, upper] meeting the criteria, and the smallest: every power
// of two is probed, then bisection on each edge of the feasible range (exact to 1). Assumes the
// caps that meet the SLOs form one range. `make` builds the variant for a value.
SearchResult FindLargestBatchCap(const std::function<Variant(int64_t)>& make, const SweepCriteria& criteria,
                                 int64_t upper);
// Highest arrival-rate multiplier meeting the criteria, by doubling/halving then bisection until
// the bracket is within `relative_precision` (e.g. 0.01 = 1%).
SearchResult FindHighestRateScale(const std::function<Variant(double)>& make, const SweepCriteria& criteria,
                                  double relative_precision);

}  // namespace kvsim

#endif  // KVSIM_SIM_SWEEP_H_
