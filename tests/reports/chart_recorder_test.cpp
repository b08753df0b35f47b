// The report's chart recorder: bucket maxima by hand, and a quiet run taken whole (OnStepRun)
// charts exactly the points its steps give one at a time (OnStep), as does the sampled time series.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

#include "reports/chart_recorder.h"
#include "reports/csv_outputs.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

// The run's steps one at a time, as the engine's default expansion hands them out.
void FeedStepByStep(ReplayObserver& o, const StepRun& run) {
  int64_t start = run.first.start_ns;
  for (int64_t j = 0; j < run.steps; start += run.durations[j++]) o.OnStep(run.Step(j, start));
}

void ExpectSamePoints(const std::vector<ChartPoint>& a, const std::vector<ChartPoint>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(a[i].t_s, b[i].t_s);
    for (int c = 0; c < kNumWasteCategories; ++c) EXPECT_EQ(a[i].fractions[c], b[i].fractions[c]) << "category " << c;
    EXPECT_EQ(a[i].used_fraction, b[i].used_fraction);
    EXPECT_EQ(a[i].running_max, b[i].running_max);
    EXPECT_EQ(a[i].waiting_max, b[i].waiting_max);
    EXPECT_EQ(a[i].preemptions, b[i].preemptions);
    EXPECT_EQ(a[i].offload_tiers, b[i].offload_tiers);
    for (int t = 0; t < StepSample::kMaxOffloadTiers; ++t) EXPECT_EQ(a[i].offload_used_max[t], b[i].offload_used_max[t]);
  }
}

// Each bucket keeps the largest share of every tier seen in its steps: 0.2, 0.5 and 0.3 in one
// 100 ms bucket chart as 0.5; a later bucket starts afresh.
TEST(ChartRecorderTest, TierOccupancyKeepsTheBucketMaximum) {
  ChartRecorder rec;
  auto step = [&](int64_t start_ns, double host, double disk) {
    StepSample s;
    s.start_ns = start_ns;
    s.kv.capacity_slots = 16;
    s.kv.free_slots = 16;
    s.offload_tiers = 2;
    s.offload_used_fraction[0] = host;
    s.offload_used_fraction[1] = disk;
    rec.OnStep(s);
  };
  step(0, 0.2, 0.1);
  step(40000000, 0.5, 0.05);
  step(80000000, 0.3, 0.2);
  step(150000000, 0.1, 0.0);
  ASSERT_EQ(rec.chart().size(), 2u);
  EXPECT_DOUBLE_EQ(rec.chart()[0].offload_used_max[0], 0.5);
  EXPECT_DOUBLE_EQ(rec.chart()[0].offload_used_max[1], 0.2);
  EXPECT_DOUBLE_EQ(rec.chart()[1].offload_used_max[0], 0.1);
}

