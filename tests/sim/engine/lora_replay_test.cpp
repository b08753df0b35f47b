// LoRA adapters in the replay (sim/engine/lora_adapters.h), on cases derived by hand: the engine is
// built over a small paged pool and FixedStepTimer (every step 1 ms), so each time is a step count
// plus the adapter loads the derivation adds. Step k starts when step k-1 ends; a request that
// completes its prompt in a step samples its first token at the step's end.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
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
constexpr int64_t kGpuLoadNs = kMs / 4;   // one adapter host -> GPU: 0.25 ms
constexpr int64_t kDiskLoadNs = kMs / 2;  // one adapter disk -> host: 0.5 ms

TraceRequest Req(uint64_t id, int64_t arrival_ns, int64_t prompt, int64_t output, uint32_t adapter) {
  TraceRequest r;
  r.id = id;
  r.arrival_ns = arrival_ns;
  r.prompt_tokens = prompt;
  r.output_tokens = output;
  r.adapter = adapter;
  return r;
}

using testing::VectorSource;

struct Recorder final : ReplayObserver {
  std::vector<StepSample> steps;
  std::map<uint64_t, RequestRecord> done;
  void OnStep(const StepSample& s) override { steps.push_back(s); }
  void OnRequestDone(const RequestRecord& r) override { done[r.id] = r; }
};

struct Run {
  Recorder rec;
  EngineCounters counters;
};

// One engine; max_loras 0 turns LoRA off.
std::unique_ptr<Run> Simulate(const std::vector<TraceRequest>& requests, int64_t max_loras, int64_t max_cpu_loras,
                              int64_t usable_blocks = 256, Stepping stepping = Stepping::kEvent) {
  static const FixedStepTimer timer(kMs);
  auto run = std::make_unique<Run>();
  PagedAllocatorOptions po;
  po.num_blocks = usable_blocks + 1;
  po.block_size = 4;
  PagedAllocator allocator(po);
  EngineOptions eo;
  eo.max_num_batched_tokens = 100;
  eo.max_model_len = 1024;
  eo.block_size = 4;
  eo.stepping = stepping;
  eo.lora.max_loras = max_loras;
  eo.lora.max_cpu_loras = max_cpu_loras;
  eo.lora.gpu_load_ns = kGpuLoadNs;
  eo.lora.disk_load_ns = kDiskLoadNs;
  ReplayEngine engine(eo, allocator, timer, {&run->rec});
  VectorSource source(requests);
  std::unique_ptr<Router> router = MakeRouter(RouterKind::kRoundRobin, 1);
  std::vector<LoopReplica> loop{{&engine, usable_blocks, 4}};
  RunEventLoop(loop, *router, source, {});
  run->counters = engine.counters();
  return run;
}

// max_loras 1. A (adapter 1, P 4, 3 out) and B (adapter 2, P 4, 2 out) arrive at 0.
//   step 1 (0 ms): A admitted, its prompt computed; B set aside (adapter 1 holds the only slot).
//          Adapter 1 is in neither cache: read from disk (0.5 ms) and copied to the GPU (0.25 ms),
//          so the step lasts 1.75 ms; A's first token at 1.75 ms.
//   steps 2, 3: A decodes (2.75, 3.75 ms): A finishes at 3.75 ms. B is set aside in both passes
//          (A still runs when they are made).
//   step 4 (3.75 ms): B admitted: one request's lifetime after A was. Adapter 2 misses both caches
//          (the host cache holds one adapter): 1.75 ms, first token at 5.5 ms.
//   step 5: B decodes its second token: finishes at 6.5 ms.
TEST(LoraReplayTest, OneSlotMakesTheSecondAdapterWaitForTheFirstRequest) {
  const auto run = Simulate({Req(0, 0, 4, 3, 1), Req(1, 0, 4, 2, 2)}, 1, 1);
  const RequestRecord& a = run->rec.done.at(0);
  const RequestRecord& b = run->rec.done.at(1);
  EXPECT_EQ(a.admitted_ns, 0);
  EXPECT_EQ(a.first_token_ns, 1750 * kMs / 1000);
  EXPECT_EQ(a.finished_ns, 3750 * kMs / 1000);
  EXPECT_EQ(b.admitted_ns, a.finished_ns);
  EXPECT_EQ(b.first_token_ns, 5500 * kMs / 1000);
  EXPECT_EQ(b.finished_ns, 6500 * kMs / 1000);
  const LoraCounters& c = run->counters.lora;
  EXPECT_EQ(c.gpu_loads, 2);
  EXPECT_EQ(c.disk_loads, 2);
  EXPECT_EQ(c.load_ns, 2 * (kGpuLoadNs + kDiskLoadNs));
  EXPECT_EQ(c.waited_requests, 1);
  EXPECT_EQ(c.requests, 2);
  EXPECT_EQ(c.lora_steps, 5);
  EXPECT_EQ(c.max_step_adapters, 1);
}

