// The scheduler's decisions on small cases derived by hand: the engine is built directly over a
// small paged pool and FixedStepTimer (every step 1 ms), so each expected time is a step count.
// Notation in the derivations: step k runs from (k-1) ms to k ms; P prompt tokens, c tokens
// computed (in the KV cache), g output tokens sampled; a block holds 4 tokens. A request that
// completes its pending tokens in a step samples one token at the step's end; it finishes when
// g reaches its output length. Every case runs under event stepping and token stepping, which
// must agree exactly.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "kvcache/paged_allocator.h"
#include "sim/engine/replay_engine.h"
#include "sim/fleet/event_loop.h"
#include "sim/fleet/router.h"
#include "sim/timing/step_timer.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

constexpr int64_t kMs = 1'000'000;

TraceRequest Req(uint64_t id, double arrival_ms, int64_t prompt, int64_t output, std::vector<uint64_t> block_ids = {}) {
  TraceRequest r;
  r.id = id;
  r.arrival_ns = static_cast<int64_t>(arrival_ms * 1e6);
  r.prompt_tokens = prompt;
  r.output_tokens = output;
  r.block_ids = std::move(block_ids);
  r.block_id_tokens = r.block_ids.empty() ? 0 : 4;  // one trace block per pool block
  return r;
}

using testing::VectorSource;

struct Recorder final : ReplayObserver {
  std::vector<StepSample> steps;  // quiet runs expanded step by step (the default OnStepRun)
  std::map<uint64_t, RequestRecord> done;
  std::vector<std::pair<int64_t, int64_t>> relookups;  // (queried, hit) tokens at re-admission
  void OnStep(const StepSample& s) override { steps.push_back(s); }
  void OnRequestDone(const RequestRecord& r) override { done[r.id] = r; }
  void OnPrefixRelookup(int64_t queried, int64_t hit) override { relookups.emplace_back(queried, hit); }
};

struct EngineSetup {
  int64_t usable_blocks = 64;
  int64_t budget = 100;  // max_num_batched_tokens
  int64_t max_num_seqs = 256;
  int64_t max_model_len = 1024;
  bool prefix_caching = false;
  SchedulerKind scheduler = SchedulerKind::kVllmV1;
};

// One replica with its own pool and recorder.
struct Replica {
  Replica(const EngineSetup& s, Stepping stepping, const StepTimer& timer) : usable_blocks(s.usable_blocks) {
    PagedAllocatorOptions po;
    po.num_blocks = s.usable_blocks + 1;  // block 0 is vLLM's null block
    po.block_size = 4;
    po.enable_prefix_caching = s.prefix_caching;
    allocator = std::make_unique<PagedAllocator>(po);
    EngineOptions eo;
    eo.max_num_seqs = s.max_num_seqs;
    eo.max_num_batched_tokens = s.budget;
    eo.max_model_len = s.max_model_len;
    eo.block_size = 4;
    eo.prefix_caching = s.prefix_caching;
    eo.stepping = stepping;
    eo.scheduler = s.scheduler;
    engine = std::make_unique<ReplayEngine>(eo, *allocator, timer, std::vector<ReplayObserver*>{&recorder});
  }
  int64_t usable_blocks;
  std::unique_ptr<PagedAllocator> allocator;
  Recorder recorder;
  std::unique_ptr<ReplayEngine> engine;
  LoopReplica Loop() const { return {engine.get(), usable_blocks, 4}; }
};

// Replays `requests` on `replicas` engines behind `router`; returns the replicas and the routing.
struct SimRun {
  std::vector<std::unique_ptr<Replica>> replicas;
  LoopResult result;
  const Recorder& rec(size_t i = 0) const { return replicas[i]->recorder; }
};

SimRun Simulate(const EngineSetup& s, Stepping stepping, const std::vector<TraceRequest>& requests, int n = 1,
             RouterKind router_kind = RouterKind::kRoundRobin) {
  static const FixedStepTimer timer(kMs);
  SimRun run;
  std::vector<LoopReplica> loop;
  for (int i = 0; i < n; ++i) {
    run.replicas.push_back(std::make_unique<Replica>(s, stepping, timer));
    loop.push_back(run.replicas.back()->Loop());
  }
  VectorSource source(requests);
  std::unique_ptr<Router> router = MakeRouter(router_kind, n);
  run.result = RunEventLoop(loop, *router, source, {});
  return run;
}

