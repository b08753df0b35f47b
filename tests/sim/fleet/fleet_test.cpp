// Fleets: routers on hand-made loads, a fleet of one against the single engine, and a two-replica
// case whose latencies are derived by hand; the cost arithmetic.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <set>

#include "kvcache/model/model_catalog.h"
#include "reports/replay_report.h"
#include "sim/stats/cost.h"
#include "sim/run/replay_runner.h"
#include "sim/fleet/router.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

TraceRequest WithBlocks(std::vector<uint64_t> ids) {
  TraceRequest r;
  r.block_ids = std::move(ids);
  r.block_id_tokens = 512;
  return r;
}

TEST(RouterTest, RoundRobinCycles) {
  std::unique_ptr<Router> router = MakeRouter(RouterKind::kRoundRobin, 3);
  const std::vector<ReplicaLoad> loads(3);
  std::vector<int> picks;
  for (int i = 0; i < 7; ++i) picks.push_back(router->Pick(TraceRequest{}, loads));
  EXPECT_EQ(picks, (std::vector<int>{0, 1, 2, 0, 1, 2, 0}));
}

TEST(RouterTest, LeastRequestsAndLeastKvReadTheirOwnFigure) {
  const std::vector<ReplicaLoad> loads = {{5, 0.10}, {2, 0.60}, {2, 0.30}, {9, 0.05}};
  std::unique_ptr<Router> least_requests = MakeRouter(RouterKind::kLeastRequests, 4);
  EXPECT_EQ(least_requests->Pick(TraceRequest{}, loads), 1);  // 2 requests, first on ties
  std::unique_ptr<Router> least_kv = MakeRouter(RouterKind::kLeastKv, 4);
  EXPECT_EQ(least_kv->Pick(TraceRequest{}, loads), 3);  // 5% of the pool
}

// Replica 0 exact at 30% KV; 1, 2 and 3 show lower bounds of 10%, 20% and 40% whose exact figures are
// 35%, 25% and 41%. The exact minimum is replica 2 (25%). From the bounds: 1 (10% < 30%) is made exact
// and loses (35%); 2 (20% < 30%) is made exact and wins (25%); 3's bound (40%) is above the best, so
// it is never stepped.
TEST(RouterTest, LeastKvAsksForExactLoadsOnlyWhereABoundCouldWin) {
  std::unique_ptr<Router> least_kv = MakeRouter(RouterKind::kLeastKv, 4);
  const std::vector<double> exact = {0.30, 0.35, 0.25, 0.41};
  std::vector<ReplicaLoad> loads = {{3, 0.30, false}, {3, 0.10, true}, {3, 0.20, true}, {3, 0.40, true}};
  std::vector<size_t> asked;
  auto make_exact = [&](size_t i) {
    asked.push_back(i);
    loads[i] = {3, exact[i], false};
  };
  EXPECT_EQ(least_kv->PickFromBounds(TraceRequest{}, loads, make_exact), 2);
  EXPECT_EQ(asked, (std::vector<size_t>{1, 2}));
  // Ties go to the lower index: a bound equal to the best exact load of a higher replica still asks.
  loads = {{3, 0.20, true}, {3, 0.20, false}};
  asked.clear();
  auto unchanged = [&](size_t i) {
    asked.push_back(i);
    loads[i].kv_lower_bound = false;
  };
  EXPECT_EQ(least_kv->PickFromBounds(TraceRequest{}, loads, unchanged), 0);
  EXPECT_EQ(asked, (std::vector<size_t>{0}));
}

