// Sweeps and comparisons: the batch-cap search against an exhaustive grid, thread-independent
// results, and the int4-vs-fp16 comparison the issue asks for.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "kvcache/base/error.h"
#include "kvcache/model/model_catalog.h"
#include "sim/sweep/sweep.h"
#include "tests/sim/small_l4_case.h"
#include "sim/sweep/sweep_grid.h"
#include "sim/sweep/sweep_search.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

// A small case: 400 synthetic requests (8 per second) on an L4 whose TPOT grows with the batch.
Variant SmallCase(int64_t cap, double rate) {
  return testing::MakeSmallL4Variant({.label = "max-num-seqs=" + std::to_string(cap), .max_num_seqs = cap, .rate = rate});
}

Variant WithCap(int64_t cap) { return SmallCase(cap, 8); }

// The same case at 2 requests/s: large caps keep up, small ones queue.
Variant WithCapAtLowLoad(int64_t cap) { return SmallCase(cap, 2); }

// Every cap in [1, upper] replayed: the smallest and largest that meet the criteria (-1: none).
std::pair<int64_t, int64_t> FeasibleRangeByExhaustiveGrid(Variant (*make)(int64_t), const SweepCriteria& c,
                                                         int64_t upper) {
  std::vector<Variant> all;
  for (int64_t cap = 1; cap <= upper; ++cap) all.push_back(make(cap));
  const auto grid = EvaluatePoints(all, c, 2);
  int64_t smallest = -1, largest = -1;
  for (int64_t cap = 1; cap <= upper; ++cap)
    if (grid[static_cast<size_t>(cap - 1)].feasible) {
      if (smallest < 0) smallest = cap;
      largest = cap;
    }
  return {smallest, largest};
}

// At 1.6 req/s: small caps do not serve the offered load (the served-load check fails them), large
// ones break the TPOT SLO; the range between is what both searches must find.
Variant WithCapAtModerateLoad(int64_t cap) { return SmallCase(cap, 1.6); }

TEST(SweepTest, BatchCapSearchMatchesAnExhaustiveGrid) {
  const SweepCriteria c = ParseCriteria("throughput", "tpot-p99=84ms", -1);
  const int64_t upper = 64;
  const auto [smallest, largest] = FeasibleRangeByExhaustiveGrid(WithCapAtModerateLoad, c, upper);
  ASSERT_GT(largest, 1) << "the small case should have a feasible cap";
  ASSERT_LT(largest, upper) << "the small case should have an infeasible cap";
  ASSERT_GT(smallest, 1) << "small caps should not serve the load";
  const SearchResult found = FindLargestBatchCap(WithCapAtModerateLoad, c, upper);
  ASSERT_TRUE(found.found);
  EXPECT_EQ(static_cast<int64_t>(found.value), largest);
  EXPECT_TRUE(found.has_next);
  EXPECT_FALSE(found.at_next.feasible);
  EXPECT_LT(found.probes.size(), 24u);  // far fewer replays than the grid's 64
  EXPECT_EQ(static_cast<int64_t>(found.smallest_value), smallest);
  std::printf("largest cap meeting tpot-p99<=100ms: %lld (%zu probes, grid of %lld)\n", static_cast<long long>(largest),
              found.probes.size(), static_cast<long long>(upper));
}

// A TTFT-only SLO fails small caps (requests queue) and is met by every larger one: the search
// must find the lower edge of that range exactly, as an exhaustive grid does.
TEST(SweepTest, BatchCapSearchFindsTheSmallestCapMeetingATtftSlo) {
  const SweepCriteria c = ParseCriteria("throughput", "ttft-p99=1s", -1);
  const int64_t upper = 40;
  const auto [smallest, largest] = FeasibleRangeByExhaustiveGrid(WithCapAtLowLoad, c, upper);
  ASSERT_GT(smallest, 1) << "small caps should queue past 1 s";
  const SearchResult found = FindLargestBatchCap(WithCapAtLowLoad, c, upper);
  ASSERT_TRUE(found.found);
  EXPECT_EQ(static_cast<int64_t>(found.smallest_value), smallest);
  EXPECT_EQ(static_cast<int64_t>(found.value), largest);
  std::printf("caps meeting ttft-p99<=1s: %lld..%lld (%zu probes)\n", static_cast<long long>(smallest),
              static_cast<long long>(largest), found.probes.size());
}

