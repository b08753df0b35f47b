// kvsim plan's search: the pruned search against --exhaustive (on made-up monotone spaces and on 30
// seeded random spaces of real replays), the replica search's probes, and the Pareto front by hand.
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <thread>
#include <tuple>

#include "kvcache/budget/deployment.h"
#include "kvcache/model/model_catalog.h"
#include "sim/plan/pareto.h"
#include "sim/plan/plan_run.h"
#include "sim/plan/plan_space.h"
#include "sim/disagg/kv_link.h"
#include "sim/run/request_sources.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

PointOutcome Judged(bool feasible, double distance = 0.5) {
  PointOutcome p;
  p.feasible = feasible;
  p.distance = feasible ? distance : 1.5;
  if (!feasible) p.violations.push_back("made up");
  return p;
}

TEST(PlanReplicaSearchTest, ProbesTheMostReplicasFirstThenBisects) {
  // Meets the SLOs from 5 replicas on: pruned probes 16 (meets), 8, 4 (misses), 6, 5.
  std::vector<int64_t> probed;
  const PlanPointEvaluator eval = [&](size_t, int64_t n) {
    probed.push_back(n);
    return Judged(n >= 5);
  };
  const ConfigPlan p = SearchReplicas(0, 16, false, eval);
  EXPECT_TRUE(p.found);
  EXPECT_EQ(p.replicas, 5);
  EXPECT_EQ(probed, (std::vector<int64_t>{16, 8, 4, 6, 5}));
  EXPECT_EQ(p.replays, 5);
  // Missing at the bound: one replay, not found, the miss kept as the nearest.
  probed.clear();
  const ConfigPlan q = SearchReplicas(0, 4, false, eval);
  EXPECT_FALSE(q.found);
  EXPECT_EQ(q.replays, 1);
  EXPECT_EQ(q.nearest_replicas, 4);
  // Exhaustive: every count.
  probed.clear();
  const ConfigPlan e = SearchReplicas(0, 8, true, eval);
  EXPECT_EQ(e.replicas, 5);
  EXPECT_EQ(e.replays, 8);
}

// A made-up space: configuration i meets the SLOs from threshold[i] replicas on (0: never).
PlanResult MadeUp(const std::vector<int64_t>& threshold, const std::vector<PlanConfig>& configs, const PlanSettings& s) {
  PlanSpace space;
  space.configs = configs;
  const PlanPointEvaluator eval = [&](size_t i, int64_t n) {
    PointOutcome p = Judged(threshold[i] > 0 && n >= threshold[i]);
    p.summary = ReplaySummary{};
    return p;
  };
  return SearchPlan(space, s, eval);
}

TEST(PlanSearchTest, PrunedEqualsExhaustiveOnMadeUpMonotoneSpaces) {
  std::mt19937_64 rng(42);
  const char* gpus[] = {"l4", "l40s", "h100"};
  for (int round = 0; round < 200; ++round) {
    std::vector<PlanConfig> configs;
    std::vector<int64_t> threshold;
    const int n = 1 + static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) {
      PlanConfig c;
      c.gpu = gpus[rng() % 3];
      c.tensor_parallel = 1 << (rng() % 3);
      c.max_num_seqs = 64;
      if (rng() % 3 == 0) c.pd = {1 + static_cast<int64_t>(rng() % 2), 1 + static_cast<int64_t>(rng() % 3)};  // a P/D unit
      configs.push_back(c);
      threshold.push_back(static_cast<int64_t>(rng() % 10));
    }
    PlanSettings s;
    s.objective = static_cast<PlanObjective>(rng() % 2);  // cost or GPUs: the bounded objectives
    s.gpu_hourly_usd = {{"l4", 0.8}, {"l40s", 1.9}, {"h100", 2.5}};
    s.max_replicas = 1 + static_cast<int64_t>(rng() % 8);
    s.jobs = 1 + static_cast<int>(rng() % 3);
    s.window_lag = rng() % 4;  // any set of finished plans bounds exactly
    const PlanResult pruned = MadeUp(threshold, configs, s);
    s.exhaustive = true;
    const PlanResult all = MadeUp(threshold, configs, s);
    ASSERT_EQ(pruned.winner, all.winner) << "round " << round;
    if (all.winner >= 0) {
      EXPECT_EQ(pruned.plans[pruned.winner].replicas, all.plans[all.winner].replicas);
    }
    EXPECT_LE(pruned.replays, all.replays);
    EXPECT_EQ(all.replays, all.points);
  }
}

