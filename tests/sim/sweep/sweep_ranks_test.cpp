// What makes an MPI sweep's answers equal a threaded run's, checked without MPI: the binary
// encoding of a judged point and of a trace is exact (decoded, it renders the same JSON, bit for
// bit), and a search run in rounds of several probes reports the serial search's probes and
// answer while needing ceil(n/2) rounds for n serial probes at three probes per round.
#include <gtest/gtest.h>

#include "kvcache/model/model_catalog.h"
#include "reports/sweep_report.h"
#include "sim/sweep/mpi_farm.h"
#include "sim/sweep/point_wire.h"
#include "sim/sweep/sweep.h"
#include "tests/sim/small_l4_case.h"
#include "sim/sweep/sweep_search.h"

namespace kvsim {
namespace {

// 400 synthetic requests on an L4 (as in sweep_test.cpp): a replay takes milliseconds.
Variant SmallCase(int64_t cap, double rate_scale) {
  return testing::MakeSmallL4Variant({.label = "max-num-seqs=" + std::to_string(cap) + ",rate-scale=" + std::to_string(rate_scale),
                                      .max_num_seqs = cap, .rate_scale = rate_scale});
}

TEST(PointWireTest, AJudgedReplayDecodesToTheSameJsonBitForBit) {
  const SweepCriteria c = ParseCriteria("goodput", "ttft-p99=5s,tpot-p99=50ms", 0.5);
  for (int64_t cap : {4, 64}) {
    Variant v = SmallCase(cap, 1.0);
    const PointOutcome p = EvaluateOne(v, c, PreloadTrace(v.replay));
    ASSERT_TRUE(p.summary.has_value());
    const std::string bytes = EncodePointOutcome(p);
    const PointOutcome back = DecodePointOutcome(bytes);
    EXPECT_EQ(PointToJson(back).dump(), PointToJson(p).dump());
    EXPECT_EQ(EncodePointOutcome(back), bytes);
    // Doubles travel as bit patterns, not as printed text.
    EXPECT_EQ(back.summary->latency_s.tpot.p99, p.summary->latency_s.tpot.p99);
    EXPECT_EQ(back.summary->config.settings.kv_cache_memory_gib, p.summary->config.settings.kv_cache_memory_gib);
  }
}

TEST(PointWireTest, AFailedPointKeepsItsErrorAndViolations) {
  PointOutcome p;
  p.label = "gpu=t4";
  p.error = "the model does not fit: weights 14.96 GiB > 14.58 GiB";
  p.violations = {p.error, "no request finished"};
  const PointOutcome back = DecodePointOutcome(EncodePointOutcome(p));
  EXPECT_FALSE(back.summary.has_value());
  EXPECT_EQ(back.label, p.label);
  EXPECT_EQ(back.error, p.error);
  EXPECT_EQ(back.violations, p.violations);
  EXPECT_THROW(DecodePointOutcome(EncodePointOutcome(p) + "x"), InternalError);
  EXPECT_THROW(DecodePointOutcome(EncodePointOutcome(p).substr(0, 9)), InternalError);
}

TEST(PointWireTest, APreloadedTraceTravelsWhole) {
  PreloadedTrace t;
  t.description = "mooncake.jsonl";
  t.skipped_rows = 3;
  t.requests.push_back({0, 0, 1200, 80, {11, 12, 13}, 512, 2});
  t.requests.push_back({1, 250'000'000, 7, 1, {}, 0, 3});
  const PreloadedTrace back = DecodePreloadedTrace(EncodePreloadedTrace(t));
  EXPECT_EQ(back.description, t.description);
  EXPECT_EQ(back.skipped_rows, 3);
  ASSERT_EQ(back.requests.size(), 2u);
  EXPECT_EQ(back.requests[0].block_ids, (std::vector<uint64_t>{11, 12, 13}));
  EXPECT_EQ(back.requests[0].block_id_tokens, 512);
  EXPECT_EQ(back.requests[1].arrival_ns, 250'000'000);
  EXPECT_EQ(back.requests[1].source_line, 3);
}

// Rounds evaluated here, one replay per value, as the ranks would.
ProbeRounds LocalRounds(int width, const std::function<Variant(double)>& make, const SweepCriteria& c) {
  ProbeRounds rounds;
  rounds.width = width;
  rounds.run = [make, c](const std::vector<double>& values) {
    std::vector<PointOutcome> out;
    for (double value : values) {
      Variant v = make(value);
      out.push_back(EvaluateOne(v, c, PreloadTrace(v.replay)));
    }
    return out;
  };
  return rounds;
}

void ExpectSameSearch(const SearchResult& serial, const SearchResult& ranked) {
  EXPECT_EQ(ranked.found, serial.found);
  EXPECT_EQ(ranked.value, serial.value);  // exact: same doubles
  EXPECT_EQ(ranked.smallest_value, serial.smallest_value);
  EXPECT_EQ(ranked.next_value, serial.next_value);
  EXPECT_EQ(SearchToJson("x", ranked).dump(), SearchToJson("x", serial).dump());
}

TEST(SearchInRoundsTest, RateScaleSearchReportsTheSerialProbesInHalfTheRounds) {
  const SweepCriteria c = ParseCriteria("throughput", "ttft-p99=2s", -1);
  const auto make = [](double s) { return SmallCase(64, s); };
  const SearchResult serial = FindHighestRateScale(make, c, 0.01);
  ASSERT_TRUE(serial.found);
  ASSERT_GE(serial.probes.size(), 6u) << "the case should need a real bisection";
  ProbeRounds three = LocalRounds(3, make, c);
  ExpectSameSearch(serial, FindHighestRateScale(make, c, 0.01, nullptr, &three));
  // Three probes per round settle two levels of the serial decision tree: n probes, ceil(n/2) rounds.
  EXPECT_EQ(three.rounds, static_cast<int>((serial.probes.size() + 1) / 2));
  ProbeRounds one = LocalRounds(1, make, c);
  ExpectSameSearch(serial, FindHighestRateScale(make, c, 0.01, nullptr, &one));
  EXPECT_EQ(one.rounds, static_cast<int>(serial.probes.size()));
  EXPECT_EQ(one.probes, static_cast<int64_t>(serial.probes.size()));  // nothing speculative at width 1
}

TEST(SearchInRoundsTest, BatchCapSearchIsTheSameAtAnyWidth) {
  const SweepCriteria c = ParseCriteria("throughput", "tpot-p99=84ms", -1);
  // 1.6 req/s: a load the L4 serves (the served-load check fails every cap at 8 req/s).
  const auto make_cap = [](int64_t cap) { return SmallCase(cap, 0.2); };
  const auto make = [&](double v) { return make_cap(static_cast<int64_t>(v)); };
  const SearchResult serial = FindLargestBatchCap(make_cap, c, 48);
  ASSERT_TRUE(serial.found);
  for (int width : {2, 3, 7}) {
    ProbeRounds rounds = LocalRounds(width, make, c);
    ExpectSameSearch(serial, FindLargestBatchCap(make_cap, c, 48, nullptr, &rounds));
    EXPECT_LT(rounds.rounds, static_cast<int>(serial.probes.size())) << "width " << width;
  }
}

}  // namespace
}  // namespace kvsim
