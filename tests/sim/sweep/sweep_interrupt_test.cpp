// Stopping sweeps and comparisons (the engine side of Ctrl-C): a stop raised during one variant
// leaves the variants before it whole, cuts that one short (marked partial) and starts no other;
// grids and searches report what finished plus the unfinished points.
#include <gtest/gtest.h>

#include <atomic>

#include "kvcache/model/model_catalog.h"
#include "sim/sweep/sweep.h"
#include "tests/sim/small_l4_case.h"
#include "sim/sweep/sweep_search.h"

namespace kvsim {
namespace {

Variant Small(const std::string& label, int64_t cap) {
  return testing::MakeSmallL4Variant(
      {.label = label, .max_num_seqs = cap, .requests = 300, .rate = 5, .prompt_len = "", .output_len = ""});
}

// Raises the stop flag at its `at`-th step, as a signal handler would.
class StopAtStep final : public ReplayObserver {
 public:
  StopAtStep(std::atomic<bool>& stop, int64_t at) : stop_(stop), at_(at) {}
  void OnStep(const StepSample&) override {
    if (++steps_ == at_) stop_.store(true);
  }

 private:
  std::atomic<bool>& stop_;
  int64_t at_, steps_ = 0;
};

TEST(SweepInterruptTest, AStopDuringOneVariantKeepsTheEarlierOnesWhole) {
  std::vector<Variant> variants = {Small("a", 16), Small("b", 32), Small("c", 64)};
  std::atomic<bool> stop{false};
  StopAtStep trigger(stop, 50);
  const auto runs = RunVariants(variants, 1, [&](size_t i) {
    return i == 1 ? std::vector<ReplayObserver*>{&trigger} : std::vector<ReplayObserver*>{};
  }, &stop);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_FALSE(runs[0].interrupted);
  ASSERT_TRUE(runs[0].result);
  EXPECT_FALSE(runs[0].result->summary.partial);
  EXPECT_EQ(runs[0].result->summary.requests.finished + runs[0].result->summary.requests.rejected, 300);
  EXPECT_TRUE(runs[1].interrupted);
  ASSERT_TRUE(runs[1].result);
  EXPECT_TRUE(runs[1].result->summary.partial);
  EXPECT_EQ(runs[1].result->summary.sim.steps, 50);  // stopped at the step that raised the flag
  EXPECT_TRUE(runs[2].interrupted);
  EXPECT_FALSE(runs[2].result);  // never started
}

TEST(SweepInterruptTest, GridAndSearchReportUnfinishedPoints) {
  std::atomic<bool> stop{true};
  const SweepCriteria c = ParseCriteria("throughput", "", -1);
  const GridOutcome grid = EvaluateGrid({Small("a", 16), Small("b", 32)}, c, 2, &stop);
  EXPECT_TRUE(grid.partial);
  EXPECT_TRUE(grid.points.empty());
  ASSERT_EQ(grid.unfinished.size(), 2u);
  EXPECT_EQ(grid.unfinished[0].label, "a");
  const GridOutcome whole = EvaluateGrid({Small("a", 16)}, c, 1, nullptr);
  EXPECT_FALSE(whole.partial);
  EXPECT_EQ(whole.points.size(), 1u);
  const SearchResult search = FindLargestBatchCap([](int64_t cap) { return Small("cap", cap); }, c, 8, &stop);
  EXPECT_TRUE(search.partial);
  EXPECT_FALSE(search.found);
  EXPECT_TRUE(search.probes.empty());
  EXPECT_EQ(search.unfinished.size(), 1u);
}

}  // namespace
}  // namespace kvsim