// A run of 6 steps of 40 ms from t = 50 ms on a pool of 1,000 slots: 100 token slots, 50 reserved,
// 10 internal, 840 free at the first step; 4 decoders (4 slots a step from reserved to token
// states); 16-slot blocks crossed into, 0,0,1,1,1,2 more than at the first step.
// Steps start at 50, 90 | 130, 170 | 210, 250 ms: three 100 ms buckets (0.0, 0.1, 0.2 s).
//   bucket 0.0: used (100+50+10)/1000 = 0.16 at both steps; the first keeps it: token 0.100,
//               reserved 0.050, free 0.840.
//   bucket 0.1: steps 2, 3 hold one block more: used 176/1000; step 2 first: token 100+2·4 = 108,
//               reserved 50−8+16 = 58, free 840−16 = 824.
//   bucket 0.2: step 4 holds 1 block more (176), step 5 two (192) and wins: token 100+5·4 = 120,
//               reserved 50−20+32 = 62, free 840−32 = 808.
// Running 7, waiting 3, 2 preemptions and a host tier a quarter full throughout.
TEST(ChartRecorderTest, QuietRunTakenWholeChartsAsItsStepsByHand) {
  const int64_t durations[] = {40000000, 40000000, 40000000, 40000000, 40000000, 40000000};
  const int64_t added[] = {0, 0, 1, 1, 1, 2};
  StepRun run;
  run.first.start_ns = 50000000;
  run.first.duration_ns = durations[0];
  run.first.running = 7;
  run.first.waiting = 3;
  run.first.preemptions_total = 2;
  run.first.offload_tiers = 1;
  run.first.offload_used_fraction[0] = 0.25;
  run.first.kv.capacity_slots = 1000;
  run.first.kv.token_slots = 100;
  run.first.kv.reserved_slots = 50;
  run.first.kv.internal_fragmentation_slots = 10;
  run.first.kv.free_slots = 840;
  run.durations = durations;
  run.steps = 6;
  run.durations_nondecreasing = true;
  run.token_slots_per_step = 4;
  run.added_blocks = added;
  run.block_slots = 16;

  ChartRecorder whole, stepwise;
  whole.OnStepRun(run);
  FeedStepByStep(stepwise, run);
  ExpectSamePoints(whole.chart(), stepwise.chart());

  const auto& c = whole.chart();
  ASSERT_EQ(c.size(), 3u);
  auto share = [](const ChartPoint& p, WasteCategory w) { return p.fractions[static_cast<int>(w)]; };
  const double expected[3][5] = {{0.0, 0.160, 0.100, 0.050, 0.840},
                                 {0.1, 0.176, 0.108, 0.058, 0.824},
                                 {0.2, 0.192, 0.120, 0.062, 0.808}};
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    EXPECT_DOUBLE_EQ(c[static_cast<size_t>(i)].t_s, expected[i][0]);
    EXPECT_DOUBLE_EQ(c[static_cast<size_t>(i)].used_fraction, expected[i][1]);
    EXPECT_DOUBLE_EQ(share(c[static_cast<size_t>(i)], WasteCategory::kTokenStates), expected[i][2]);
    EXPECT_DOUBLE_EQ(share(c[static_cast<size_t>(i)], WasteCategory::kReserved), expected[i][3]);
    EXPECT_DOUBLE_EQ(share(c[static_cast<size_t>(i)], WasteCategory::kFree), expected[i][4]);
    EXPECT_DOUBLE_EQ(share(c[static_cast<size_t>(i)], WasteCategory::kInternalFragmentation), 0.010);
    EXPECT_EQ(c[static_cast<size_t>(i)].running_max, 7);
    EXPECT_EQ(c[static_cast<size_t>(i)].waiting_max, 3);
    EXPECT_EQ(c[static_cast<size_t>(i)].preemptions, 2);
    EXPECT_DOUBLE_EQ(c[static_cast<size_t>(i)].offload_used_max[0], 0.25);
  }
}