// Runs both steppings, checks they agree on every record and step, and returns the token-stepped run.
SimRun SimulateBoth(const EngineSetup& s, const std::vector<TraceRequest>& requests) {
  SimRun token = Simulate(s, Stepping::kToken, requests);
  const SimRun event = Simulate(s, Stepping::kEvent, requests);
  const Recorder& a = token.rec();
  const Recorder& b = event.rec();
  EXPECT_EQ(a.steps.size(), b.steps.size());
  for (size_t i = 0; i < std::min(a.steps.size(), b.steps.size()); ++i) {
    EXPECT_EQ(a.steps[i].start_ns, b.steps[i].start_ns) << "step " << i + 1;
    EXPECT_EQ(a.steps[i].running, b.steps[i].running) << "step " << i + 1;
    EXPECT_EQ(a.steps[i].waiting, b.steps[i].waiting) << "step " << i + 1;
    EXPECT_EQ(a.steps[i].used_blocks, b.steps[i].used_blocks) << "step " << i + 1;
  }
  EXPECT_EQ(a.done.size(), b.done.size());
  for (const auto& [id, r] : a.done) {
    const RequestRecord& e = b.done.at(id);
    EXPECT_EQ(r.admitted_ns, e.admitted_ns) << id;
    EXPECT_EQ(r.first_token_ns, e.first_token_ns) << id;
    EXPECT_EQ(r.finished_ns, e.finished_ns) << id;
    EXPECT_EQ(r.preemptions, e.preemptions) << id;
  }
  return token;
}

void ExpectTimes(const RequestRecord& r, int64_t admitted_ms, int64_t first_ms, int64_t finished_ms) {
  EXPECT_EQ(r.admitted_ns, admitted_ms * kMs) << "request " << r.id;
  EXPECT_EQ(r.first_token_ns, first_ms * kMs) << "request " << r.id;
  EXPECT_EQ(r.finished_ns, finished_ms * kMs) << "request " << r.id;
}

// Budget 8. A (P 10, 3 out) and B (P 6, 2 out) at 0.
//   step 1: A's first chunk takes the whole budget (c_A 8); B is not admitted (no budget left).
//   step 2: A's last 2 prompt tokens, then B admitted with its whole prompt (6 = the budget left);
//           both complete their prompts: first tokens at 2 ms.
//   step 3: both decode: A g 2, B g 2 = its length: B finishes at 3 ms.
//   step 4: A g 3: finishes at 4 ms.
TEST(EngineScheduleTest, ChunkedPrefillSplitsTheTokenBudget) {
  EngineSetup s;
  s.budget = 8;
  const SimRun run = SimulateBoth(s, {Req(0, 0, 10, 3), Req(1, 0, 6, 2)});
  ExpectTimes(run.rec().done.at(0), 0, 2, 4);
  ExpectTimes(run.rec().done.at(1), 1, 2, 3);
  ASSERT_EQ(run.rec().steps.size(), 4u);
  // Tokens sampled after each request's first: none in steps 1-2, two in step 3, one in step 4.
  EXPECT_EQ(run.rec().steps[1].later_tokens, 0);
  EXPECT_EQ(run.rec().steps[2].later_tokens, 2);
  EXPECT_EQ(run.rec().steps[3].later_tokens, 1);
}

// Budget 8. A (P 4, 5 out) at 0 decodes while B (P 20, 1 out, at 0.5 ms) prefills in chunks:
// pass 1 serves the running requests first, so each step B gets the 7 tokens A leaves.
//   step 1: A's prompt, g_A 1.   step 2: A decodes, B admitted with 7 (c_B 7).
//   step 3: A, B 7 more (c_B 14).  step 4: A, B's last 6: B's only token at 4 ms, finished.
//   step 5: A g 5: finishes at 5 ms.
TEST(EngineScheduleTest, RunningRequestsComeBeforeAPrefillChunk) {
  EngineSetup s;
  s.budget = 8;
  const SimRun run = SimulateBoth(s, {Req(0, 0, 4, 5), Req(1, 0.5, 20, 1)});
  ExpectTimes(run.rec().done.at(0), 0, 1, 5);
  ExpectTimes(run.rec().done.at(1), 1, 4, 4);
}

