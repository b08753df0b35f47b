// The searches' answers the issue found misleading, one test per case: a TPOT-only SLO met while
// the queue grows without bound, every prompt over max-model-len, and no feasible probe (the
// nearest must be the one with the smallest largest violated ratio, not the fastest). Plus the
// served-load check on hand-made arrivals and the replicas search against every N.
#include <gtest/gtest.h>

#include <algorithm>

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "kvcache/model/model_catalog.h"
#include "sim/stats/latency_stats.h"
#include "sim/stats/binding.h"
#include "sim/stats/load_check.h"
#include "sim/sweep/sweep.h"
#include "tests/sim/small_l4_case.h"
#include "sim/sweep/sweep_search.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

// 400 synthetic requests at `rate` per second on an L4 (the sweep test's small case).
Variant Case(int64_t cap, double rate, const std::string& prompt_len = "uniform:200:800", int64_t replicas = 1) {
  return testing::MakeSmallL4Variant({.label = "max-num-seqs=" + std::to_string(cap) + ",replicas=" + std::to_string(replicas),
                                      .max_num_seqs = cap, .rate = rate, .prompt_len = prompt_len, .replicas = replicas});
}

RequestRecord Done(double arrival_s, double finished_s) {
  RequestRecord r;
  r.arrival_ns = static_cast<int64_t>(arrival_s * 1e9);
  r.finished_ns = static_cast<int64_t>(finished_s * 1e9);
  return r;
}

TEST(LoadCheckTest, KeepingUpAndFallingBehind) {
  // 200 arrivals, one every 0.5 s over 100 s; each finishes 2 s later: every one served.
  LoadCheckObserver keeps_up;
  for (int i = 0; i < 200; ++i) keeps_up.OnRequestDone(Done(0.5 * i, 0.5 * i + 2));
  const LoadCheck a = keeps_up.Result();
  EXPECT_TRUE(a.applicable);
  EXPECT_TRUE(a.served);
  EXPECT_NEAR(a.served_ratio, 1.0, 0.03);
  // A server finishing one request per second behind two arrivals per second: by time t it has
  // finished t requests, so over the second half [50, 100] s it finishes 50 of the 100 offered.
  LoadCheckObserver behind;
  for (int i = 0; i < 200; ++i) behind.OnRequestDone(Done(0.5 * i, 1.0 * (i + 1)));
  const LoadCheck b = behind.Result();
  EXPECT_FALSE(b.served);
  EXPECT_NEAR(b.served_ratio, 0.5, 0.03);
  EXPECT_NE(LoadCheckViolation(b).find("offered load not served"), std::string::npos);
}

TEST(HonestSearchTest, TpotOnlySloWithAnOverloadedQueueIsNotAnAnswer) {
  // One request at a time on an L4 takes >= 50 decode steps of > 10 ms (> 0.5 s), so at 8 req/s
  // it serves under 2 of the 8 offered per second: TPOT is small, the queue grows without bound.
  const SweepCriteria c = ParseCriteria("throughput", "tpot-p99=100ms", -1);
  Variant v = Case(1, 8);
  const PointOutcome p = EvaluateOne(v, c, nullptr);
  ASSERT_TRUE(p.summary);
  EXPECT_LT(p.summary->latency_s.tpot.p99, 0.1);  // the TPOT SLO alone would pass
  EXPECT_FALSE(p.feasible);
  EXPECT_LT(p.summary->load_check.served_ratio, 0.25);
  EXPECT_TRUE(p.summary->load_check.queue_growing);
  EXPECT_NE(p.binding.find("offered load not served"), std::string::npos) << p.binding;
}

TEST(HonestSearchTest, EveryPromptOverMaxModelLenIsNamedAsSuch) {
  const SweepCriteria c = ParseCriteria("throughput", "ttft-p99=2s", -1);
  const SearchResult r = FindLargestBatchCap([](int64_t cap) { return Case(cap, 2, "fixed:5000"); }, c, 8);
  EXPECT_FALSE(r.found);
  const std::string why = ExplainNoFeasibleProbe(r, c);
  EXPECT_NE(why.find("prompt-length limit: 400 of 400 requests rejected (prompt >= max-model-len 4096)"), std::string::npos)
      << why;
  EXPECT_EQ(why.find("overloaded"), std::string::npos) << why;
}