TEST(PlanSearchTest, CostBoundSkipsConfigurationsThatCannotWin) {
  // Two l4 configurations that meet the SLOs at 2 replicas (1.6 USD/h) and an h100 one whose single
  // replica costs 2.5 USD/h: the h100 is never replayed.
  std::vector<PlanConfig> configs(3);
  configs[0].gpu = configs[1].gpu = "l4";
  configs[2].gpu = "h100";
  PlanSettings s;
  s.gpu_hourly_usd = {{"l4", 0.8}, {"h100", 2.5}};
  s.max_replicas = 8;
  s.window_lag = 0;  // each search bounded by every one before it
  const PlanResult r = MadeUp({2, 2, 1}, configs, s);
  EXPECT_EQ(r.winner, 0);
  EXPECT_EQ(r.plans[2].replays, 0);
  EXPECT_NE(r.plans[2].not_searched.find("2.50 USD/h > the best plan's 1.60"), std::string::npos) << r.plans[2].not_searched;
  // The second l4 configuration searched only up to 2 replicas (it could tie, never beat).
  EXPECT_EQ(r.plans[1].upper, 2);
}

// Searches that finish in a random order on 1 to 4 threads: each configuration's bound comes from the
// plans at least window_lag + 1 positions before it, so every plan (its replays, its bound, what was
// not searched) is the same as on one thread, not only the winner.
TEST(PlanSearchTest, EveryPlanIsTheSameWhateverTheThreadsAndTheOrderSearchesFinishIn) {
  std::mt19937_64 rng(7);
  const char* gpus[] = {"l4", "l40s", "h100"};
  for (int round = 0; round < 20; ++round) {
    std::vector<PlanConfig> configs;
    std::vector<int64_t> threshold;
    for (int i = 0; i < 24; ++i) {
      PlanConfig c;
      c.gpu = gpus[rng() % 3];
      c.tensor_parallel = 1 << (rng() % 3);
      configs.push_back(c);
      threshold.push_back(static_cast<int64_t>(rng() % 7));
    }
    PlanSettings s;
    s.objective = static_cast<PlanObjective>(rng() % 2);
    s.gpu_hourly_usd = {{"l4", 0.8}, {"l40s", 1.9}, {"h100", 2.5}};
    s.max_replicas = 6;
    s.window_lag = 2;
    PlanSpace space;
    space.configs = configs;
    std::vector<PlanResult> results;
    for (int jobs = 1; jobs <= 4; ++jobs) {
      s.jobs = jobs;
      const uint64_t seed = rng();
      const PlanPointEvaluator eval = [&](size_t i, int64_t n) {
        // A delay from the point alone (the threads call this at once): finishing orders vary with the jobs.
        std::this_thread::sleep_for(std::chrono::microseconds((seed ^ (i * 7919 + static_cast<size_t>(n))) % 300));
        PointOutcome p = Judged(threshold[i] > 0 && n >= threshold[i]);
        p.summary = ReplaySummary{};
        return p;
      };
      results.push_back(SearchPlan(space, s, eval));
    }
    for (size_t j = 1; j < results.size(); ++j) {
      ASSERT_EQ(results[j].winner, results[0].winner) << "round " << round << ", " << j + 1 << " threads";
      EXPECT_EQ(results[j].replays, results[0].replays);
      for (size_t i = 0; i < configs.size(); ++i) {
        const ConfigPlan &a = results[0].plans[i], &b = results[j].plans[i];
        EXPECT_EQ(std::tuple(a.found, a.replicas, a.replays, a.upper, a.not_searched),
                  std::tuple(b.found, b.replicas, b.replays, b.upper, b.not_searched))
            << "round " << round << ", configuration " << i << ", " << j + 1 << " threads";
      }
    }
  }
}

TEST(ParetoTest, KeepsThePlansNoOtherBeatsOnEveryFigure) {
  auto plan = [](double usd, int64_t gpus, double ttft, double tpot) {
    ConfigPlan p;
    p.found = true;
    p.usd_per_hour = usd;
    p.gpus = gpus;
    ReplaySummary s;
    s.latency_s.ttft.p99 = ttft;
    s.latency_s.tpot.p99 = tpot;
    p.outcome.summary = s;
    return p;
  };
  // 1 is dominated by 0 (dearer, more GPUs, slower); 2 is dearer but faster; 3 duplicates 0.
  const std::vector<ConfigPlan> plans = {plan(2, 2, 0.5, 0.05), plan(3, 3, 0.6, 0.06), plan(4, 4, 0.2, 0.02),
                                         plan(2, 2, 0.5, 0.05)};
  EXPECT_EQ(ParetoFront(plans, FrontQuantiles{}), (std::vector<size_t>{0, 2}));
}