TEST(SweepTest, ResultsDoNotDependOnTheThreadCount) {
  const SweepCriteria c = ParseCriteria("goodput", "ttft-p99=5s", 0.5);
  std::vector<Variant> points;
  for (int64_t cap : {4, 8, 16, 32}) points.push_back(WithCap(cap));
  const auto one = EvaluatePoints(points, c, 1), two = EvaluatePoints(points, c, 2);
  ASSERT_EQ(one.size(), two.size());
  for (size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i].label, two[i].label);
    ASSERT_TRUE(one[i].summary && two[i].summary);
    EXPECT_EQ(one[i].summary->requests.finished, two[i].summary->requests.finished);
    EXPECT_EQ(one[i].summary->latency_s.ttft.p99, two[i].summary->latency_s.ttft.p99);
    EXPECT_EQ(one[i].summary->latency_s.tpot.p99, two[i].summary->latency_s.tpot.p99);
    EXPECT_EQ(one[i].summary->sim.steps, two[i].summary->sim.steps);
    EXPECT_EQ(one[i].objective, two[i].objective);
  }
}

TEST(SweepTest, CriteriaParseAndReject) {
  const SweepCriteria c = ParseCriteria("throughput", "ttft-p99=2s,tpot-p50=100ms", 0.1);
  ASSERT_EQ(c.slos.size(), 2u);
  EXPECT_DOUBLE_EQ(c.slos[1].limit_s, 0.1);
  EXPECT_THROW(ParseCriteria("latency", "", -1), Error);
  EXPECT_THROW(ParseCriteria("throughput", "ttft-p95=2s", -1), Error);
  EXPECT_THROW(ParseCriteria("throughput", "ttft=2s", -1), Error);
  EXPECT_THROW(ParseCriteria("goodput", "", -1), Error);
  // "0x10s" was read as 16 seconds (std::stod's hexadecimal).
  EXPECT_THROW(ParseCriteria("throughput", "ttft-p99=0x10s", -1), Error);
}

// Acceptance: Llama-3.1-8B fp16 vs AWQ int4 on an L4 with the Azure conversation trace: the int4
// deployment has more KV blocks and at least as much peak concurrency.
TEST(SweepTest, CompareInt4AgainstFp16OnAnL4) {
  const testing::TempDir dir;
  const std::string path = dir.File("compare.json");
  const auto r2 = testing::RunCli({"compare", "--gpu", "l4", "--max-model-len", "8192", "--a", "--quantization none",
                                   "--b", "--quantization awq", "--json", path});
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  std::ifstream in(path);
  const auto j = nlohmann::json::parse(in);
  const auto& fp16 = j[0]["summary"];
  const auto& int4 = j[1]["summary"];
  EXPECT_GT(int4["kv"]["num_blocks"].get<int64_t>(), fp16["kv"]["num_blocks"].get<int64_t>());
  EXPECT_GE(int4["concurrency"]["peak_running"].get<int64_t>(), fp16["concurrency"]["peak_running"].get<int64_t>());
  EXPECT_LT(int4["memory_gib"]["weights"].get<double>(), fp16["memory_gib"]["weights"].get<double>());
  EXPECT_NE(r2.out.find("b - a"), std::string::npos);
}

// Grid file keys and values a user gets wrong are refused naming the file and key: an empty name and
// "--max-num-seqs" were passed on as a stray argument and "----max-num-seqs", and true/false for a switch
// as a stray argument, none saying which file.
TEST(SweepTest, GridFileNamesWrongKeysAndSwitchValues) {
  testing::TempDir dir;
  struct Case { const char* json; const char* expect; };
  for (const Case& c : {Case{R"({"": [1]})", "an option with an empty name"},
                        Case{R"({"--max-num-seqs": [8]})", "'--max-num-seqs': name the option without its dashes"},
                        Case{R"({"enable-prefix-caching": [true, false]})",
                             "enable-prefix-caching: true is not a value of --enable-prefix-caching"}}) {
    const std::string path = dir.Write("grid.json", c.json);
    try {
      ReadGridFile(path);
      ADD_FAILURE() << "accepted " << c.json;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(path + ": " + c.expect), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(ReadGridFile(dir.Write("ok.json", R"({"max-num-seqs": [8, 16]})")).at(0).values.size(), 2u);
}

}  // namespace
}  // namespace kvsim
