// The time to first token term by term (RequestLatencies, ReplaySummary::TtftComponents) on cases
// derived by hand. The engine runs over a small paged pool (blocks of 4 tokens) and FixedStepTimer
// (every step 1 ms): step k runs from (k-1) ms to k ms. With async scheduling (vLLM v1's batch queue
// of two, vllm/v1/engine/core.py step_with_batch_queue) the scheduler pass for step k+1 runs when
// step k starts, so a request that arrives during step k is first scheduled in step k+2; an idle
// engine schedules an arrival at once.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "kvcache/paged_allocator.h"
#include "sim/engine/replay_engine.h"
#include "sim/fleet/event_loop.h"
#include "sim/fleet/router.h"
#include "sim/stats/replay_stats.h"
#include "sim/timing/step_timer.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

constexpr double kMsS = 1e-3;

TraceRequest Req(uint64_t id, double arrival_ms, int64_t prompt, int64_t output, std::vector<uint64_t> block_ids = {}) {
  TraceRequest r;
  r.id = id;
  r.arrival_ns = static_cast<int64_t>(arrival_ms * 1e6);
  r.prompt_tokens = prompt;
  r.output_tokens = output;
  r.block_ids = std::move(block_ids);
  r.block_id_tokens = r.block_ids.empty() ? 0 : 4;
  return r;
}

using testing::VectorSource;

struct Recorder final : ReplayObserver {
  std::map<uint64_t, RequestRecord> done;
  void OnRequestDone(const RequestRecord& r) override { done[r.id] = r; }
};

// Replays `requests` on one engine (budget 100 tokens, 64 usable blocks); the statistics see the
// same records with an API server term of 2 ms and 1 µs of tokenization per prompt token.
struct Run {
  Recorder rec;
  ReplaySummary summary;
};

std::unique_ptr<Run> Simulate(const std::vector<TraceRequest>& requests, bool async, Stepping stepping,
                              bool prefix_caching = false) {
  static const FixedStepTimer timer(1'000'000);
  auto run = std::make_unique<Run>();
  PagedAllocatorOptions po;
  po.num_blocks = 65;  // block 0 is vLLM's null block
  po.block_size = 4;
  po.enable_prefix_caching = prefix_caching;
  PagedAllocator allocator(po);
  EngineOptions eo;
  eo.max_num_batched_tokens = 100;
  eo.max_model_len = 1024;
  eo.block_size = 4;
  eo.prefix_caching = prefix_caching;
  eo.stepping = stepping;
  eo.async_scheduling = async;
  ReplayStatsOptions so;
  so.num_blocks = 65, so.usable_blocks = 64, so.block_size = 4;
  so.client_ttft_s = 2 * kMsS;
  so.tokenize_s_per_token = 1e-6;
  so.exact_quantiles = true;
  ReplayStatistics stats(so);
  ReplayEngine engine(eo, allocator, timer, {&run->rec, &stats});
  VectorSource source(requests);
  std::unique_ptr<Router> router = MakeRouter(RouterKind::kRoundRobin, 1);
  RunEventLoop({LoopReplica{&engine, 64, 4}}, *router, source, {});
  stats.FillSummary(run->summary);
  return run;
}

// The engine's terms of one request, ms: step in flight, async scheduling, wait, prefill.
void ExpectTerms(const RequestRecord& r, double in_flight, double async, double wait, double prefill) {
  const RequestLatencies l = LatenciesOf(r);
  EXPECT_NEAR(l.step_in_flight_s, in_flight * kMsS, 1e-12) << "request " << r.id;
  EXPECT_NEAR(l.async_scheduling_s, async * kMsS, 1e-12) << "request " << r.id;
  EXPECT_NEAR(l.wait_s, wait * kMsS, 1e-12) << "request " << r.id;
  EXPECT_NEAR(l.prefill_s, prefill * kMsS, 1e-12) << "request " << r.id;
  EXPECT_NEAR(l.ttft_s, (in_flight + async + wait + prefill) * kMsS, 1e-12) << "request " << r.id;
}

// Idle server: B (P 8, 1 out) arrives at 2.5 ms with nothing running. The engine's clock jumps to the
// arrival and its first step (2.5-3.5 ms) schedules it: no step in flight, no async delay, no wait,
// prefill 1 ms. Client side: 2 ms API server + 8 tokens x 1 µs. ttft = 1 + 2 + 0.008 = 3.008 ms.
TEST(TtftPathTest, IdleServerSchedulesAnArrivalAtOnce) {
  for (Stepping stepping : {Stepping::kToken, Stepping::kEvent}) {
    const auto run = Simulate({Req(1, 2.5, 8, 1)}, true, stepping);
    ExpectTerms(run->rec.done.at(1), 0, 0, 0, 1);
    const auto& c = run->summary.latency_s.ttft_components;
    EXPECT_NEAR(c.api_server, 2e-3, 1e-9);
    EXPECT_NEAR(c.tokenization, 8e-6, 1e-9);
    EXPECT_NEAR(run->summary.latency_s.ttft.mean, 3.008e-3, 1e-6);
    EXPECT_NEAR(run->summary.latency_s.server_ttft.mean, 1e-3, 1e-6);
  }
}