// 4 usable blocks, budget 100. A and B (P 4, 8 out each) at 0 run in lockstep: step k computes
// token 4 + (k-1) of each. Step 2 opens each one's second block (4 used, none free). Step 6 needs a
// third block for A (token 9): vLLM v1 preempts the newest admission, B (g_B 5 so far), and A takes
// one of B's blocks. B needs ceil((4 + 5) / 4) = 3 blocks to recompute, and only 1 is free while A
// runs: steps 7-8 it waits. A finishes at 8 ms (g 8); step 9 readmits B, recomputing its 9 tokens
// in one step (g 6), steps 10-11 bring g to 8: finished at 11 ms.
TEST(EngineScheduleTest, PreemptionTakesTheNewestAdmissionAndRecomputesIt) {
  EngineSetup s;
  s.usable_blocks = 4;
  const SimRun run = SimulateBoth(s, {Req(0, 0, 4, 8), Req(1, 0, 4, 8)});
  const RequestRecord& a = run.rec().done.at(0);
  const RequestRecord& b = run.rec().done.at(1);
  ExpectTimes(a, 0, 1, 8);
  ExpectTimes(b, 0, 1, 11);  // admitted_ns is the first admission
  EXPECT_EQ(a.preemptions, 0);
  EXPECT_EQ(b.preemptions, 1);
  EXPECT_EQ(b.output_tokens, 8);
  const std::vector<StepSample>& st = run.rec().steps;
  ASSERT_EQ(st.size(), 11u);
  EXPECT_EQ(st[5].running, 1);  // after step 6: B back in the queue
  EXPECT_EQ(st[5].waiting, 1);
  EXPECT_EQ(st[5].preemptions_total, 1);
  EXPECT_EQ(st[8].running, 1);  // after step 9: B alone, 3 blocks
  EXPECT_EQ(st[8].used_blocks, 3);
}

// 4 usable blocks, budget 5. A and B (P 4, 8 out) at 0.
//   step 1: A's prompt (4), B's first token of prompt (the 1 left).   step 2: A token 5 (block 2),
//   B's last 3 prompt tokens (first token at 2 ms).   step 3: B opens its block 2: none free.
//   steps 4-5 decode. step 6: A needs block 3: B (c 7, g 4) is preempted; A takes a block, 1 free
//   and 4 tokens of budget left, enough for B's first chunk, but vLLM admits nothing in a step
//   that preempted: B stays queued.
//   step 7: B readmitted with 4 of its 4 + 4 tokens (1 block, none free after).
//   step 8: A's token 11 (block 3 has room), g_A 8; B's next 4 tokens need a block: none free,
//   B is the newest and preempted again, ending pass 1. A finishes at 8 ms.
//   step 9: B readmitted, 5 tokens (budget); step 10: its last 3: g 5; steps 11-13: g 8, 13 ms.
TEST(EngineScheduleTest, NothingIsAdmittedInAStepThatPreempted) {
  EngineSetup s;
  s.usable_blocks = 4;
  s.budget = 5;
  const SimRun run = SimulateBoth(s, {Req(0, 0, 4, 8), Req(1, 0, 4, 8)});
  const RequestRecord& a = run.rec().done.at(0);
  const RequestRecord& b = run.rec().done.at(1);
  ExpectTimes(a, 0, 1, 8);
  ExpectTimes(b, 0, 2, 13);
  EXPECT_EQ(b.preemptions, 2);
  const std::vector<StepSample>& st = run.rec().steps;
  ASSERT_EQ(st.size(), 13u);
  EXPECT_EQ(st[5].running, 1);  // step 6: preempted, not readmitted
  EXPECT_EQ(st[5].waiting, 1);
  EXPECT_EQ(st[6].running, 2);  // step 7: readmitted
  EXPECT_EQ(st[6].waiting, 0);
  EXPECT_EQ(st[7].preemptions_total, 2);
}