TEST(HonestSearchTest, NoFeasibleProbeNamesTheNearestByTheLargestViolatedRatio) {
  // 1 ms TPOT is out of reach; smaller caps have smaller TPOT but lower throughput, so the nearest
  // probe is not the fastest one (the old rule's "closest").
  const SweepCriteria c = ParseCriteria("throughput", "tpot-p99=1ms", -1);
  const SearchResult r = FindLargestBatchCap([](int64_t cap) { return Case(cap, 2); }, c, 16);
  ASSERT_FALSE(r.found);
  const PointOutcome* nearest = nullptr;
  const PointOutcome* fastest = nullptr;
  double nearest_ratio = 1e300;
  for (const auto& [value, p] : r.probes) {
    const ReplaySummary& s = *p.summary;
    double ratio = s.latency_s.tpot.p99 / 0.001;
    if (!s.load_check.served)
      ratio = std::max({ratio, 1 / s.load_check.served_ratio, s.load_check.backlog_fraction / 0.01});
    if (ratio < nearest_ratio) nearest_ratio = ratio, nearest = &p;
    if (!fastest || s.throughput.requests_per_s > fastest->summary->throughput.requests_per_s) fastest = &p;
  }
  ASSERT_NE(nearest, fastest);
  const std::string why = ExplainNoFeasibleProbe(r, c);
  EXPECT_EQ(why.rfind("nearest: " + nearest->label + " (", 0), 0u) << why;
  EXPECT_NE(why.find("binds: "), std::string::npos);
}

TEST(HonestSearchTest, TailQuantilesAndGoodputFractionAsSlos) {
  const SweepCriteria c = ParseCriteria("throughput", "ttft-p99.9=5s,goodput-min=0.9", -1);
  ASSERT_EQ(c.slos.size(), 2u);
  EXPECT_EQ(c.slos[0].quantile, SloQuantile::kP999);
  EXPECT_EQ(c.slos[1].metric, SloMetric::kGoodput);
  EXPECT_THROW(ParseCriteria("throughput", "goodput-p99=0.9", -1), Error);
  EXPECT_THROW(ParseCriteria("throughput", "ttft-min=1s", -1), Error);
  EXPECT_THROW(ParseCriteria("throughput", "goodput-min=2", -1), Error);
  // Nearest rank over 1..1000: p99.9 is the 999th value.
  LatencyStats l;
  for (int i = 1; i <= 1000; ++i) l.Add(i);
  EXPECT_DOUBLE_EQ(l.Summary().p999, 999.0);
  // The overloaded case: goodput fraction against its own TTFT limit.
  const SweepCriteria g = ParseCriteria("throughput", "ttft-p99=1000s,goodput-min=0.99", -1);
  Variant v = Case(1, 8);
  const PointOutcome p = EvaluateOne(v, g, nullptr);
  ASSERT_TRUE(p.summary);
  const double fraction = p.summary->goodput.fraction;
  EXPECT_EQ(fraction < 0.99, Join(p.violations, ";").find("goodput fraction") != std::string::npos);
}

TEST(HonestSearchTest, SmallestReplicasMatchesEveryN) {
  // 4 req/s on max-num-seqs 8 L4 replicas: one replica finishes about 1 req/s; find the smallest N.
  const SweepCriteria c = ParseCriteria("throughput", "ttft-p99=3s", -1);
  auto make = [](int64_t n) { return Case(8, 4, "uniform:200:800", n); };
  int64_t exhaustive = -1;
  for (int64_t n = 1; n <= 8 && exhaustive < 0; ++n) {
    Variant v = make(n);
    if (EvaluateOne(v, c, nullptr).feasible) exhaustive = n;
  }
  ASSERT_GT(exhaustive, 1);
  const SearchResult r = FindSmallestReplicas(make, c, 8);
  ASSERT_TRUE(r.found);
  EXPECT_EQ(r.value, static_cast<double>(exhaustive));
  ASSERT_TRUE(r.has_next);
  EXPECT_EQ(r.next_value, static_cast<double>(exhaustive - 1));
  EXPECT_FALSE(r.at_next.feasible);
}

}  // namespace
}  // namespace kvsim