// The same two requests with two slots: both admitted in step 1, which loads both adapters
// (2 x 0.75 ms): it ends at 2.5 ms. Step 2 (3.5 ms): both decode, B finishes. Step 3: A at 4.5 ms.
TEST(LoraReplayTest, TwoSlotsRunBothAdaptersAndLoadBothInTheFirstStep) {
  const auto run = Simulate({Req(0, 0, 4, 3, 1), Req(1, 0, 4, 2, 2)}, 2, 2);
  EXPECT_EQ(run->rec.done.at(0).first_token_ns, 2500 * kMs / 1000);
  EXPECT_EQ(run->rec.done.at(1).finished_ns, 3500 * kMs / 1000);
  EXPECT_EQ(run->rec.done.at(0).finished_ns, 4500 * kMs / 1000);
  EXPECT_EQ(run->counters.lora.waited_requests, 0);
  EXPECT_EQ(run->counters.lora.max_step_adapters, 2);
}

// vLLM skips a request it cannot give a slot and goes on down the queue: C on the base model, queued
// behind B, is admitted in step 1 with A. Step 1 loads adapter 1 only (C needs none): 1.75 ms.
TEST(LoraReplayTest, TheBaseModelRequestBehindASkippedOneIsAdmitted) {
  const auto run = Simulate({Req(0, 0, 4, 3, 1), Req(1, 0, 4, 2, 2), Req(2, 0, 4, 2, 0)}, 1, 1);
  EXPECT_EQ(run->rec.done.at(2).admitted_ns, 0);
  EXPECT_EQ(run->rec.done.at(2).first_token_ns, 1750 * kMs / 1000);
  EXPECT_EQ(run->rec.done.at(1).admitted_ns, run->rec.done.at(0).finished_ns);
}

// A later request on a resident adapter costs nothing more: A (adapter 1) then, after it ends, D
// (adapter 1) at 10 ms. Step 1: 1.75 ms (first load); D's step 1 at 10 ms lasts 1 ms: first token at 11 ms.
// With the host cache holding two adapters, B (adapter 2) in between evicts adapter 1 from the one
// GPU slot but not from host memory, so E (adapter 1) after it pays only the copy (0.25 ms).
TEST(LoraReplayTest, ResidentAdaptersAreNotLoadedAgainAndTheHostCacheSavesTheDiskRead) {
  const auto same = Simulate({Req(0, 0, 4, 1, 1), Req(1, 10 * kMs, 4, 1, 1)}, 1, 2);
  EXPECT_EQ(same->rec.done.at(1).first_token_ns, 11 * kMs);
  EXPECT_EQ(same->counters.lora.gpu_loads, 1);
  // A at 0, B (adapter 2) at 10 ms, E (adapter 1) at 20 ms; one output token each.
  const auto host = Simulate({Req(0, 0, 4, 1, 1), Req(1, 10 * kMs, 4, 1, 2), Req(2, 20 * kMs, 4, 1, 1)}, 1, 2);
  EXPECT_EQ(host->rec.done.at(1).first_token_ns, 10 * kMs + kMs + kGpuLoadNs + kDiskLoadNs);
  EXPECT_EQ(host->rec.done.at(2).first_token_ns, 20 * kMs + kMs + kGpuLoadNs);
  EXPECT_EQ(host->counters.lora.gpu_loads, 3);
  EXPECT_EQ(host->counters.lora.disk_loads, 2);
}

