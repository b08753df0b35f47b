// The compact backlog of waiting arrivals (sim/engine/arrival_backlog.h): its block-id encoding
// round-trips exactly and takes the bytes derived by hand, and a replay whose waiting queue holds
// thousands of requests gives the same results whether every arrival waits compact or none does.
#include "sim/engine/arrival_backlog.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "kvcache/paged_allocator.h"
#include "sim/engine/replay_engine.h"
#include "sim/fleet/event_loop.h"
#include "sim/fleet/router.h"
#include "sim/timing/step_timer.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

TraceRequest WithIds(uint64_t id, std::vector<uint64_t> ids) {
  TraceRequest r;
  r.id = id;
  r.arrival_ns = static_cast<int64_t>(id) * 10;
  r.prompt_tokens = 100 + static_cast<int64_t>(id);
  r.output_tokens = 7;
  r.block_ids = std::move(ids);
  r.block_id_tokens = 512;
  r.adapter = static_cast<uint32_t>(id % 3);
  return r;
}

// Each id is the varint of the zigzag of its step from the previous id (the first from 0):
//   [0, 1, 2, 3]: steps 0, 1, 1, 1 -> zigzag 0, 2, 2, 2: four bytes, one per id.
//   [300]: step 300 -> zigzag 600 = 4 * 128 + 88: two bytes (88 | 0x80, then 4).
//   [5, 3]: steps 5, -2 -> zigzag 10, 3: two bytes.
//   [2^64 - 1]: step -1 (mod 2^64) -> zigzag 1: one byte.
//   [2^63]: step 2^63 = INT64_MIN as a difference -> zigzag 2^64 - 1: 64 bits, ten 7-bit bytes.
TEST(ArrivalBacklogTest, BlockIdsTakeTheBytesDerivedByHand) {
  const std::vector<std::pair<std::vector<uint64_t>, size_t>> cases = {
      {{0, 1, 2, 3}, 4}, {{300}, 2}, {{5, 3}, 2}, {{UINT64_MAX}, 1}, {{uint64_t{1} << 63}, 10}, {{}, 0}};
  for (const auto& [ids, bytes] : cases) {
    ArrivalBacklog b;
    b.Push(WithIds(0, ids), 0, 0);
    EXPECT_EQ(b.IdBytes(), bytes) << ids.size() << " ids";
    std::vector<uint64_t> out{42};  // replaced, not appended to
    b.PopFront(out);
    EXPECT_EQ(out, ids);
    EXPECT_EQ(b.IdBytes(), 0u);
  }
}

TEST(ArrivalBacklogTest, EntriesLeaveInOrderWithTheirFieldsAndIds) {
  std::mt19937_64 rng(7);
  std::vector<TraceRequest> pushed;
  ArrivalBacklog b;
  for (uint64_t i = 0; i < 500; ++i) {
    std::vector<uint64_t> ids(rng() % 40);
    for (uint64_t& id : ids) id = rng() % 4 == 0 ? rng() : rng() % 1000;  // small and huge jumps, both ways
    pushed.push_back(WithIds(i, ids));
    b.Push(pushed.back(), 1000 + static_cast<int64_t>(i), i % 2 ? -1 : 5);
  }
  EXPECT_EQ(b.size(), 500u);
  EXPECT_EQ(b.FrontSeq(), 0u);
  EXPECT_EQ(b.BackSeq(), 499u);
  b.At(3).eligible_ns = 77;  // async scheduling marks an entry through its position
  std::vector<uint64_t> ids;
  for (uint64_t i = 0; i < 500; ++i) {
    ASSERT_TRUE(b.Holds(i));
    const ArrivalBacklog::Arrival& a = b.Front();
    const TraceRequest& r = pushed[i];
    EXPECT_EQ(a.id, r.id);
    EXPECT_EQ(a.arrival_ns, r.arrival_ns);
    EXPECT_EQ(a.in_flight_end_ns, 1000 + static_cast<int64_t>(i));
    EXPECT_EQ(a.eligible_ns, i == 3 ? 77 : i % 2 ? -1 : 5);
    EXPECT_EQ(a.prompt_tokens, r.prompt_tokens);
    EXPECT_EQ(a.output_tokens, r.output_tokens);
    EXPECT_EQ(a.block_id_tokens, r.block_id_tokens);
    EXPECT_EQ(a.adapter, r.adapter);
    b.PopFront(ids);
    EXPECT_EQ(ids, r.block_ids) << "request " << i;
    EXPECT_FALSE(b.Holds(i));
  }
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.IdBytes(), 0u);
}