// Property: for every router, picking from lower bounds (made exact on request) gives the replica
// picking from the exact loads gives, on random loads with ties.
TEST(RouterTest, PickingFromBoundsEqualsPickingFromExactLoads) {
  std::mt19937_64 rng(7);
  for (RouterKind kind : {RouterKind::kRoundRobin, RouterKind::kLeastRequests, RouterKind::kLeastKv,
                          RouterKind::kPrefixAffinity, RouterKind::kSession}) {
    std::unique_ptr<Router> from_bounds = MakeRouter(kind, 6);
    std::unique_ptr<Router> from_exact = MakeRouter(kind, 6);
    for (int trial = 0; trial < 2000; ++trial) {
      std::vector<ReplicaLoad> exact(6), bounds(6);
      for (size_t i = 0; i < 6; ++i) {
        exact[i].requests = static_cast<int64_t>(rng() % 4);
        exact[i].kv_used_fraction = static_cast<double>(rng() % 5) / 8;  // ties are likely
        bounds[i] = exact[i];
        if (rng() % 2) {
          bounds[i].kv_lower_bound = true;
          bounds[i].kv_used_fraction -= static_cast<double>(rng() % 3) / 8;
        }
      }
      const TraceRequest r = WithBlocks({rng() % 5, rng() % 3});
      const int want = from_exact->Pick(r, exact);
      auto make_exact = [&](size_t i) { bounds[i] = exact[i]; };
      EXPECT_EQ(from_bounds->PickFromBounds(r, bounds, make_exact), want) << static_cast<int>(kind) << " trial " << trial;
    }
  }
}

TEST(RouterTest, PrefixAffinityKeepsSharedPrefixesTogetherUntilOverloaded) {
  std::unique_ptr<Router> router = MakeRouter(RouterKind::kPrefixAffinity, 8);
  std::vector<ReplicaLoad> loads(8, ReplicaLoad{3, 0.1});
  // Same first two blocks, different tails: one home.
  const int home = router->Pick(WithBlocks({0, 7, 100}), loads);
  EXPECT_EQ(router->Pick(WithBlocks({0, 7, 200, 201}), loads), home);
  // Different second blocks spread over the ring: 64 distinct prefixes reach more than one replica.
  std::set<int> homes;
  for (uint64_t b = 1; b <= 64; ++b) homes.insert(router->Pick(WithBlocks({0, 1000 + b}), loads));
  EXPECT_GT(homes.size(), 4u);
  // The home holds 20 requests while the mean is (20 + 7*3)/8 = 5.125: 20 > 1.25*5.125 + 4 = 10.4,
  // so the request goes to the least-loaded replica (index 0 unless the home is 0, then 1).
  loads[static_cast<size_t>(home)].requests = 20;
  loads[home == 0 ? 1 : 0].requests = 1;
  EXPECT_EQ(router->Pick(WithBlocks({0, 7, 300}), loads), home == 0 ? 1 : 0);
  // Requests without block ids go to the least-loaded replica.
  EXPECT_EQ(router->Pick(TraceRequest{}, loads), home == 0 ? 1 : 0);
}

TEST(RouterTest, SessionIsSticky) {
  std::unique_ptr<Router> router = MakeRouter(RouterKind::kSession, 4);
  std::vector<ReplicaLoad> loads = {{4, 0}, {0, 0}, {4, 0}, {4, 0}};
  TraceRequest a;
  a.session_id = 42;
  EXPECT_EQ(router->Pick(a, loads), 1);  // a new session goes to the least-loaded replica
  loads[1].requests = 50;
  EXPECT_EQ(router->Pick(a, loads), 1);  // and stays there
  TraceRequest b;
  b.session_id = 43;
  EXPECT_EQ(router->Pick(b, loads), 0);
}

// Two requests at t = 0 (prompt 100, output 10), a 10 ms fixed step, max_num_seqs 1. One engine:
// A's first token after one step (10 ms), its last after 10 (100 ms); B is admitted at 100 ms and
// ends at 200 ms (TTFT 110 ms). Two replicas: each serves one request, both as A.
struct HandCase {
  testing::TempDir dir;
  Deployment deployment;
  ReplayOptions replay;
  HandCase() {
    DeploymentOptions d;
    d.gpu = "l4";
    d.max_model_len = "4096";
    d.max_num_seqs = "1";
    deployment = ResolveDeployment(d, DataDirectory());
    replay.trace = dir.Write("two.csv", "arrived_at,num_prefill_tokens,num_decode_tokens\n0,100,10\n0,100,10\n");
    replay.timer.fixed_step_ms = 10;
    replay.omit_wall_time = true;
    ValidateReplayOptions(replay, DataDirectory());
  }
};

