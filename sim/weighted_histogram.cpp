#include "sim/weighted_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace kvsim {
namespace {

constexpr double kLowest = 1e-7;    // seconds: the first bucket's lower edge
constexpr double kGrowth = 1.01;    // each bucket 1% wider than the last
constexpr int kBuckets = 2546;      // log(10^4 / 10^-7) / log(1.01), rounded up
const double kLogGrowth = std::log(kGrowth);

double R6(double x) { return std::round(x * 1e6) / 1e6; }

}  // namespace

WeightedHistogram::WeightedHistogram()
    : buckets_(kBuckets + 1, 0), edges_(kBuckets + 2, std::numeric_limits<double>::quiet_NaN()) {}

int WeightedHistogram::BucketOf(double seconds) {
  if (!(seconds >= kLowest)) return 0;  // [0, kLowest) and the buckets above it
  return std::min(kBuckets, 1 + static_cast<int>(std::log(seconds / kLowest) / kLogGrowth));
}

double WeightedHistogram::LowerEdge(int bucket) {
  if (bucket <= 0) return 0.0;
  if (bucket > kBuckets) return std::numeric_limits<double>::infinity();
  double& edge = edges_[static_cast<size_t>(bucket)];
  if (std::isnan(edge)) {
    // Positive doubles order as their bit patterns: bisect for the first one at or above `bucket`.
    uint64_t lo = std::bit_cast<uint64_t>(kLowest), hi = std::bit_cast<uint64_t>(1e300);
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (BucketOf(std::bit_cast<double>(mid)) >= bucket) hi = mid;
      else lo = mid + 1;
    }
    edge = std::bit_cast<double>(lo);
  }
  return edge;
}

void WeightedHistogram::Add(double seconds, int64_t weight) {
  if (weight <= 0) return;
  int bucket = last_bucket_;
  if (!(seconds >= last_lo_ && seconds < last_hi_)) {
    bucket = BucketOf(seconds);
    last_bucket_ = bucket;
    last_lo_ = LowerEdge(bucket);
    last_hi_ = LowerEdge(bucket + 1);
  }
  buckets_[static_cast<size_t>(bucket)] += weight;
  count_ += weight;
  sum_ += seconds * static_cast<double>(weight);
}

double WeightedHistogram::Quantile(double p) const {
  if (count_ == 0) return 0;
  const int64_t rank = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(p * static_cast<double>(count_))));
  int64_t seen = 0;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    seen += buckets_[b];
    if (seen >= rank) {
      if (b == 0) return 0;
      // The bucket's geometric centre: within half a bucket (0.5%) of every value in it.
      return kLowest * std::pow(kGrowth, static_cast<double>(b) - 0.5);
    }
  }
  return kLowest * std::pow(kGrowth, kBuckets);
}

LatencySummary WeightedHistogram::Summary() const {
  if (count_ == 0) return {};
  return {count_, R6(sum_ / static_cast<double>(count_)), R6(Quantile(0.5)), R6(Quantile(0.9)), R6(Quantile(0.99)),
          R6(Quantile(0.999))};
}

}  // namespace kvsim