// Replays through the engine with a given slotted_arrivals, recording everything observers see.
struct Recorder final : ReplayObserver {
  std::vector<StepSample> steps;
  std::map<uint64_t, RequestRecord> done;
  int64_t peak_waiting = 0;
  std::vector<std::pair<int64_t, int64_t>> lookups;
  void OnStep(const StepSample& s) override {
    steps.push_back(s);
    peak_waiting = std::max(peak_waiting, s.waiting);
  }
  void OnRequestDone(const RequestRecord& r) override {
    EXPECT_TRUE(done.emplace(r.id, r).second) << "request " << r.id << " ended twice";
  }
  void OnPrefixLookup(int64_t queried, int64_t hit) override { lookups.emplace_back(queried, hit); }
  void OnPrefixRelookup(int64_t queried, int64_t hit) override { lookups.emplace_back(-queried, hit); }
};

struct Config {
  const char* name;
  bool prefix_caching = true;
  bool async = false;
  int64_t max_loras = 0;
  SchedulerKind scheduler = SchedulerKind::kVllmV1;
  Stepping stepping = Stepping::kEvent;
  int replicas = 1;
  RouterKind router = RouterKind::kRoundRobin;
};

struct Outcome {
  std::vector<std::unique_ptr<Recorder>> recorders;
  std::vector<EngineCounters> counters;
};

Outcome Replay(const Config& c, size_t slotted_arrivals, const std::vector<TraceRequest>& requests) {
  static const FixedStepTimer timer(1'000'000);
  constexpr int64_t kUsableBlocks = 96;  // 384 tokens of 4-token blocks: a few prompts at a time
  Outcome out;
  std::vector<std::unique_ptr<PagedAllocator>> pools;
  std::vector<std::unique_ptr<ReplayEngine>> engines;
  std::vector<LoopReplica> loop;
  for (int i = 0; i < c.replicas; ++i) {
    PagedAllocatorOptions po;
    po.num_blocks = kUsableBlocks + 1;  // block 0 is vLLM's null block
    po.block_size = 4;
    po.enable_prefix_caching = c.prefix_caching;
    pools.push_back(std::make_unique<PagedAllocator>(po));
    EngineOptions eo;
    eo.max_num_seqs = 8;
    eo.max_num_batched_tokens = 64;
    eo.max_model_len = 200;  // some prompts are rejected at arrival, some can never fit the pool
    eo.block_size = 4;
    eo.prefix_caching = c.prefix_caching;
    eo.stepping = c.stepping;
    eo.scheduler = c.scheduler;
    eo.async_scheduling = c.async;
    eo.lora.max_loras = c.max_loras;
    eo.lora.max_cpu_loras = c.max_loras;
    eo.lora.gpu_load_ns = 250'000;
    eo.slotted_arrivals = slotted_arrivals;
    out.recorders.push_back(std::make_unique<Recorder>());
    engines.push_back(
        std::make_unique<ReplayEngine>(eo, *pools.back(), timer, std::vector<ReplayObserver*>{out.recorders.back().get()}));
    loop.push_back({engines.back().get(), kUsableBlocks, 4});
  }
  testing::VectorSource source(requests);
  std::unique_ptr<Router> router = MakeRouter(c.router, c.replicas);
  RunEventLoop(loop, *router, source, {});
  for (const auto& e : engines) {
    EXPECT_TRUE(e->Idle());
    out.counters.push_back(e->counters());
  }
  return out;
}

