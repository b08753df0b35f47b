// Searches over one knob for the edge of what meets the SLOs: the largest (and smallest)
// max_num_seqs, or the highest arrival-rate multiplier. Each probe is one judged replay
// (sweep.h); the trace is preloaded once for all probes.
#ifndef KVSIM_SIM_SWEEP_SEARCH_H_
#define KVSIM_SIM_SWEEP_SEARCH_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "sim/sweep/sweep.h"

namespace kvsim {

struct SearchResult {
  bool found = false;
  double value = 0;                     // the largest max_num_seqs / rate scale that meets the SLOs
  double smallest_value = 0;            // max_num_seqs: the smallest cap that meets them (the range's start)
  PointOutcome at_value;
  bool has_next = false;
  double next_value = 0;                // the neighbour that violates (next larger; replicas: N - 1)
  PointOutcome at_next;
  std::vector<std::pair<double, PointOutcome>> probes;  // every replay, in the order run
  std::string precision;
  bool partial = false;                          // stopped by a signal: `probes` are those finished
  std::vector<UnfinishedPoint> unfinished;       // the probe that was running, and why
};

// Probes run several at a time (e.g. one per MPI rank, sim/sweep/sweep_ranks.h). A search given rounds
// evaluates, per round, the next `width` values of its own decision tree (breadth first below the
// probes already known), then replays its serial logic on the known outcomes: the answer and the
// reported probes (`SearchResult::probes`) are the serial search's, byte for byte, and the values
// the decisions did not need are discarded. With width 3 each round settles two bisection steps.
struct ProbeRounds {
  int width = 1;
  // Evaluates the values; outcomes in the order given. May throw to abandon the search.
  std::function<std::vector<PointOutcome>(const std::vector<double>& values)> run;
  int rounds = 0;       // out: rounds run
  int64_t probes = 0;   // out: values evaluated, the discarded ones included
};

// Why a search found nothing: the probe nearest to meeting the SLOs by the stated distance (the
// largest violated ratio, value / limit; the offered-load check counts offered / finished and the
// backlog over its 1% limit) with
// its violations and what binds there (sim/stats/binding.h).
std::string ExplainNoFeasibleProbe(const SearchResult& result, const SweepCriteria& criteria);
// The same for any list of points: "nearest: LABEL (largest violated ratio 1.35) ...".
std::string NearestPoint(const std::vector<PointOutcome>& points);

// Smallest number of replicas in [1, upper] meeting the criteria: doubling from 1, then bisection
// (exact to 1); N - 1 is always probed and reported as the violating neighbour. Assumes more
// replicas never make the SLOs worse.
SearchResult FindSmallestReplicas(const std::function<Variant(int64_t)>& make, const SweepCriteria& criteria,
                                  int64_t upper, const std::atomic<bool>* stop = nullptr, ProbeRounds* rounds = nullptr);

// Largest integer max_num_seqs in [1, upper] meeting the criteria, and the smallest: every power
// of two is probed, then bisection on each edge of the feasible range (exact to 1). Assumes the
// caps that meet the SLOs form one range. `make` builds the variant for a value.
// Once `*stop` is true the search ends with `partial` set and no answer (found = false).
SearchResult FindLargestBatchCap(const std::function<Variant(int64_t)>& make, const SweepCriteria& criteria,
                                 int64_t upper, const std::atomic<bool>* stop = nullptr, ProbeRounds* rounds = nullptr);
// Highest arrival-rate multiplier meeting the criteria, by doubling/halving then bisection until
// the bracket is within `relative_precision` (e.g. 0.01 = 1%).
SearchResult FindHighestRateScale(const std::function<Variant(double)>& make, const SweepCriteria& criteria,
                                  double relative_precision, const std::atomic<bool>* stop = nullptr,
                                  ProbeRounds* rounds = nullptr);

}  // namespace kvsim

#endif  // KVSIM_SIM_SWEEP_SEARCH_H_