TEST(FleetTest, TwoReplicasServeTwoRequestsInParallel) {
  HandCase c;
  const ReplaySummary one = RunReplay(c.deployment, c.replay).summary;
  // The engine's part; the client's adds the API server's 2 ms and 100 prompt tokens x 2.2 µs.
  EXPECT_NEAR(one.latency_s.server_ttft.mean, (0.010 + 0.110) / 2, 1e-9);
  EXPECT_NEAR(one.latency_s.ttft.mean, (0.010 + 0.110) / 2 + 0.002 + 100 * 2.2e-6, 1e-9);
  EXPECT_NEAR(one.latency_s.e2e.mean, (0.100 + 0.200) / 2, 1e-9);
  c.replay.replicas = 2;
  const ReplaySummary two = RunReplay(c.deployment, c.replay).summary;
  EXPECT_NEAR(two.latency_s.server_ttft.mean, 0.010, 1e-9);
  EXPECT_NEAR(two.latency_s.e2e.mean, 0.100, 1e-9);
  EXPECT_NEAR(two.throughput.simulated_s, 0.100, 1e-9);
  ASSERT_TRUE(two.fleet);
  EXPECT_EQ(two.fleet->routed, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(two.fleet->per_replica[0].requests.finished, 1);
  EXPECT_EQ(two.fleet->per_replica[1].requests.finished, 1);
  EXPECT_EQ(two.sim.steps, 20);  // 10 steps on each replica
  // Each replica held one request during the first second (the maximum of its running + waiting).
  EXPECT_EQ(two.fleet->load_over_time, (std::vector<std::vector<int64_t>>{{1}, {1}}));
  EXPECT_DOUBLE_EQ(two.fleet->load_interval_s, 1.0);
}

// The fleet's loop with one replica must replay exactly what the single engine does.
void ExpectFleetOfOneMatches(const Deployment& d, ReplayOptions r) {
  r.omit_wall_time = true;
  nlohmann::json single = ReplaySummaryToJson(RunReplay(d, r).summary);
  r.fleet_report = true;
  const ReplaySummary fleet = RunReplay(d, r).summary;
  ASSERT_TRUE(fleet.fleet);
  nlohmann::json j = ReplaySummaryToJson(fleet);
  for (const char* key : {"fleet", "load_check"}) j.erase(key);
  EXPECT_EQ(single.dump(1), j.dump(1));
}

TEST(FleetTest, FleetOfOneEqualsTheSingleEngine) {
  DeploymentOptions o;
  o.gpu = "a100-40gb";
  o.max_model_len = "8192";
  const Deployment d = ResolveDeployment(o, DataDirectory());
  ReplayOptions azure;
  azure.window.max_requests = 2000;
  azure.window.rate_scale = 2;
  ValidateReplayOptions(azure, DataDirectory());
  ExpectFleetOfOneMatches(d, azure);
  ReplayOptions v0 = azure;
  v0.scheduler = SchedulerKind::kVllmV0;
  ExpectFleetOfOneMatches(d, v0);
  ReplayOptions mooncake;
  mooncake.trace = testing::SharedPath("traces/mooncake/conversation_trace.jsonl");
  mooncake.window.max_requests = 1000;
  ValidateReplayOptions(mooncake, DataDirectory());
  ExpectFleetOfOneMatches(d, mooncake);
}

// An L4 with 24 sequences at most: Azure conversation traffic queues and preempts on it.
Deployment SmallGpuThatQueues() {
  DeploymentOptions o;
  o.gpu = "l4";
  o.max_model_len = "8192";
  o.max_num_seqs = "24";
  return ResolveDeployment(o, DataDirectory());
}

// A router that reads loads lets a replica's quiet decode steps wait until it could win an arrival
// (ReplayEngine::quiet_until_ns). Token stepping has no quiet runs, so every replica is stepped to
// every arrival: both must route and replay alike, on a small GPU that queues and preempts.
TEST(FleetTest, LoadReadingRoutersGiveWhatSteppingEveryReplicaToEveryArrivalGives) {
  const Deployment d = SmallGpuThatQueues();
  for (RouterKind kind : {RouterKind::kLeastKv, RouterKind::kLeastRequests}) {
    ReplayOptions event;
    event.window.max_requests = 1500;
    event.replicas = 4;
    event.router = kind;
    event.omit_wall_time = true;
    ValidateReplayOptions(event, DataDirectory());
    ReplayOptions token = event;
    token.stepping = Stepping::kToken;
    nlohmann::json a = ReplaySummaryToJson(RunReplay(d, event).summary);
    nlohmann::json b = ReplaySummaryToJson(RunReplay(d, token).summary);
    // Not compared: the stepping's name and the engine's own work (events), which event stepping
    // saves, in the fleet's summary and each replica's.
    auto strip = [](nlohmann::json& j) {
      j.erase("config");
      j["sim"].erase("stepping");
      j["sim"].erase("events");
    };
    for (nlohmann::json* j : {&a, &b}) {
      strip(*j);
      for (nlohmann::json& replica : (*j)["fleet"]["per_replica"]) strip(replica);
    }
    EXPECT_EQ(a.dump(1), b.dump(1)) << static_cast<int>(kind);
  }
}

// Round-robin needs no replica state, so the fleet routes as it reads and lets each replica run
// ahead to its own next arrival. Replicas share nothing, so replica i must replay exactly what a
// single engine replays on every 4th request from the i-th: the per-replica summary (latencies,
// concurrency, KV, waste, preemptions) against four separate replays, on a small GPU that queues
// and preempts.
TEST(FleetTest, RoundRobinReplicasEqualSingleReplaysOfTheirShare) {
  const Deployment d = SmallGpuThatQueues();
  testing::TempDir dir;
  std::ifstream in(DataDirectory() + "/traces/AzureLLMInferenceTrace_conv.csv");
  std::string header, line;
  std::getline(in, header);
  std::string all = header + "\n", share[4];
  for (int i = 0; i < 4; ++i) share[i] = header + "\n";
  for (int row = 0; row < 1600 && std::getline(in, line); ++row) {
    all += line + "\n";
    share[row % 4] += line + "\n";
  }
  ReplayOptions fleet;
  fleet.trace = dir.Write("all.csv", all);
  fleet.replicas = 4;
  fleet.router = RouterKind::kRoundRobin;
  fleet.omit_wall_time = true;
  ValidateReplayOptions(fleet, DataDirectory());
  const ReplaySummary f = RunReplay(d, fleet).summary;
  ASSERT_TRUE(f.fleet);
  int64_t preemptions = 0;
  for (int i = 0; i < 4; ++i) {
    ReplayOptions one;
    one.trace = dir.Write("share" + std::to_string(i) + ".csv", share[i]);
    one.omit_wall_time = true;
    ValidateReplayOptions(one, DataDirectory());
    nlohmann::json single = ReplaySummaryToJson(RunReplay(d, one).summary);
    nlohmann::json replica = ReplaySummaryToJson(f.fleet->per_replica[static_cast<size_t>(i)]);
    // Not compared: the input's description (a replica's summary names no trace) and rates over the
    // simulated span, which starts at the trace's first request for the fleet and at the share's
    // first for the single replay.
    for (nlohmann::json* j : {&single, &replica}) {
      for (const char* key : {"config", "load_check", "throughput"}) j->erase(key);
      (*j)["goodput"].erase("requests_per_s");
    }
    EXPECT_EQ(single.dump(1), replica.dump(1)) << "replica " << i;
    preemptions += f.fleet->per_replica[static_cast<size_t>(i)].requests.preemptions;
  }
  EXPECT_EQ(f.fleet->routed, (std::vector<int64_t>{400, 400, 400, 400}));
  EXPECT_GT(preemptions, 0);  // the case exercises the pool running out
}

TEST(CostTest, HandComputedFigures) {
  ReplaySummary s;
  s.throughput.simulated_s = 3600;
  s.throughput.output_tokens_per_s = 1000;
  s.config.settings.tensor_parallel_size = 2;
  const CostSummary c = ComputeCost(s, 2.0, 3);
  EXPECT_EQ(c.gpus, 6);
  EXPECT_DOUBLE_EQ(c.gpu_hours, 6.0);
  EXPECT_DOUBLE_EQ(c.usd, 12.0);
  EXPECT_NEAR(c.usd_per_million_output_tokens, 12.0 / 3.6, 1e-6);  // 3.6 M tokens
  EXPECT_NEAR(c.output_tokens_per_s_per_gpu, 1000.0 / 6, 1e-6);
}

}  // namespace
}  // namespace kvsim
