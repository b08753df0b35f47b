// Streaming latency statistics: count, mean and p50/p90/p99 in constant memory
// (Boost.Accumulators' extended P² quantile estimator), exact while the sample is small.
#ifndef KVSIM_SIM_LATENCY_STATS_H_
#define KVSIM_SIM_LATENCY_STATS_H_

#include <cstdint>
#include <memory>
#include <vector>

namespace kvsim {

// A latency distribution as reported: seconds, rounded to the microsecond.
struct LatencySummary {
  int64_t count = 0;
  double mean = 0, p50 = 0, p90 = 0, p99 = 0;
  double p999 = 0;  // for SLOs (sweeps); not in the replay JSON, whose keys stay as they were
};

class LatencyStats {
 public:
  LatencyStats();
  ~LatencyStats();
  LatencyStats(LatencyStats&&) noexcept;
  LatencyStats& operator=(LatencyStats&&) noexcept;

  void Add(double seconds);
  int64_t count() const { return count_; }
  double mean() const;
  // Exact order statistic (nearest rank) while count <= kExactLimit, P² estimate beyond.
  double Quantile(double p) const;
  // count, mean, p50, p90 and p99, each rounded to 10^-6 s.
  LatencySummary Summary() const;

  static constexpr size_t kExactLimit = 4096;

 private:
  struct Accumulators;
  std::unique_ptr<Accumulators> acc_;
  std::unique_ptr<Accumulators> tail_;  // p99.9 alone, so the p50/p90/p99 estimates stay as they were
  std::vector<double> exact_;
  int64_t count_ = 0;
  double sum_ = 0;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_LATENCY_STATS_H_