// One request mid-step: A (P 4, 20 out) arrives at 0 and decodes one token per step (step k: k-1 to
// k ms). B (P 8, 1 out) arrives at 2.5 ms, during step 3 (2-3 ms).
//   async: the pass for step 4 ran at 2 ms, before B: B waits out step 3 (0.5 ms) and step 4 (1 ms,
//          the async term); step 5 (4-5 ms) prefills it: first token at 5 ms, server ttft 2.5 ms.
//   sync:  the pass for step 4 runs at 3 ms and takes B: first token at 4 ms, ttft 1.5 ms.
// Client side adds 2 ms + 8 µs: ttft 4.508 ms (async).
TEST(TtftPathTest, ArrivalMidStepWaitsForTheStepAndTheOneAlreadyScheduled) {
  for (Stepping stepping : {Stepping::kToken, Stepping::kEvent}) {
    const auto async = Simulate({Req(0, 0, 4, 20), Req(1, 2.5, 8, 1)}, true, stepping);
    ExpectTerms(async->rec.done.at(1), 0.5, 1, 0, 1);
    EXPECT_EQ(async->rec.done.at(1).first_token_ns, 5'000'000);
    EXPECT_EQ(async->rec.done.at(0).finished_ns, 20'000'000);  // A: one token a step, undisturbed
    const auto sync = Simulate({Req(0, 0, 4, 20), Req(1, 2.5, 8, 1)}, false, stepping);
    ExpectTerms(sync->rec.done.at(1), 0.5, 0, 0, 1);
    // Means over A (arrived at 0 on an idle engine: prefill 1 ms) and B.
    const auto& c = async->summary.latency_s.ttft_components;
    EXPECT_NEAR(c.step_in_flight, 0.25e-3, 1e-9);
    EXPECT_NEAR(c.async_scheduling, 0.5e-3, 1e-9);
    EXPECT_NEAR(c.prefill, 1e-3, 1e-9);
    EXPECT_NEAR(c.tokenization, 6e-6, 1e-9);  // (4 + 8) / 2 tokens x 1 µs
  }
}

// Eight together: A (P 4, 20 out) decodes; R1..R8 (P 20, 2 out each) arrive at 2.5 ms, in step 3.
// Async: none is schedulable before step 5 (4-5 ms). Step 5's budget of 100: A's decode token, then
// R1-R4 whole (80), R5 the 19 left (chunked). Step 6: A, R1-R4 decode (5), R5's last token, then
// R6-R8 whole (60): all first tokens at 6 ms.
//   R1-R4: in flight 0.5, async 1, wait 0, prefill 1 (first token 5 ms)
//   R5:    in flight 0.5, async 1, wait 0, prefill 2 (admitted 4 ms, first token 6 ms)
//   R6-R8: in flight 0.5, async 1, wait 1 (no budget in step 5), prefill 1
TEST(TtftPathTest, EightArrivingTogetherShareTheBudget) {
  std::vector<TraceRequest> reqs = {Req(0, 0, 4, 20)};
  for (uint64_t id = 1; id <= 8; ++id) reqs.push_back(Req(id, 2.5, 20, 2));
  for (Stepping stepping : {Stepping::kToken, Stepping::kEvent}) {
    const auto run = Simulate(reqs, true, stepping);
    for (uint64_t id = 1; id <= 4; ++id) ExpectTerms(run->rec.done.at(id), 0.5, 1, 0, 1);
    ExpectTerms(run->rec.done.at(5), 0.5, 1, 0, 2);
    for (uint64_t id = 6; id <= 8; ++id) ExpectTerms(run->rec.done.at(id), 0.5, 1, 1, 1);
  }
}

// Full prefix-cache hit: A (P 8, blocks {1, 2}, 1 out) at 0 fills two blocks and finishes at 1 ms.
// B, the same prompt, arrives at 5 ms on the idle engine. vLLM caps a hit at P - 1 tokens
// (vllm/v1/core/kv_cache_manager.py get_computed_blocks: the last token is recomputed to sample
// from), in whole blocks: 4 cached, 4 computed, in one step (5-6 ms): prefill 1 ms, no other term.
TEST(TtftPathTest, FullPrefixHitStillTakesOneStep) {
  for (Stepping stepping : {Stepping::kToken, Stepping::kEvent}) {
    const auto run = Simulate({Req(0, 0, 8, 1, {1, 2}), Req(1, 5, 8, 1, {1, 2})}, true, stepping, true);
    const RequestRecord& b = run->rec.done.at(1);
    EXPECT_EQ(b.cached_tokens, 4);
    ExpectTerms(b, 0, 0, 0, 1);
    EXPECT_EQ(b.first_token_ns, 6'000'000);
  }
}

}  // namespace
}  // namespace kvsim
