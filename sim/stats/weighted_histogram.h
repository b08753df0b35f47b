// A latency distribution of weighted samples in constant memory: log-spaced buckets 1% wide from
// 0.1 µs to 10^8 s, so any quantile in that range is within 0.5% of the exact weighted order statistic. Used for
// inter-token latency, where one step of duration dt is the wait of every token it samples.
#ifndef KVSIM_SIM_WEIGHTED_HISTOGRAM_H_
#define KVSIM_SIM_WEIGHTED_HISTOGRAM_H_

#include <cstdint>
#include <vector>

#include "kvcache/base/wide_int.h"
#include "sim/stats/latency_summary.h"

namespace kvsim {

class WeightedHistogram {
 public:
  // The bucket formula, the definition every edge is derived from: 0 below 10^-7 s, then
  // 1 + floor(log(s / 10^-7) / log(1.01)), at most the last bucket.
  static int BucketOf(double seconds);
  WeightedHistogram();
  // Adds `weight` samples of `seconds` (non-negative; values beyond the range land in the end buckets).
  void Add(double seconds, int64_t weight);
  // Nanosecond samples sharing one weight (a decode run's steps, each the wait of `weight` tokens),
  // summed exactly for the mean; each lands in the bucket of ns / 1e9 s, as Add's would.
  void AddRunNs(const int64_t* ns, int64_t n, int64_t weight);
  // One such sample (a step outside a run): AddRunNs of one, inline.
  void AddNs(int64_t ns, int64_t weight) {
    if (weight <= 0) return;
    if (ns < last_lo_ns_ || ns >= last_hi_ns_) SetLastNs(ns);
    buckets_[static_cast<size_t>(last_ns_bucket_)] += weight;
    count_ += weight;
    sum_ns_ += static_cast<Int128>(ns) * weight;
  }
  // The same for a nondecreasing run whose sum is known: a binary search per bucket the run
  // enters instead of a compare per step. REQUIRES: ns nondecreasing, sum = Σ ns.
  void AddSortedRunNs(const int64_t* ns, int64_t n, int64_t weight, int64_t sum);
  // Adds another histogram's samples: bucket counts and sums add exactly, so the result is the
  // histogram of both sample sets in any order.
  void Merge(const WeightedHistogram& other);
  int64_t count() const { return count_; }
  double Quantile(double p) const;  // nearest rank over the weights; 0 when empty
  LatencySummary Summary() const;   // rounded to 10^-6 s like LatencyStats

 private:
  // speed: consecutive steps mostly land in the bucket of the one before, so Add tests the last
  // bucket's exact edges first; otherwise LocateBucket looks the value's exponent and top mantissa
  // bits up in a table of buckets and corrects against the edge table. An edge is the smallest double
  // the bucket formula maps to that bucket or above (bisected once per process: the formula is
  // monotone: log, division and truncation never decrease), so the answer is the formula's, bit for bit.
  int LocateBucket(double seconds) const;  // BucketOf, faster (the edge table)
  double LowerEdge(int bucket) const;
  std::vector<int64_t> buckets_;
  const double* edges_;     // the process's lower edges by bucket (kBuckets + 2 entries), seconds
  const int64_t* ns_edges_;  // the same in integer ns: the smallest ns of each bucket
  const int16_t* cell_buckets_;  // the process's bucket per cell (weighted_histogram.cpp)
  void SetLastNs(int64_t ns);
  int last_bucket_ = -1;
  double last_lo_ = 0, last_hi_ = 0;
  int last_ns_bucket_ = 0;
  int64_t last_lo_ns_ = 0, last_hi_ns_ = 0;  // the integer ns values of last_ns_bucket_: [lo, hi)
  int64_t count_ = 0;
  double sum_ = 0;     // seconds (Add)
  Int128 sum_ns_ = 0;  // nanoseconds (AddRunNs)
};

}  // namespace kvsim

#endif  // KVSIM_SIM_WEIGHTED_HISTOGRAM_H_
