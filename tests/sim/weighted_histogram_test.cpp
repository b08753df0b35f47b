// WeightedHistogram against the exact weighted order statistic: every quantile within half a 1%
// bucket, the mean exact, weights counted as repeated samples.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "sim/weighted_histogram.h"

namespace kvsim {
namespace {

TEST(WeightedHistogramTest, QuantilesWithinHalfABucketOfExact) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> seconds(std::log(0.02), 1.0);
  std::uniform_int_distribution<int64_t> weight(1, 300);
  WeightedHistogram h;
  std::vector<double> expanded;
  double sum = 0;
  for (int i = 0; i < 20000; ++i) {
    const double s = seconds(rng);
    const int64_t w = weight(rng);
    h.Add(s, w);
    expanded.insert(expanded.end(), static_cast<size_t>(w), s);
    sum += s * static_cast<double>(w);
  }
  std::sort(expanded.begin(), expanded.end());
  ASSERT_EQ(h.count(), static_cast<int64_t>(expanded.size()));
  for (double p : {0.01, 0.5, 0.9, 0.99, 0.999}) {
    const double exact = expanded[static_cast<size_t>(std::ceil(p * static_cast<double>(expanded.size()))) - 1];
    EXPECT_NEAR(h.Quantile(p), exact, exact * 0.005) << "p" << p;
  }
  EXPECT_NEAR(h.Summary().mean, sum / static_cast<double>(expanded.size()), 1e-6);
}

TEST(WeightedHistogramTest, ZeroWeightAndEmpty) {
  WeightedHistogram h;
  EXPECT_EQ(h.Summary().count, 0);
  EXPECT_EQ(h.Quantile(0.5), 0.0);
  h.Add(1.0, 0);
  EXPECT_EQ(h.count(), 0);
  h.Add(0.0, 3);  // below the first bucket
  EXPECT_EQ(h.Quantile(0.5), 0.0);
  EXPECT_EQ(h.count(), 3);
}

}  // namespace
}  // namespace kvsim