// vLLM v0: a step prefills waiting prompts whole, or decodes every running request, never both.
// A (P 4, 3 out) at 0, B (P 4, 2 out) at 1.5 ms.
//   v0: step 1 prefill A; step 2 decode A (g 2); step 3 prefill B alone (A waits); step 4 decode
//       both: A g 3 and B g 2, both finish at 4 ms.
//   v1: step 3 decodes A (finishing it at 3 ms) and prefills B together; step 4 B g 2 at 4 ms.
TEST(EngineScheduleTest, VllmV0PrefillsBeforeItDecodes) {
  EngineSetup s;
  s.scheduler = SchedulerKind::kVllmV0;
  const std::vector<TraceRequest> trace = {Req(0, 0, 4, 3), Req(1, 1.5, 4, 2)};
  const SimRun v0 = Simulate(s, Stepping::kToken, trace);
  ExpectTimes(v0.rec().done.at(0), 0, 1, 4);
  ExpectTimes(v0.rec().done.at(1), 2, 3, 4);
  s.scheduler = SchedulerKind::kVllmV1;
  const SimRun v1 = SimulateBoth(s, trace);
  ExpectTimes(v1.rec().done.at(0), 0, 1, 3);
  ExpectTimes(v1.rec().done.at(1), 2, 3, 4);
}

// The preemption case with prefix caching and one trace block id per prompt block. B's blocks are
// freed tail first, so A's new block is B's second (its decoded tokens, no key) and B's prompt
// block (key 2) stays cached. At readmission (step 9) B looks up 4 + 5 = 9 tokens and hits its 4
// prompt tokens: it computes 5.
TEST(EngineScheduleTest, APreemptedRequestHitsItsCachedPromptWhenReadmitted) {
  EngineSetup s;
  s.usable_blocks = 4;
  s.prefix_caching = true;
  const SimRun run = SimulateBoth(s, {Req(0, 0, 4, 8, {1}), Req(1, 0, 4, 8, {2})});
  const Recorder& rec = run.rec();
  ASSERT_EQ(rec.relookups.size(), 1u);
  EXPECT_EQ(rec.relookups[0], (std::pair<int64_t, int64_t>{9, 4}));
  EXPECT_EQ(rec.done.at(1).preemptions, 1);
  EXPECT_EQ(rec.done.at(1).cached_tokens, 0);  // the first admission found nothing
  ExpectTimes(rec.done.at(1), 0, 1, 11);
}

// max_num_seqs 2: of three requests (P 4, 3 out) at 0, the third waits until the first two finish
// at 3 ms, is admitted at the start of step 4, samples at 4 ms and finishes at 6 ms.
TEST(EngineScheduleTest, MaxNumSeqsHoldsTheThirdRequestBack) {
  EngineSetup s;
  s.max_num_seqs = 2;
  const SimRun run = SimulateBoth(s, {Req(0, 0, 4, 3), Req(1, 0, 4, 3), Req(2, 0, 4, 3)});
  ExpectTimes(run.rec().done.at(0), 0, 1, 3);
  ExpectTimes(run.rec().done.at(1), 0, 1, 3);
  ExpectTimes(run.rec().done.at(2), 3, 4, 6);
}

// max_model_len 16: a 16-token prompt is rejected on arrival; a 10-token prompt asking for 100
// tokens gets 16 - 10 = 6 (vLLM's default max_tokens): prefill plus 5 decode steps, 6 ms.
TEST(EngineScheduleTest, MaxModelLenRejectsLongPromptsAndCapsOutputs) {
  EngineSetup s;
  s.max_model_len = 16;
  const SimRun run = SimulateBoth(s, {Req(0, 0, 16, 1), Req(1, 0, 10, 100)});
  EXPECT_EQ(run.rec().done.at(0).rejected_reason, "prompt_tokens >= max_model_len");
  const RequestRecord& b = run.rec().done.at(1);
  EXPECT_EQ(b.output_tokens, 6);
  ExpectTimes(b, 0, 1, 6);
}