// A space of real replays (a short synthetic trace of `requests` at `rate`, max-model-len 4096) searched
// pruned and then --exhaustive under the same settings. P/D configurations run both pools on the
// prefill pool's settings over NVLink.
struct PrunedAndExhaustive {
  PlanSpace space;
  PlanResult pruned;
  PlanResult all;
};
PrunedAndExhaustive SearchReplayedSpace(const PlanAxes& axes, PlanSettings s, double rate, int64_t requests, uint64_t seed) {
  std::vector<Variant> variants;
  PrunedAndExhaustive r;
  r.space = ExpandPlanSpace(
      axes,
      [&](const PlanConfig& c) {
        Variant v;
        v.label = c.Label();
        DeploymentOptions d;
        d.gpu = c.gpu;
        d.tensor_parallel_size = c.tensor_parallel;
        if (c.format != kCheckpointFormat) d.quantization = c.format;
        d.max_model_len = "4096";
        d.max_num_seqs = std::to_string(c.max_num_seqs);
        d.max_num_batched_tokens = std::to_string(c.max_num_batched_tokens);
        v.deployment = ResolveDeployment(d, DataDirectory());
        if (c.Disaggregated()) {
          DisaggDeployment pools;
          pools.prefill = pools.decode = v.deployment;
          pools.link = ParseKvLink("nvlink");
          v.disagg = pools;
        }
        v.replay.synthetic = requests;
        v.replay.rate = rate;
        v.replay.prompt_len = "uniform:200:800";
        v.replay.output_len = "uniform:50:200";
        v.replay.seed = seed;
        ValidateReplayOptions(v.replay, DataDirectory());
        return v;
      },
      &variants);
  if (variants.empty()) return r;
  const std::shared_ptr<const PreloadedTrace> preloaded = PreloadTrace(variants.front().replay);
  const PlanPointEvaluator eval = [&](size_t i, int64_t n) {
    Variant v = variants[i];
    ScaleVariant(r.space.configs[i], n, v);
    return EvaluateOne(v, s.criteria, preloaded);
  };
  r.pruned = SearchPlan(r.space, s, eval);
  s.exhaustive = true;
  r.all = SearchPlan(r.space, s, eval);
  return r;
}

// 30 seeded random spaces of real replays: a short synthetic trace on one or two of three small GPU
// types, TP 1/2, the checkpoint's weights or fp8, two batch caps; the pruned search and --exhaustive
// give the same winner at the same replica count.
TEST(PlanSearchTest, PrunedEqualsExhaustiveOnThirtyRandomReplayedSpaces) {
  std::mt19937_64 rng(20261128);
  const std::vector<std::string> gpus = {"l4", "a10g", "l40s"};
  const std::vector<int64_t> caps = {8, 16, 32, 64, 128};
  int differing_replays = 0;
  for (int round = 0; round < 30; ++round) {
    PlanAxes axes;
    axes.gpus = {gpus[rng() % 3]};
    if (rng() % 2) {
      const std::string other = gpus[rng() % 3];
      if (other != axes.gpus[0]) axes.gpus.push_back(other);
    }
    axes.tensor_parallel = rng() % 2 ? std::vector<int>{1, 2} : std::vector<int>{1};
    axes.formats = rng() % 2 ? std::vector<std::string>{kCheckpointFormat, "fp8"} : std::vector<std::string>{kCheckpointFormat};
    axes.max_num_seqs = {caps[rng() % caps.size()], caps[rng() % caps.size()]};
    if (axes.max_num_seqs[0] == axes.max_num_seqs[1]) axes.max_num_seqs.pop_back();
    axes.max_num_batched_tokens = {2048};
    const double rate = 2 + static_cast<double>(rng() % 20);
    const std::vector<std::string> slos = {"tpot-p99=60ms", "tpot-p99=100ms,ttft-p99=2s", "ttft-p99=1s", "tpot-p99=40ms"};
    PlanSettings s;
    s.criteria = ParseCriteria("throughput", slos[rng() % slos.size()], -1);
    s.objective = static_cast<PlanObjective>(rng() % 2);
    s.gpu_hourly_usd = {{"l4", 0.8}, {"a10g", 1.0}, {"l40s", 1.9}};
    s.max_replicas = 3;
    s.jobs = 1;
    const PrunedAndExhaustive r = SearchReplayedSpace(axes, s, rate, 150, 7 + static_cast<uint64_t>(round));
    ASSERT_FALSE(r.space.configs.empty()) << "round " << round;
    const PlanResult& pruned = r.pruned;
    const PlanResult& all = r.all;
    ASSERT_EQ(pruned.winner, all.winner) << "round " << round;
    if (all.winner >= 0) {
      EXPECT_EQ(pruned.plans[pruned.winner].replicas, all.plans[all.winner].replicas) << "round " << round;
    }
    EXPECT_EQ(all.replays, all.points);
    EXPECT_LE(pruned.replays, all.replays);
    differing_replays += pruned.replays < all.replays;
  }
  EXPECT_GT(differing_replays, 15);  // the bounds do prune
}

