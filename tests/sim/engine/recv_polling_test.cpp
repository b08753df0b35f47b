// SGLang's --scheduler-recv-interval (sim/engine/recv_polling.h) on cases derived by hand from
// SchedulerRecvSkipper (python/sglang/srt/managers/scheduler_recv_skipper.py): the counter grows by
// 1 per decode batch and by 1000 per prefill batch, and the scheduler iteration at which it reaches
// the interval receives new requests and resets it.
//
// The engine cases run over a small paged pool (blocks of 4 tokens) and FixedStepTimer (every step
// 1 ms): step k runs from (k-1) ms to k ms, and iteration k is the scheduler's turn at (k-1) ms.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "kvcache/paged_allocator.h"
#include "sim/engine/recv_polling.h"
#include "sim/engine/replay_engine.h"
#include "sim/fleet/event_loop.h"
#include "sim/fleet/router.h"
#include "sim/timing/step_timer.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {
namespace recv_polling_test {  // (unity builds: its helpers' names are ttft_path_test's too)

// Interval 4: after the iteration that received at step 2, decode steps 2-5 bring the counter to 4
// at iteration 6, then 10, 14. A prefill in step 7 makes iteration 8 receive, then 12.
TEST(RecvPollingTest, DecodeStepsCountOneAndAPrefillForcesTheNextIteration) {
  RecvPolling p(4);
  ASSERT_TRUE(p.skips());
  EXPECT_TRUE(p.Receives(2, /*idle=*/true));
  EXPECT_FALSE(p.Receives(3, false));
  EXPECT_FALSE(p.Receives(5, false));
  EXPECT_TRUE(p.Receives(6, false));
  EXPECT_FALSE(p.Receives(7, false));
  p.AfterNonDecodeStep(7);
  EXPECT_TRUE(p.Receives(8, false));
  EXPECT_FALSE(p.Receives(11, false));
  EXPECT_TRUE(p.Receives(12, false));
  // Iterations need not be asked one by one: the phase holds across the ones skipped.
  EXPECT_FALSE(p.Receives(15, false));
  EXPECT_TRUE(p.Receives(20, false));
}

// SGLang makes no skipper for an interval of 1 or less (SchedulerRecvSkipper.maybe_create).
TEST(RecvPollingTest, IntervalOneOrLessReceivesEveryIteration) {
  for (int64_t interval : {0, 1}) {
    RecvPolling p(interval);
    EXPECT_FALSE(p.skips());
    for (int64_t step = 1; step < 10; ++step) EXPECT_TRUE(p.Receives(step, false));
  }
}

TraceRequest Req(uint64_t id, double arrival_ms, int64_t prompt, int64_t output) {
  TraceRequest r;
  r.id = id;
  r.arrival_ns = static_cast<int64_t>(arrival_ms * 1e6);
  r.prompt_tokens = prompt;
  r.output_tokens = output;
  return r;
}

struct Recorder final : ReplayObserver {
  std::map<uint64_t, RequestRecord> done;
  void OnRequestDone(const RequestRecord& r) override { done[r.id] = r; }
};

std::map<uint64_t, RequestRecord> Simulate(const std::vector<TraceRequest>& requests, int64_t interval, bool async,
                                           Stepping stepping) {
  static const FixedStepTimer timer(1'000'000);
  PagedAllocatorOptions po;
  po.num_blocks = 65;  // block 0 is vLLM's null block
  po.block_size = 4;
  PagedAllocator allocator(po);
  EngineOptions eo;
  eo.max_num_batched_tokens = 100;
  eo.max_model_len = 1024;
  eo.block_size = 4;
  eo.stepping = stepping;
  eo.async_scheduling = async;
  eo.scheduler_recv_interval = interval;
  Recorder rec;
  ReplayEngine engine(eo, allocator, timer, {&rec});
  testing::VectorSource source(requests);
  std::unique_ptr<Router> router = MakeRouter(RouterKind::kRoundRobin, 1);
  RunEventLoop({LoopReplica{&engine, 64, 4}}, *router, source, {});
  return rec.done;
}

// A (P 4, 20 out) arrives at 0 on the idle engine: received at once, prefilled in step 1 (a
// prefill: iteration 2 receives and resets the counter). B (P 8, 1 out) arrives at 2.5 ms, in
// step 3. Interval 4: iterations 3, 4, 5 do not receive, iteration 6 (5 ms) does; step 6 (5-6 ms)
// prefills B: first token at 6 ms. Without the interval, step 4 (sync) or step 5 (async: the pass
// for step 4 ran at 2 ms) does. Under async scheduling the pass of iteration 6 sees what arrived
// before step 5 began (4 ms): B too, so 6 ms both ways. A decodes one token a step throughout.
TEST(RecvPollingTest, AnArrivalDuringDecodeWaitsForTheReceivingIteration) {
  for (Stepping stepping : {Stepping::kToken, Stepping::kEvent}) {
    for (bool async : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "async " << async << " stepping " << NameOf(stepping));
      const auto every = Simulate({Req(0, 0, 4, 20), Req(1, 2.5, 8, 1)}, 1, async, stepping);
      EXPECT_EQ(every.at(1).first_token_ns, async ? 5'000'000 : 4'000'000);
      const auto skipping = Simulate({Req(0, 0, 4, 20), Req(1, 2.5, 8, 1)}, 4, async, stepping);
      EXPECT_EQ(skipping.at(1).first_token_ns, 6'000'000);
      EXPECT_EQ(skipping.at(0).finished_ns, 20'000'000);
    }
  }
}

// As above, and C (P 8, 1 out) arrives at 6.5 ms, in step 7. B's prefill in step 6 made iteration
// 7 receive (with nothing new) and reset the counter: decode steps 7-10 bring it to 4 at iteration
// 11 (10 ms), so C's first token is at 11 ms. Counting decode steps alone from iteration 6 would
// have received at iteration 10. Without the interval (sync) step 8 prefills C: 8 ms.
TEST(RecvPollingTest, APrefillRestartsTheCount) {
  const std::vector<TraceRequest> reqs = {Req(0, 0, 4, 20), Req(1, 2.5, 8, 2), Req(2, 6.5, 8, 1)};
  for (Stepping stepping : {Stepping::kToken, Stepping::kEvent}) {
    SCOPED_TRACE(NameOf(stepping));
    EXPECT_EQ(Simulate(reqs, 1, false, stepping).at(2).first_token_ns, 8'000'000);
    const auto skipping = Simulate(reqs, 4, false, stepping);
    EXPECT_EQ(skipping.at(1).first_token_ns, 6'000'000);
    EXPECT_EQ(skipping.at(2).first_token_ns, 11'000'000);
  }
}

// A (P 4, 3 out) finishes at the end of step 3 (3 ms) while B (arrived at 2.5 ms) has not been
// received: nothing runs, the scheduler spins through batch-less iterations and receives B at once.
// Step 4 (3-4 ms) prefills it, as without the interval.
TEST(RecvPollingTest, AnIdleSchedulerReceivesAtOnce) {
  for (Stepping stepping : {Stepping::kToken, Stepping::kEvent}) {
    SCOPED_TRACE(NameOf(stepping));
    const auto done = Simulate({Req(0, 0, 4, 3), Req(1, 2.5, 8, 1)}, 30, false, stepping);
    EXPECT_EQ(done.at(0).finished_ns, 3'000'000);
    EXPECT_EQ(done.at(1).first_token_ns, 4'000'000);
  }
}

}  // namespace recv_polling_test
}  // namespace
}  // namespace kvsim