// Bursts far beyond the pool's pace: about 4 arrivals per 1 ms step against ~one finishing per
// step, so the queue grows into the thousands. Prompts share prefixes (a few trunks of block ids,
// one id per 8 tokens), some are longer than max_model_len or the pool, and some use adapters.
std::vector<TraceRequest> Overload(uint64_t seed, int64_t n) {
  std::mt19937_64 rng(seed);
  std::vector<TraceRequest> v;
  int64_t t = 0;
  for (int64_t i = 0; i < n; ++i) {
    t += static_cast<int64_t>(rng() % 500'000);
    TraceRequest r;
    r.id = static_cast<uint64_t>(i);
    r.arrival_ns = t;
    r.prompt_tokens = 1 + static_cast<int64_t>(rng() % (rng() % 50 == 0 ? 500 : 120));
    r.output_tokens = 1 + static_cast<int64_t>(rng() % 40);
    r.block_id_tokens = 8;
    const uint64_t trunk = rng() % 5;
    for (int64_t b = 0; b * 8 < r.prompt_tokens; ++b)
      r.block_ids.push_back(b < 6 ? trunk * 1000 + static_cast<uint64_t>(b) : rng());
    r.adapter = static_cast<uint32_t>(rng() % 3);
    v.push_back(std::move(r));
  }
  return v;
}

void ExpectSame(const Outcome& a, const Outcome& b) {
  ASSERT_EQ(a.recorders.size(), b.recorders.size());
  for (size_t k = 0; k < a.recorders.size(); ++k) {
    const Recorder& x = *a.recorders[k];
    const Recorder& y = *b.recorders[k];
    ASSERT_EQ(x.steps.size(), y.steps.size()) << "replica " << k;
    for (size_t i = 0; i < x.steps.size(); ++i) {
      EXPECT_EQ(x.steps[i].start_ns, y.steps[i].start_ns) << "step " << i;
      EXPECT_EQ(x.steps[i].duration_ns, y.steps[i].duration_ns) << "step " << i;
      EXPECT_EQ(x.steps[i].running, y.steps[i].running) << "step " << i;
      EXPECT_EQ(x.steps[i].waiting, y.steps[i].waiting) << "step " << i;
      EXPECT_EQ(x.steps[i].used_blocks, y.steps[i].used_blocks) << "step " << i;
      EXPECT_EQ(x.steps[i].later_tokens, y.steps[i].later_tokens) << "step " << i;
      EXPECT_EQ(x.steps[i].preemptions_total, y.steps[i].preemptions_total) << "step " << i;
    }
    EXPECT_EQ(x.lookups, y.lookups);
    ASSERT_EQ(x.done.size(), y.done.size());
    for (const auto& [id, r] : x.done) {
      const RequestRecord& s = y.done.at(id);
      EXPECT_EQ(r.arrival_ns, s.arrival_ns) << id;
      EXPECT_EQ(r.in_flight_end_ns, s.in_flight_end_ns) << id;
      EXPECT_EQ(r.eligible_ns, s.eligible_ns) << id;
      EXPECT_EQ(r.admitted_ns, s.admitted_ns) << id;
      EXPECT_EQ(r.first_token_ns, s.first_token_ns) << id;
      EXPECT_EQ(r.finished_ns, s.finished_ns) << id;
      EXPECT_EQ(r.prompt_tokens, s.prompt_tokens) << id;
      EXPECT_EQ(r.output_tokens, s.output_tokens) << id;
      EXPECT_EQ(r.cached_tokens, s.cached_tokens) << id;
      EXPECT_EQ(r.preemptions, s.preemptions) << id;
      EXPECT_EQ(r.adapter, s.adapter) << id;
      EXPECT_EQ(r.rejected_reason, s.rejected_reason) << id;
    }
    EXPECT_EQ(a.counters[k].steps, b.counters[k].steps);
    EXPECT_EQ(a.counters[k].events, b.counters[k].events);
    EXPECT_EQ(a.counters[k].preemptions, b.counters[k].preemptions);
    EXPECT_EQ(a.counters[k].lora.requests, b.counters[k].lora.requests);
    EXPECT_EQ(a.counters[k].lora.waited_requests, b.counters[k].lora.waited_requests);
    EXPECT_EQ(a.counters[k].lora.gpu_loads, b.counters[k].lora.gpu_loads);
  }
}

// Property: where a waiting request is kept (a full slot, or compact until admission reaches it)
// changes nothing a replay reports. slotted_arrivals SIZE_MAX keeps every waiting request in a
// slot (the engine before the backlog); 0 sends every arrival to the backlog; the default mixes.
TEST(ArrivalBacklogTest, ManyWaitingRequestsGiveTheSameResultsCompactOrSlotted) {
  const std::vector<Config> configs = {
      {"prefix caching"},
      {"no prefix caching", false},
      {"async scheduling", true, true},
      {"lora, one slot", true, false, 1},
      {"lora and async", true, true, 2},
      {"v0 scheduler", true, false, 0, SchedulerKind::kVllmV0},
      {"token stepping", true, false, 0, SchedulerKind::kVllmV1, Stepping::kToken},
      {"two replicas, round robin", true, false, 0, SchedulerKind::kVllmV1, Stepping::kEvent, 2},
      {"two replicas, least requests", true, false, 0, SchedulerKind::kVllmV1, Stepping::kEvent, 2,
       RouterKind::kLeastRequests},
      {"two replicas, least kv", true, false, 0, SchedulerKind::kVllmV1, Stepping::kEvent, 2, RouterKind::kLeastKv},
  };
  for (uint64_t seed = 1; seed <= 2; ++seed) {
    const std::vector<TraceRequest> requests = Overload(seed, 3000);
    for (const Config& c : configs) {
      SCOPED_TRACE(std::string(c.name) + ", seed " + std::to_string(seed));
      const Outcome slotted = Replay(c, SIZE_MAX, requests);
      int64_t peak = 0;
      for (const auto& r : slotted.recorders) peak = std::max(peak, r->peak_waiting);
      EXPECT_GT(peak, 1000) << "the case must keep thousands waiting";
      int64_t ended = 0, preemptions = 0;
      for (size_t k = 0; k < slotted.recorders.size(); ++k) {
        ended += static_cast<int64_t>(slotted.recorders[k]->done.size());
        preemptions += slotted.counters[k].preemptions;
      }
      EXPECT_EQ(ended, 3000);
      if (c.scheduler == SchedulerKind::kVllmV1) {
        EXPECT_GT(preemptions, 0) << "preempted requests must wait too";
      }
      ExpectSame(slotted, Replay(c, 0, requests));
      ExpectSame(slotted, Replay(c, 64, requests));
    }
  }
}

}  // namespace
}  // namespace kvsim