// Runs drawn at random between single steps, with and without crossings, long enough that the
// series halves its resolution inside a run (past 1,200 buckets), and now and then starting before
// the last point as a fleet's interleaved replicas do; times in whole ms, so steps often start on a
// bucket's edge. The points equal the step-by-step ones.
TEST(ChartRecorderTest, RandomRunsChartAsTheirSteps) {
  std::mt19937_64 rng(7);
  auto uniform = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  ChartRecorder whole, stepwise;
  std::vector<int64_t> durations, added;
  int64_t now = 0;
  for (int round = 0; round < 3000; ++round) {
    StepSample s;
    s.kv.capacity_slots = 4096;
    s.kv.token_slots = uniform(0, 1500);
    s.kv.reserved_slots = uniform(200, 1000);
    s.kv.internal_fragmentation_slots = uniform(0, 50);
    s.kv.cached_slots = uniform(0, 100);
    s.kv.free_slots = s.kv.capacity_slots - s.kv.token_slots - s.kv.reserved_slots - s.kv.internal_fragmentation_slots -
                      s.kv.cached_slots;
    s.running = uniform(1, 64);
    s.waiting = uniform(0, 20);
    s.preemptions_total = round / 100;
    s.offload_tiers = static_cast<int>(uniform(0, 2));
    for (int t = 0; t < s.offload_tiers; ++t) s.offload_used_fraction[t] = static_cast<double>(uniform(0, 1000)) / 1000;
    // One replica in eight lags: its step starts up to a second before the others' clock.
    s.start_ns = uniform(0, 7) == 0 ? std::max<int64_t>(0, now - uniform(0, 1000) * 1000000) : now;
    if (uniform(0, 2) == 0) {  // a single step
      s.duration_ns = uniform(1, 90) * 1000000;
      whole.OnStep(s);
      stepwise.OnStep(s);
      now = std::max(now, s.start_ns + s.duration_ns);
      continue;
    }
    const int64_t steps = uniform(0, 9) == 0 ? uniform(100, 2000) : uniform(1, 12);
    const bool crossings = uniform(0, 1) == 1;
    const int64_t tokens = s.running;
    durations.assign(static_cast<size_t>(steps), 0);
    added.assign(static_cast<size_t>(steps), 0);
    int64_t held = 0;
    for (int64_t j = 0; j < steps; ++j) {
      durations[static_cast<size_t>(j)] = (j == 0 ? 5000000 : durations[static_cast<size_t>(j - 1)]) + uniform(0, 3) * 1000000;
      if (crossings && j > 0 && uniform(0, 3) == 0 && (held + 1) * 16 <= s.kv.free_slots) ++held;
      added[static_cast<size_t>(j)] = held;
    }
    StepRun run;
    run.first = s;
    run.first.duration_ns = durations[0];
    run.durations = durations.data();
    run.steps = steps;
    run.durations_nondecreasing = true;
    // Decoding moves slots from reserved to token states; keep every step's reserved count >= 0.
    run.token_slots_per_step = std::min<int64_t>(tokens, s.kv.reserved_slots / steps);
    run.added_blocks = crossings ? added.data() : nullptr;
    run.block_slots = crossings ? 16 : 0;
    whole.OnStepRun(run);
    FeedStepByStep(stepwise, run);
    for (int64_t d : durations) s.start_ns += d;
    now = std::max(now, s.start_ns);
  }
  ASSERT_GT(whole.chart().size(), 500u);
  ExpectSamePoints(whole.chart(), stepwise.chart());
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A run of 40 steps of 30 ms from t = 0 sampled every 100 ms writes the rows of steps 0, 4, 7, 10,
// ... (the first step at or after each multiple: 0, 120, 210, 300 ms, ...), as step-by-step does;
// every-step output writes all 40.
TEST(TimeSeriesCsvTest, SampledRunWritesTheRowsOfItsSteps) {
  const testing::TempDir dir;
  std::vector<int64_t> durations(40, 30000000);
  StepRun run;
  run.first.kv.capacity_slots = 100;
  run.first.kv.reserved_slots = 60;
  run.first.kv.free_slots = 40;
  run.first.running = 3;
  run.durations = durations.data();
  run.steps = 40;
  run.durations_nondecreasing = true;
  run.token_slots_per_step = 1;
  for (double interval : {0.1, 0.0}) {
    SCOPED_TRACE(interval);
    TimeSeriesCsv whole(dir.File("whole.csv"), interval), stepwise(dir.File("stepwise.csv"), interval);
    whole.OnStepRun(run);
    FeedStepByStep(stepwise, run);
    whole.Commit();
    stepwise.Commit();
    const std::string a = ReadFile(dir.File("whole.csv")), b = ReadFile(dir.File("stepwise.csv"));
    EXPECT_EQ(a, b);
    // Header, then a row per sample: 0 .. 1.17 s sampled every 100 ms gives 12 rows (0.00, 0.12,
    // 0.21, 0.30, 0.42, 0.51, 0.60, 0.72, 0.81, 0.90, 1.02, 1.11).
    const auto rows = std::count(a.begin(), a.end(), '\n') - 1;
    EXPECT_EQ(rows, interval > 0 ? 12 : 40);
    if (interval > 0) {
      EXPECT_NE(a.find("\n0.120000,3,"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace kvsim
