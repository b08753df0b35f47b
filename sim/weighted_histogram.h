// A latency distribution of weighted samples in constant memory: log-spaced buckets 1% wide from
// 0.1 µs to 10^4 s, so any quantile is within 0.5% of the exact weighted order statistic. Used for
// inter-token latency, where one step of duration dt is the wait of every token it samples.
#ifndef KVSIM_SIM_WEIGHTED_HISTOGRAM_H_
#define KVSIM_SIM_WEIGHTED_HISTOGRAM_H_

#include <cstdint>
#include <vector>

#include "sim/latency_stats.h"

namespace kvsim {

class WeightedHistogram {
 public:
  WeightedHistogram();
  // Adds `weight` samples of `seconds` (non-negative; values beyond the range land in the end buckets).
  void Add(double seconds, int64_t weight);
  int64_t count() const { return count_; }
  double Quantile(double p) const;  // nearest rank over the weights; 0 when empty
  LatencySummary Summary() const;   // rounded to 10^-6 s like LatencyStats

 private:
  std::vector<int64_t> buckets_;
  int64_t count_ = 0;
  double sum_ = 0;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_WEIGHTED_HISTOGRAM_H_
