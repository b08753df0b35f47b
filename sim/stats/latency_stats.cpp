#include "sim/stats/latency_stats.h"

#include <algorithm>
#include <cmath>

#include "sim/stats/weighted_histogram.h"

namespace kvsim {

LatencyStats::LatencyStats(bool exact) : exact_(exact) {
  if (!exact_) sketch_ = std::make_unique<WeightedHistogram>();
}
LatencyStats::~LatencyStats() = default;
LatencyStats::LatencyStats(LatencyStats&&) noexcept = default;
LatencyStats& LatencyStats::operator=(LatencyStats&&) noexcept = default;

// speed: out of line, so that Add, inlined at every caller, stays small.
[[gnu::noinline]] void LatencyStats::Keep(double seconds) { values_.push_back(seconds); }

void LatencyStats::Sketch(double seconds) { sketch_->Add(seconds, 1); }

double LatencyStats::mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0.0; }

double LatencyStats::Quantile(double p) const {
  if (count_ == 0) return 0.0;
  if (!exact()) return sketch_->Quantile(p);
  std::vector<double> v = values_;
  const size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(v.size())));
  const size_t k = rank == 0 ? 0 : rank - 1;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
  return v[k];
}

LatencySummary LatencyStats::Summary() const {
  auto r = [](double x) { return std::round(x * 1e6) / 1e6; };
  const double variance = count_ > 0 ? running_m2_ / static_cast<double>(count_) : 0.0;
  return {count_, r(mean()), r(Quantile(0.5)), r(Quantile(0.9)), r(Quantile(0.99)), r(Quantile(0.999)),
          r(std::sqrt(std::max(0.0, variance))), true};
}

}  // namespace kvsim
