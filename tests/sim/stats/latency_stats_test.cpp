// LatencyStats: exact nearest-rank quantiles for small samples or on request, the log-bucket sketch
// (within 0.5%) for large ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "sim/stats/latency_stats.h"

namespace kvsim {
namespace {

TEST(LatencyStatsTest, SmallSamplesAreExactNearestRank) {
  LatencyStats s;
  for (int i = 10; i >= 1; --i) s.Add(i);  // 1..10, added out of order
  EXPECT_EQ(s.count(), 10);
  EXPECT_DOUBLE_EQ(s.mean(), 5.5);
  // Nearest rank: the ceil(p·n)-th smallest value.
  EXPECT_DOUBLE_EQ(s.Quantile(0.5), 5);   // rank 5
  EXPECT_DOUBLE_EQ(s.Quantile(0.9), 9);   // rank 9
  EXPECT_DOUBLE_EQ(s.Quantile(0.99), 10); // rank ceil(9.9) = 10
  EXPECT_DOUBLE_EQ(s.Quantile(0.0), 1);
}

TEST(LatencyStatsTest, EmptyAndSingleSample) {
  LatencyStats s;
  EXPECT_EQ(s.Summary().count, 0);
  EXPECT_DOUBLE_EQ(s.Summary().p99, 0.0);
  s.Add(0.25);
  const LatencySummary one = s.Summary();
  EXPECT_EQ(one.count, 1);
  EXPECT_DOUBLE_EQ(one.p50, 0.25);
  EXPECT_DOUBLE_EQ(one.p99, 0.25);
}

TEST(LatencyStatsTest, SummaryRoundsToTheMicrosecond) {
  LatencyStats s;
  s.Add(0.1234564);
  EXPECT_DOUBLE_EQ(s.Summary().mean, 0.123456);
}

// Past kExactLimit samples the quantiles come from extended P²: on 100,000 lognormal latencies
// (median 1 s, sigma 1) they must stay within 2% of the exact order statistics.
TEST(LatencyStatsTest, LargeSamplesTrackTheExactQuantiles) {
  std::mt19937_64 rng(3);
  std::lognormal_distribution<double> d(0.0, 1.0);
  LatencyStats s;
  std::vector<double> all;
  for (int i = 0; i < 100000; ++i) {
    const double v = d(rng);
    s.Add(v);
    all.push_back(v);
  }
  std::sort(all.begin(), all.end());
  auto exact = [&](double p) { return all[static_cast<size_t>(std::ceil(p * static_cast<double>(all.size()))) - 1]; };
  // The sketch's stated bound: half a 1%-wide bucket.
  for (double p : {0.5, 0.9, 0.99, 0.999}) EXPECT_NEAR(s.Quantile(p) / exact(p), 1.0, 0.005) << "p" << p;
  EXPECT_FALSE(s.exact());
  double sum = 0;
  for (double v : all) sum += v;
  EXPECT_NEAR(s.mean(), sum / static_cast<double>(all.size()), 1e-9);
}

TEST(LatencyStatsTest, ExactModeKeepsEveryValue) {
  std::mt19937_64 rng(5);
  std::exponential_distribution<double> d(2.0);
  LatencyStats s(/*exact=*/true);
  std::vector<double> all;
  for (int i = 0; i < 20000; ++i) {
    const double v = d(rng);
    s.Add(v);
    all.push_back(v);
  }
  std::sort(all.begin(), all.end());
  EXPECT_TRUE(s.exact());
  for (double p : {0.5, 0.9, 0.99, 0.999})
    EXPECT_EQ(s.Quantile(p), all[static_cast<size_t>(std::ceil(p * static_cast<double>(all.size()))) - 1]) << "p" << p;
}

}  // namespace
}  // namespace kvsim