// 4 usable blocks of 4 tokens: a prompt of 17 tokens can never fit (5 blocks) and is rejected on
// arrival; the rest of the trace runs as if it were not there.
TEST(EngineScheduleTest, ARequestLargerThanThePoolIsRejected) {
  EngineSetup s;
  s.usable_blocks = 4;
  const SimRun run = SimulateBoth(s, {Req(0, 0, 17, 2), Req(1, 0, 4, 2)});
  EXPECT_EQ(run.rec().done.at(0).rejected_reason, "needs more KV cache than the whole pool");
  ExpectTimes(run.rec().done.at(1), 0, 1, 2);
}

// An idle engine's clock jumps to the next arrival: B at 10 ms runs steps from 10 to 12 ms.
TEST(EngineScheduleTest, AnIdleEngineWaitsForTheNextArrival) {
  const SimRun run = SimulateBoth(EngineSetup{}, {Req(0, 0, 4, 2), Req(1, 10, 4, 2)});
  ExpectTimes(run.rec().done.at(0), 0, 1, 2);
  ExpectTimes(run.rec().done.at(1), 10, 11, 12);
  ASSERT_EQ(run.rec().steps.size(), 4u);
  EXPECT_EQ(run.rec().steps[2].start_ns, 10 * kMs);
}

// Two replicas, six requests. Round-robin alternates: {0, 2, 4} and {1, 3, 5}. Least-kv reads each
// replica's (used + pending prompt blocks) / 16 usable: request 0 (P 32: 8 blocks) goes to replica
// 0 (tie, lower index) and makes it 8/16; every later request (P 4) finds replica 1 emptier
// (1/16, 2/16, ... 5/16 < 8/16) and goes there.
TEST(EngineScheduleTest, RoundRobinAgainstLeastKvOnSixRequests) {
  EngineSetup s;
  s.usable_blocks = 16;
  const std::vector<TraceRequest> trace = {Req(0, 0, 32, 20), Req(1, 0, 4, 20),   Req(2, 0.5, 4, 20),
                                           Req(3, 0.6, 4, 20), Req(4, 0.7, 4, 20), Req(5, 0.8, 4, 20)};
  auto served = [](const SimRun& run, size_t replica) {
    std::vector<uint64_t> ids;
    for (const auto& [id, r] : run.rec(replica).done) ids.push_back(id);
    return ids;
  };
  const SimRun rr = Simulate(s, Stepping::kEvent, trace, 2, RouterKind::kRoundRobin);
  EXPECT_EQ(rr.result.routed, (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(served(rr, 0), (std::vector<uint64_t>{0, 2, 4}));
  EXPECT_EQ(served(rr, 1), (std::vector<uint64_t>{1, 3, 5}));
  const SimRun kv = Simulate(s, Stepping::kEvent, trace, 2, RouterKind::kLeastKv);
  EXPECT_EQ(kv.result.routed, (std::vector<int64_t>{1, 5}));
  EXPECT_EQ(served(kv, 0), (std::vector<uint64_t>{0}));
  EXPECT_EQ(served(kv, 1), (std::vector<uint64_t>{1, 2, 3, 4, 5}));
}

// The fixed timer's decode runs: every step the same, stopping at the horizon or the limit.
TEST(FixedStepTimerTest, DecodeRunsStopAtTheHorizonOrTheLimit) {
  const FixedStepTimer timer(2 * kMs);
  StepWork w;
  w.Add(100, 0);
  EXPECT_EQ(timer.StepNs(w), 2 * kMs);
  const std::unique_ptr<DecodeRunTimer> run = timer.DecodeRun(8);
  int64_t out[16], now = 0;
  EXPECT_EQ(run->TimeSteps(0, 8, 16, 5 * kMs, &now, out), 3);  // 2, 4, 6 ms: the third reaches 5 ms
  EXPECT_EQ(now, 6 * kMs);
  now = 0;
  EXPECT_EQ(run->TimeSteps(0, 8, 2, INT64_MAX, &now, out), 2);
  EXPECT_EQ(out[1], 2 * kMs);
}

}  // namespace
}  // namespace kvsim
