// Streaming latency statistics: count, mean and nearest-rank quantiles. Exact while the sample is
// small (up to kExactLimit values) or when asked for (every value kept); beyond that a log-bucket
// sketch (weighted_histogram.h: buckets 1% wide, so a quantile is within 0.5% of the exact order
// statistic) in constant memory and constant time per value.
#ifndef KVSIM_SIM_LATENCY_STATS_H_
#define KVSIM_SIM_LATENCY_STATS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/stats/latency_summary.h"

namespace kvsim {

class WeightedHistogram;

class LatencyStats {
 public:
  // `exact`: keep every value (memory grows with the count) instead of sketching beyond kExactLimit.
  explicit LatencyStats(bool exact = false);
  ~LatencyStats();
  LatencyStats(LatencyStats&&) noexcept;
  LatencyStats& operator=(LatencyStats&&) noexcept;

  // Inline: it runs five times per finished request, and whether a caller in another file inlined it
  // depended on how the unity build happened to batch the files.
  void Add(double seconds) {
    ++count_;
    sum_ += seconds;
    if (exact_ || values_.size() < kExactLimit) Keep(seconds);
    if (sketch_) Sketch(seconds);
    // The variance streamed in one pass (numerically stable over millions of values): the
    // population variance numpy.std squares, which `vllm bench serve` reports. Welford's update
    // (Knuth, TAOCP vol. 2, 4.2.2): one division per value where Boost.Accumulators' mean and
    // variance take three.
    const double delta = seconds - running_mean_;
    running_mean_ += delta / static_cast<double>(count_);
    running_m2_ += delta * (seconds - running_mean_);
  }
  int64_t count() const { return count_; }
  double mean() const;
  // Exact order statistic (nearest rank) while every value is kept; the sketch's beyond.
  double Quantile(double p) const;
  bool exact() const { return exact_ || static_cast<size_t>(count_) <= kExactLimit; }
  // count, mean, p50, p90, p99, p99.9 and the standard deviation, each rounded to 10^-6 s.
  LatencySummary Summary() const;

  static constexpr size_t kExactLimit = 4096;

 private:
  bool exact_;
  std::vector<double> values_;                    // all of them (exact) or the first kExactLimit
  std::unique_ptr<WeightedHistogram> sketch_;     // sketch mode: every value
  void Keep(double seconds);
  void Sketch(double seconds);
  int64_t count_ = 0;
  double sum_ = 0;
  // The streamed mean and population variance of every value (Add says how), constant memory.
  double running_mean_ = 0, running_m2_ = 0;  // Welford: the mean and Σ (x − mean)² so far
};

}  // namespace kvsim

#endif  // KVSIM_SIM_LATENCY_STATS_H_
