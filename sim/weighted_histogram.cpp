#include "sim/weighted_histogram.h"

#include <algorithm>
#include <cmath>

namespace kvsim {
namespace {

constexpr double kLowest = 1e-7;    // seconds: the first bucket's lower edge
constexpr double kGrowth = 1.01;    // each bucket 1% wider than the last
constexpr int kBuckets = 2546;      // log(10^4 / 10^-7) / log(1.01), rounded up
const double kLogGrowth = std::log(kGrowth);

double R6(double x) { return std::round(x * 1e6) / 1e6; }

}  // namespace

WeightedHistogram::WeightedHistogram() : buckets_(kBuckets + 1, 0) {}

void WeightedHistogram::Add(double seconds, int64_t weight) {
  if (weight <= 0) return;
  int bucket = 0;  // [0, kLowest) and the buckets above it
  if (seconds >= kLowest)
    bucket = std::min(kBuckets, 1 + static_cast<int>(std::log(seconds / kLowest) / kLogGrowth));
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
