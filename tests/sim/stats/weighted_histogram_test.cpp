// WeightedHistogram against the exact weighted order statistic: every quantile within half a 1%
// bucket, the mean exact, weights counted as repeated samples.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "sim/stats/weighted_histogram.h"

namespace kvsim {
namespace {

// Latencies of an overloaded replay run to hours and days: the same 0.5% holds there (the range
// once ended at 10^4 s and reported 17,532 s as 10,001 s).
TEST(WeightedHistogramTest, LongLatenciesAreWithinHalfABucketToo) {
  for (double seconds : {9'999.0, 10'001.0, 17'532.062, 604'800.0, 3.1e7, 9.9e7}) {
    WeightedHistogram h;
    h.Add(seconds, 3);
    EXPECT_NEAR(h.Quantile(0.5), seconds, seconds * 0.005) << seconds;
    const int64_t ns = static_cast<int64_t>(seconds * 1e9);
    WeightedHistogram g;
    g.AddRunNs(&ns, 1, 2);
    EXPECT_NEAR(g.Quantile(0.5), seconds, seconds * 0.005) << seconds;
  }
}

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

// The last bucket's edges are cached: a sample's bucket must not depend on the one before it.
// Samples straddling bucket edges (0.1 ms steps of 1e-9 relative) in rising, falling and shuffled
// order give the same histogram: the same quantile at every rank.
TEST(WeightedHistogramTest, BucketDoesNotDependOnOrder) {
  std::vector<double> v;
  for (int i = 0; i < 4000; ++i) v.push_back(1e-4 * std::pow(1.01, i / 400.0) * (1 + 1e-9 * (i % 7)));
  WeightedHistogram rising, falling, shuffled;
  for (double x : v) rising.Add(x, 1);
  for (auto it = v.rbegin(); it != v.rend(); ++it) falling.Add(*it, 1);
  std::mt19937 rng(5);
  std::shuffle(v.begin(), v.end(), rng);
  for (double x : v) shuffled.Add(x, 1);
  for (int k = 1; k <= 4000; k += 7) {
    const double p = k / 4000.0;
    EXPECT_EQ(rising.Quantile(p), falling.Quantile(p)) << p;
    EXPECT_EQ(rising.Quantile(p), shuffled.Quantile(p)) << p;
  }
}

// Values land in the bucket of the formula (BucketOf, the definition) whichever way Add finds it
// (the last bucket's edges, the edge table with a guessed index, or the integer-ns path): checked
// through the one-value histogram's median, the centre of that bucket.
TEST(WeightedHistogramTest, EveryPathFindsTheFormulasBucket) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> exponent(-8.0, 8.5);
  for (int i = 0; i < 20000; ++i) {
    const double v = std::pow(10.0, exponent(rng));
    const int b = WeightedHistogram::BucketOf(v);
    const double centre = b == 0 ? 0.0 : 1e-7 * std::pow(1.01, static_cast<double>(b) - 0.5);
    WeightedHistogram h;
    h.Add(v, 1);
    ASSERT_EQ(h.Quantile(0.5), centre) << v;
    const int64_t ns = static_cast<int64_t>(v * 1e9);
    if (ns <= 0 || ns > 900'000'000'000'000'000) continue;
    const int bn = WeightedHistogram::BucketOf(static_cast<double>(ns) / 1e9);
    WeightedHistogram g;
    g.AddRunNs(&ns, 1, 1);
    const int64_t run[3] = {ns, ns, ns + 1};
    g.AddRunNs(run, 3, 2);
    ASSERT_EQ(g.Quantile(0.01), bn == 0 ? 0.0 : 1e-7 * std::pow(1.01, static_cast<double>(bn) - 0.5)) << ns;
  }
}

// Around every bucket edge (the doubles a few units in the last place either side of 10^-7·1.01^k,
// where the formula changes bucket), the looked-up bucket is the formula's.
TEST(WeightedHistogramTest, ValuesAtEveryEdgeFindTheFormulasBucket) {
  for (int k = 0; k <= 3472; ++k) {
    double v = 1e-7 * std::pow(1.01, static_cast<double>(k));
    for (int i = 0; i < 24; ++i) v = std::nextafter(v, 0.0);
    for (int i = 0; i < 48; ++i, v = std::nextafter(v, 1e9)) {
      const int b = WeightedHistogram::BucketOf(v);
      WeightedHistogram h;
      h.Add(v, 1);
      ASSERT_EQ(h.Quantile(0.5), b == 0 ? 0.0 : 1e-7 * std::pow(1.01, static_cast<double>(b) - 0.5)) << v;
    }
  }
}

// A nondecreasing run added by binary search lands every step where the step-by-step path puts it:
// runs that stay in one bucket, cross a few, and jump across many, with the same sum.
TEST(WeightedHistogramTest, SortedRunsEqualStepByStep) {
  std::mt19937_64 rng(5);
  WeightedHistogram by_step, sorted;
  for (int run = 0; run < 3000; ++run) {
    const int64_t n = 1 + static_cast<int64_t>(rng() % 300);
    std::vector<int64_t> ns(static_cast<size_t>(n));
    int64_t v = 1000 + static_cast<int64_t>(rng() % 50'000'000), sum = 0;
    const int64_t step = static_cast<int64_t>(rng() % (run % 3 == 0 ? 5 : run % 3 == 1 ? 2000 : 400'000));
    for (int64_t& x : ns) {
      x = v;
      sum += v;
      v += static_cast<int64_t>(rng() % (step + 1));
    }
    const int64_t weight = 1 + static_cast<int64_t>(rng() % 64);
    by_step.AddRunNs(ns.data(), n, weight);
    sorted.AddSortedRunNs(ns.data(), n, weight, sum);
  }
  ASSERT_EQ(sorted.count(), by_step.count());
  for (int k = 0; k <= 1000; ++k) ASSERT_EQ(sorted.Quantile(k / 1000.0), by_step.Quantile(k / 1000.0)) << k;
  EXPECT_EQ(sorted.Summary().mean, by_step.Summary().mean);
}

}  // namespace
}  // namespace kvsim