// Without LoRA (max_loras 0) the adapters a trace names are ignored by the engine: the same times
// as the base model, and nothing counted.
TEST(LoraReplayTest, LoraOffRunsEveryRequestOnTheBaseModel) {
  const auto run = Simulate({Req(0, 0, 4, 3, 1), Req(1, 0, 4, 2, 2)}, 0, 0);
  EXPECT_EQ(run->rec.done.at(0).first_token_ns, kMs);
  EXPECT_EQ(run->rec.done.at(1).admitted_ns, 0);
  EXPECT_EQ(run->counters.lora.requests, 0);
  EXPECT_EQ(run->counters.lora.gpu_loads, 0);
}

TEST(AdapterSlotsTest, LeastRecentlyUsedOnTheGpuAndOnTheHost) {
  AdapterSlots slots(1, 2);
  auto loads = slots.Activate({1});
  EXPECT_EQ(loads.gpu, 1);
  EXPECT_EQ(loads.disk, 1);
  loads = slots.Activate({2});  // GPU slot: 2 replaces 1; host: {2, 1}
  EXPECT_EQ(loads.gpu, 1);
  EXPECT_EQ(loads.disk, 1);
  EXPECT_TRUE(slots.OnHost(1));
  EXPECT_FALSE(slots.OnGpu(1));
  loads = slots.Activate({1});  // from host memory
  EXPECT_EQ(loads.gpu, 1);
  EXPECT_EQ(loads.disk, 0);
  loads = slots.Activate({3});  // host {1, 2}: 2 is the least recent and goes
  EXPECT_EQ(loads.disk, 1);
  EXPECT_TRUE(slots.OnHost(1));
  EXPECT_FALSE(slots.OnHost(2));
  loads = slots.Activate({3});
  EXPECT_EQ(loads.gpu, 0);
  EXPECT_EQ(loads.disk, 0);
}

// Property: under random load, at no step start do the requests running then (admitted at or before
// it, not yet finished) use more than max_loras distinct adapters; the limit binds (someone waited
// and some step used every slot). Memory is ample, so nothing is preempted and admission to
// finish is one stretch of running. Event and token stepping agree.
TEST(LoraReplayTest, NeverMoreThanMaxLorasDistinctAdaptersRun) {
  std::mt19937_64 rng(7);
  std::vector<TraceRequest> requests;
  int64_t t = 0;
  for (uint64_t i = 0; i < 400; ++i) {
    t += std::uniform_int_distribution<int64_t>(0, 3 * kMs)(rng);
    requests.push_back(Req(i, t, std::uniform_int_distribution<int64_t>(1, 40)(rng),
                           std::uniform_int_distribution<int64_t>(1, 30)(rng),
                           static_cast<uint32_t>(std::uniform_int_distribution<int>(0, 9)(rng))));
  }
  constexpr int64_t kMaxLoras = 3;
  const auto run = Simulate(requests, kMaxLoras, 5, 100000);
  const auto token = Simulate(requests, kMaxLoras, 5, 100000, Stepping::kToken);
  ASSERT_EQ(run->rec.done.size(), requests.size());
  EXPECT_EQ(run->counters.preemptions, 0);
  int64_t most = 0;
  for (const StepSample& s : run->rec.steps) {
    std::set<uint32_t> adapters;
    for (const auto& [id, r] : run->rec.done)
      if (r.adapter != 0 && r.admitted_ns <= s.start_ns && s.start_ns < r.finished_ns) adapters.insert(r.adapter);
    EXPECT_LE(static_cast<int64_t>(adapters.size()), kMaxLoras) << "step at " << s.start_ns;
    EXPECT_LE(s.lora_adapters, kMaxLoras);
    most = std::max<int64_t>(most, static_cast<int64_t>(adapters.size()));
  }
  EXPECT_EQ(most, kMaxLoras);
  EXPECT_GT(run->counters.lora.waited_requests, 0);
  for (const auto& [id, r] : run->rec.done) {
    EXPECT_EQ(r.admitted_ns, token->rec.done.at(id).admitted_ns) << id;
    EXPECT_EQ(r.finished_ns, token->rec.done.at(id).finished_ns) << id;
  }
}

}  // namespace
}  // namespace kvsim