// A P/D unit of P prefill and D decode instances is priced and bounded as P + D instances: its GPUs
// and price at k units are k x (P + D) x TP (x the GPU's price), computed here by hand.
TEST(PlanSearchTest, PdUnitsCountEveryInstance) {
  std::vector<PlanConfig> configs(2);
  configs[0].gpu = configs[1].gpu = "l4";
  configs[1].tensor_parallel = 2;
  configs[1].pd = {1, 2};
  EXPECT_EQ(configs[1].GpusPerReplica(), 6);
  EXPECT_EQ(configs[1].Label(), "l4 tp2 checkpoint seqs=0 tokens=0 P/D 1:2");
  PlanSettings s;
  s.gpu_hourly_usd = {{"l4", 0.8}};
  s.max_replicas = 4;
  s.window_lag = 0;
  // The aggregated configuration meets the SLOs from 4 replicas (3.2 USD/h), the P/D one from 1 unit
  // (6 GPUs, 4.8 USD/h): the aggregated wins, and the P/D search is bounded to 0 units (4.8 > 3.2).
  const PlanResult r = MadeUp({4, 1}, configs, s);
  EXPECT_EQ(r.winner, 0);
  EXPECT_NEAR(r.plans[0].usd_per_hour, 3.2, 1e-12);
  EXPECT_EQ(r.plans[1].replays, 0);
  EXPECT_NE(r.plans[1].not_searched.find("4.80 USD/h > the best plan's 3.20"), std::string::npos) << r.plans[1].not_searched;
  s.exhaustive = true;
  const PlanResult all = MadeUp({4, 1}, configs, s);
  EXPECT_EQ(all.winner, 0);
  EXPECT_EQ(all.plans[1].gpus, 6);
  EXPECT_NEAR(all.plans[1].usd_per_hour, 4.8, 1e-12);
  Variant v;
  v.disagg = DisaggDeployment{};
  ScaleVariant(configs[1], 3, v);
  EXPECT_EQ(v.disagg->prefill_replicas, 3);
  EXPECT_EQ(v.disagg->decode_replicas, 6);
}

// Seeded random spaces of real replays with P/D configurations (P:D units of l4 or a10g instances at
// TP 1, the decode pool with the prefill pool's settings, over NVLink): the pruned search and
// --exhaustive give the same winner at the same unit count.
TEST(PlanSearchTest, PrunedEqualsExhaustiveOnRandomReplayedPdSpaces) {
  std::mt19937_64 rng(20261129);
  const std::vector<std::string> gpus = {"l4", "a10g"};
  int pd_found = 0;
  for (int round = 0; round < 6; ++round) {
    PlanAxes axes;
    axes.gpus = {gpus[rng() % gpus.size()]};
    axes.tensor_parallel = {1};
    axes.max_num_seqs = {rng() % 2 ? 32 : 128};
    axes.max_num_batched_tokens = {2048};
    axes.pd_ratios = {{1, 1}, {1, 2}, {2, 1}};
    const double rate = 4 + static_cast<double>(rng() % 12);
    const std::vector<std::string> slos = {"tpot-p99=60ms", "tpot-p99=100ms,ttft-p99=2s", "ttft-p99=1s"};
    PlanSettings s;
    s.criteria = ParseCriteria("throughput", slos[rng() % slos.size()], -1);
    s.objective = static_cast<PlanObjective>(rng() % 2);
    s.gpu_hourly_usd = {{"l4", 0.8}, {"a10g", 1.0}};
    s.max_replicas = 3;
    s.jobs = 1;
    const PrunedAndExhaustive r = SearchReplayedSpace(axes, s, rate, 120, 11 + static_cast<uint64_t>(round));
    ASSERT_EQ(r.space.configs.size(), 4u) << "round " << round;
    const PlanResult& pruned = r.pruned;
    const PlanResult& all = r.all;
    ASSERT_EQ(pruned.winner, all.winner) << "round " << round;
    if (all.winner >= 0) {
      EXPECT_EQ(pruned.plans[pruned.winner].replicas, all.plans[all.winner].replicas) << "round " << round;
    }
    for (size_t i = 1; i < r.space.configs.size(); ++i) pd_found += all.plans[i].found;
    EXPECT_EQ(all.replays, all.points);
    EXPECT_LE(pruned.replays, all.replays);
  }
  EXPECT_GT(pd_found, 0);  // the P/D configurations are replayed and do meet SLOs
}

}  // namespace
}  // namespace kvsim
