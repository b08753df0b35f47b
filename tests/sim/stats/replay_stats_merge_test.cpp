// A fleet's whole-run statistics add each replica's steps after the run (AddStepsOf) instead of
// observing them interleaved: the two must give the same step figures.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "sim/stats/replay_stats.h"

namespace kvsim {
namespace {

ReplayStatsOptions Options() {
  ReplayStatsOptions o;
  o.num_blocks = 100;
  o.usable_blocks = 99;
  return o;
}

StepSample Sample(int64_t start_ns, int64_t duration_ns, int64_t running, int64_t waiting, int64_t token_slots,
                  int64_t free_slots, int64_t preemptions_total) {
  StepSample s;
  s.start_ns = start_ns;
  s.duration_ns = duration_ns;
  s.later_tokens = running;
  s.running = running;
  s.waiting = waiting;
  s.used_blocks = token_slots / 16;
  s.kv.capacity_slots = token_slots + free_slots;
  s.kv.token_slots = token_slots;
  s.kv.free_slots = free_slots;
  s.preemptions_total = preemptions_total;
  return s;
}

// Two replicas, one step each, both starting at 0: A runs 2 requests for 10 ms with 20 of 100 slots
// holding tokens, B 4 requests for 30 ms with 60 of 100 (one waiting).
// Time-weighted running: (2·10 + 4·30) / 40 = 3.5. Token share: (20·10 + 60·30) / (100·40) = 0.5.
// Saturated (a request waits): B's 30 ms of 40; its token share 60/100. Inter-token latency: 2 tokens
// waited 10 ms and 4 waited 30 ms, mean 140 / 6 ms. Preemptions: A's 1 and B's 2.
TEST(ReplayStatsMergeTest, TwoReplicasByHand) {
  ReplayStatistics a(Options()), b(Options()), fleet(Options());
  a.OnStep(Sample(0, 10'000'000, 2, 0, 20, 80, 1));
  b.OnStep(Sample(0, 30'000'000, 4, 1, 60, 40, 2));
  fleet.AddStepsOf(a);
  fleet.AddStepsOf(b);
  ReplaySummary s;
  fleet.FillSummary(s);
  EXPECT_EQ(s.concurrency.peak_running, 4);
  EXPECT_DOUBLE_EQ(s.concurrency.mean_running, 3.5);
  EXPECT_EQ(s.concurrency.peak_waiting, 1);
  EXPECT_DOUBLE_EQ(s.waste[static_cast<size_t>(WasteCategory::kTokenStates)], 0.5);
  EXPECT_DOUBLE_EQ(s.waste[static_cast<size_t>(WasteCategory::kFree)], 0.5);
  EXPECT_DOUBLE_EQ(s.waste_saturated[static_cast<size_t>(WasteCategory::kTokenStates)], 0.6);
  EXPECT_DOUBLE_EQ(s.saturated_time_fraction, 0.75);
  EXPECT_EQ(s.latency_s.itl.count, 6);
  EXPECT_NEAR(s.latency_s.itl.mean, 0.140 / 6, 1e-6);
  EXPECT_EQ(s.requests.preemptions, 3);
  EXPECT_EQ(s.kv.peak_used_blocks, 60 / 16);
}

// Property: random steps and quiet runs of three replicas, observed interleaved by one statistics
// object, give the step figures of the replicas' own statistics added after the run.
TEST(ReplayStatsMergeTest, AddedStepsEqualInterleavedSteps) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(seed);
    std::mt19937_64 rng(seed);
    auto uniform = [&rng](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    std::vector<ReplayStatistics> replicas;
    for (int i = 0; i < 3; ++i) replicas.emplace_back(Options());
    ReplayStatistics interleaved(Options()), added(Options());
    std::vector<int64_t> clock(3, 0), preemptions(3, 0);
    std::vector<int64_t> durations(64), added_blocks(64);
    for (int event = 0; event < 300; ++event) {
      const size_t r = static_cast<size_t>(uniform(0, 2));
      preemptions[r] += uniform(0, 1);
      const int64_t tokens = uniform(0, 1000), running = uniform(0, 40);
      StepSample s = Sample(clock[r], uniform(1'000, 90'000'000), running, uniform(0, 3), tokens, 1600 - tokens,
                            preemptions[r]);
      if (uniform(0, 1) == 0) {
        replicas[r].OnStep(s);
        interleaved.OnStep(s);
        clock[r] += s.duration_ns;
        continue;
      }
      // A quiet run of decode steps whose blocks grow by held crossings.
      StepRun run;
      run.first = s;
      run.steps = uniform(1, 64);
      run.token_slots_per_step = running;
      run.block_slots = 16;
      int64_t step = uniform(1'000'000, 20'000'000), blocks = 0;
      for (int64_t j = 0; j < run.steps; ++j) {
        step += uniform(0, 50'000);
        durations[static_cast<size_t>(j)] = step;
        added_blocks[static_cast<size_t>(j)] = blocks;
        run.duration_sum += step;
        run.step_duration_sum += static_cast<Int128>(j) * step;
        run.added_duration_sum += static_cast<Int128>(blocks) * step;
        blocks += uniform(0, 1);
      }
      run.durations = durations.data();
      run.added_blocks = added_blocks.data();
      run.durations_nondecreasing = true;
      run.first.duration_ns = durations[0];
      replicas[r].OnStepRun(run);
      interleaved.OnStepRun(run);
      clock[r] += run.duration_sum;
    }
    for (const ReplayStatistics& r : replicas) added.AddStepsOf(r);
    ReplaySummary want, got;
    interleaved.FillSummary(want);
    added.FillSummary(got);
    EXPECT_EQ(got.concurrency.peak_running, want.concurrency.peak_running);
    EXPECT_EQ(got.concurrency.mean_running, want.concurrency.mean_running);
    EXPECT_EQ(got.concurrency.peak_waiting, want.concurrency.peak_waiting);
    EXPECT_EQ(got.kv.peak_used_blocks, want.kv.peak_used_blocks);
    EXPECT_EQ(got.waste, want.waste);
    EXPECT_EQ(got.waste_saturated, want.waste_saturated);
    EXPECT_EQ(got.saturated_time_fraction, want.saturated_time_fraction);
    EXPECT_EQ(got.throughput.simulated_s, want.throughput.simulated_s);
    const LatencySummary& g = got.latency_s.itl;
    const LatencySummary& w = want.latency_s.itl;
    EXPECT_EQ(g.count, w.count);
    EXPECT_EQ(g.mean, w.mean);
    EXPECT_EQ(g.p50, w.p50);
    EXPECT_EQ(g.p90, w.p90);
    EXPECT_EQ(g.p99, w.p99);
    // The interleaved object keeps whichever replica's count it saw last; the added one sums them.
    EXPECT_EQ(got.requests.preemptions, preemptions[0] + preemptions[1] + preemptions[2]);
  }
}

}  // namespace
}  // namespace kvsim
