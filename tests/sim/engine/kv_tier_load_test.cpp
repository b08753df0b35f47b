// One host-tier load of a stated prefix, as kvsim's KV tiers model vLLM's OffloadingConnector
// (kvcache/offload/offload_tiers.h): the load's bytes over the tier's read link, chunk granularity,
// loads queued on the replica's one copy stream, and the engine's wait (WAITING_FOR_REMOTE_KVS)
// before the step that computes the rest of the prompt. Every figure is derived in the comments from
// the model's config.json and the GPU datasheet; the step time is a fixed 1 ms so that the load is
// the only modelled term, and a recording timer checks the work of the step after it.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <numeric>
#include <vector>

#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/deployment.h"
#include "kvcache/model/model_catalog.h"
#include "kvcache/offload/offload_tiers.h"
#include "kvcache/paged_allocator.h"
#include "kvcache/prefix_keys.h"
#include "sim/engine/replay_engine.h"
#include "sim/fleet/event_loop.h"
#include "sim/fleet/router.h"
#include "sim/timing/step_timer.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

// Qwen3-0.6B (data/models/Qwen/Qwen3-0.6B.json): 28 layers, 8 KV heads of head_dim 128, bf16. KV per
// token = 2 (K, V) x 28 x 8 x 128 x 2 B = 114,688 B; one GPU holds all of it at TP 1.
constexpr double kQwen06BytesPerToken = 2.0 * 28 * 8 * 128 * 2;
// H100 SXM host link, one direction: PCIe Gen5 x16, 128 GB/s both ways (H100 datasheet) = 64 GB/s.
constexpr double kH100HostLink = 64e9;
constexpr int64_t kBlock = 16;
constexpr int64_t kTraceBlock = 512;  // Mooncake hash_ids cover 512 tokens each

std::vector<uint64_t> Ids(uint64_t first, int64_t n) {
  std::vector<uint64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), first);
  return v;
}

std::vector<BlockKey> Keys(const std::vector<uint64_t>& ids, int64_t prompt_tokens) {
  return KeysFromTraceBlocks(ids, kTraceBlock, prompt_tokens, kBlock);
}

OffloadConfig HostOnly(double bytes) {
  OffloadConfig c;
  c.tiers.push_back(TierSpec{TierKind::kHost, bytes, kH100HostLink, kH100HostLink, 0});
  return c;
}

// The planner's per-GPU KV bytes and the GPU table's host link are the figures above: the tiers a
// replay builds for this deployment time their loads with exactly these.
TEST(KvTierLoadTest, DeploymentGivesTheHandDerivedBytesAndLink) {
  DeploymentOptions o;
  o.model = "Qwen/Qwen3-0.6B";
  o.gpu = "h100";
  o.max_model_len = "8192";
  const Deployment d = ResolveDeployment(o, DataDirectory());
  const CapacityResult cap = PlanCapacity(d.model, d.gpu, d.config);
  EXPECT_DOUBLE_EQ(cap.stages[cap.bottleneck_stage].layout.bytes_per_token, kQwen06BytesPerToken);
  EXPECT_DOUBLE_EQ(d.gpu.host_link_bytes_per_s, kH100HostLink);
  EXPECT_EQ(cap.settings.block_size, kBlock);
}

// A 4,096-token prefix (trace ids 1..8) stored in host memory; the request's prompt is that prefix
// and 100 new tokens (4,196). Chunks of 16 tokens: the run after the GPU hits (none) is chunks
// 0..255 (the 257th chunk, tokens 4,096..4,111, has another trace id and is not stored) = 4,096
// tokens = 4,096 x 114,688 B = 469,762,048 B over 64 GB/s = 7,340,032 ns. A second load asked for
// at 1 ms waits for the copy stream: it ends at 2 x 7,340,032 ns.
TEST(KvTierLoadTest, A4096TokenPrefixLoadsInBytesOverTheHostLink) {
  OffloadTiers tiers(HostOnly(8.0 * (1 << 30)), kBlock, kQwen06BytesPerToken);
  const std::vector<BlockKey> a = Keys(Ids(1, 9), 4196), b = Keys(Ids(101, 9), 4196);
  tiers.StorePrompt(a, 0, 4096);
  tiers.StorePrompt(b, 0, 4096);
  const OffloadTiers::Match m = tiers.Find(a, 0, 4196);
  EXPECT_EQ(m.tokens, 4096);
  EXPECT_EQ(m.per_tier[0], 4096);
  const int64_t load_ns = 469'762'048LL * 1'000'000'000LL / 64'000'000'000LL;
  EXPECT_EQ(load_ns, 7'340'032);
  EXPECT_EQ(tiers.Commit(a, m, 0, 4196, 0), load_ns);
  EXPECT_EQ(tiers.Commit(b, tiers.Find(b, 0, 4196), 0, 4196, 1'000'000), 2 * load_ns);
  EXPECT_EQ(tiers.stats().load_wait_ns, load_ns + (2 * load_ns - 1'000'000));
  EXPECT_DOUBLE_EQ(tiers.stats().tiers[0].bytes_read, 2 * 469'762'048.0);
}

// Chunks of 256 tokens (OffloadingConnector's block_size extra config) and a GPU prefix hit of 96
// tokens: the load starts inside chunk 0 and brings 256 - 96 = 160 tokens of it and chunks 1..15
// (a load stops before the chunk holding the last prompt token: (4,196 - 1) / 256 = 16 chunks at
// most), 160 + 15 x 256 = 4,000 tokens = 458,752,000 B over 64 GB/s = 7,168,000 ns. Less than one
// chunk is not worth a load: with 160 of a stored 256-token prefix already on the GPU, the other 96
// are computed.
TEST(KvTierLoadTest, ChunkGranularityAndAGpuHitInsideTheFirstChunk) {
  OffloadConfig c = HostOnly(8.0 * (1 << 30));
  c.chunk_tokens = 256;
  OffloadTiers tiers(c, kBlock, kQwen06BytesPerToken);
  const std::vector<BlockKey> a = Keys(Ids(1, 9), 4196);
  tiers.StorePrompt(a, 0, 4096);
  const OffloadTiers::Match m = tiers.Find(a, 96, 4196);
  EXPECT_EQ(m.tokens, 4000);
  EXPECT_EQ(tiers.Commit(a, m, 96, 4196, 0), 7'168'000);  // 4,000 x 114,688 / 64e9 s
  OffloadTiers small(c, kBlock, kQwen06BytesPerToken);
  const std::vector<BlockKey> s = Keys(Ids(201, 1), 400);
  small.StorePrompt(s, 0, 256);
  EXPECT_EQ(small.Find(s, 160, 400).tokens, 0);
  EXPECT_EQ(small.Find(s, 0, 400).tokens, 256);
}

// A host tier of 128 chunks (16 tokens each) above a disk tier (5 GB/s read, 100 µs per load):
// storing chunks 0..255 writes every one to both tiers and the host keeps the last 128 (LRU). The
// load takes chunks 0..127 from disk and 128..255 from host, each tier's part timed on its own:
// host 2,048 x 114,688 B / 64e9 = 3,670,016 ns; disk 100,000 + 234,881,024 B / 5e9 = 46,976,204.8
// -> 46,976,205 ns; together 50,746,221 ns.
TEST(KvTierLoadTest, ALoadSpanningHostAndDiskSumsEachTiersPart) {
  OffloadConfig c;
  c.tiers.push_back(TierSpec{TierKind::kHost, 128 * kBlock * kQwen06BytesPerToken, kH100HostLink, kH100HostLink, 0});
  c.tiers.push_back(TierSpec{TierKind::kDisk, 64.0 * (1 << 30), 5e9, 5e9, 100'000});
  OffloadTiers tiers(c, kBlock, kQwen06BytesPerToken);
  const std::vector<BlockKey> a = Keys(Ids(1, 9), 4196);
  tiers.StorePrompt(a, 0, 4096);
  const OffloadTiers::Match m = tiers.Find(a, 0, 4196);
  EXPECT_EQ(m.per_tier[0], 2048);
  EXPECT_EQ(m.per_tier[1], 2048);
  EXPECT_EQ(tiers.Commit(a, m, 0, 4196, 0), 3'670'016 + 100'000 + 46'976'205);
}

// A timer that records the work of every step and lasts 1 ms each.
struct RecordingTimer final : StepTimer {
  mutable std::vector<StepWork> steps;
  FixedStepTimer fixed{1'000'000};
  int64_t StepNs(const StepWork& w) const override {
    steps.push_back(w);
    return 1'000'000;
  }
  std::unique_ptr<DecodeRunTimer> DecodeRun(int64_t sequences) const override { return fixed.DecodeRun(sequences); }
  std::string Describe() const override { return "recording"; }
};

struct Recorder final : ReplayObserver {
  std::map<uint64_t, RequestRecord> done;
  void OnRequestDone(const RequestRecord& r) override { done[r.id] = r; }
};

TraceRequest Request(uint64_t id, int64_t arrival_ns, std::vector<uint64_t> ids) {
  TraceRequest r;
  r.id = id;
  r.arrival_ns = arrival_ns;
  r.prompt_tokens = 4196;
  r.output_tokens = 1;
  r.block_ids = std::move(ids);
  r.block_id_tokens = kTraceBlock;
  return r;
}

// The engine's part: two requests arrive together on an idle replica whose host tier holds both
// 4,096-token prefixes (GPU cache empty). Both are admitted at 0 with their blocks reserved and wait;
// their loads queue on the copy stream and end at 7,340,032 and 14,680,064 ns. Nothing runs until the
// first ends; then one step (1 ms) computes its 100 new tokens over the 4,096 loaded ones and samples:
// TTFT 8,340,032 ns. The second's step starts when its load ends: TTFT 15,680,064 ns.
TEST(KvTierLoadTest, TtftIsTheQueuedLoadThenOneStepOfTheSuffix) {
  RecordingTimer timer;
  PagedAllocatorOptions po;
  po.num_blocks = 1001;
  po.block_size = kBlock;
  po.enable_prefix_caching = true;
  PagedAllocator allocator(po);
  EngineOptions eo;
  eo.max_num_batched_tokens = 8192;
  eo.max_model_len = 8192;
  eo.block_size = kBlock;
  eo.prefix_caching = true;
  Recorder rec;
  ReplayEngine engine(eo, allocator, timer, {&rec});
  OffloadTiers tiers(HostOnly(8.0 * (1 << 30)), kBlock, kQwen06BytesPerToken);
  tiers.StorePrompt(Keys(Ids(1, 9), 4196), 0, 4096);
  tiers.StorePrompt(Keys(Ids(101, 9), 4196), 0, 4096);
  engine.SetOffloadTiers(&tiers);
  testing::VectorSource source({Request(1, 0, Ids(1, 9)), Request(2, 0, Ids(101, 9))});
  std::unique_ptr<Router> router = MakeRouter(RouterKind::kRoundRobin, 1);
  RunEventLoop({LoopReplica{&engine, 1000, kBlock}}, *router, source, {});
  ASSERT_EQ(rec.done.size(), 2u);
  EXPECT_EQ(rec.done[1].admitted_ns, 0);
  EXPECT_EQ(rec.done[2].admitted_ns, 0);
  EXPECT_EQ(rec.done[1].first_token_ns, 7'340'032 + 1'000'000);
  EXPECT_EQ(rec.done[2].first_token_ns, 2 * 7'340'032 + 1'000'000);
  ASSERT_EQ(timer.steps.size(), 2u);
  for (const StepWork& w : timer.steps) {
    EXPECT_EQ(w.new_tokens, 100);
    EXPECT_EQ(w.context_tokens, 4096);
    EXPECT_EQ(w.sequences, 1);
  }
  EXPECT_EQ(tiers.stats().loads, 2);
  EXPECT_EQ(tiers.stats().tiers[0].hit_tokens, 2 * 4096);
}

// The engine of TtftIsTheQueuedLoadThenOneStepOfTheSuffix, told how long a step with no forward
// takes (`idle_step_ns`) and whether the scheduler runs a step ahead (async scheduling).
struct TierReplay {
  RecordingTimer timer;
  PagedAllocator allocator;
  Recorder rec;
  OffloadTiers tiers{HostOnly(8.0 * (1 << 30)), kBlock, kQwen06BytesPerToken};
  std::unique_ptr<ReplayEngine> engine;
  static PagedAllocatorOptions Pool() {
    PagedAllocatorOptions po;
    po.num_blocks = 1001;
    po.block_size = kBlock;
    po.enable_prefix_caching = true;
    return po;
  }
  TierReplay(int64_t idle_step_ns, bool async) : allocator(Pool()) {
    EngineOptions eo;
    eo.max_num_batched_tokens = 8192;
    eo.max_model_len = 8192;
    eo.block_size = kBlock;
    eo.prefix_caching = true;
    eo.idle_step_ns = idle_step_ns;
    eo.async_scheduling = async;
    engine = std::make_unique<ReplayEngine>(eo, allocator, timer, std::vector<ReplayObserver*>{&rec});
    engine->SetOffloadTiers(&tiers);
  }
  void Run(std::vector<TraceRequest> requests) {
    testing::VectorSource source(std::move(requests));
    std::unique_ptr<Router> router = MakeRouter(RouterKind::kRoundRobin, 1);
    RunEventLoop({LoopReplica{engine.get(), 1000, kBlock}}, *router, source, {});
  }
};

// vLLM's worker reports a finished load from get_finished after a step; an idle engine keeps taking
// steps with no forward (here 0.3 ms of host work each, from 0). The first load ends at 7,340,032 ns,
// inside the 25th such step (7.2-7.5 ms): seen at 7,500,000, and its 1 ms step ends at 8,500,000.
// The second ends at 14,680,064; the idle steps restart after that step, at 8,500,000: the 21st ends
// at 8,500,000 + 21 x 300,000 = 14,800,000, its step at 15,800,000. Async scheduling changes nothing
// here: vLLM waits for a step that computes nothing at once, before the next schedule().
TEST(KvTierLoadTest, AnIdleEngineSeesALoadAtTheEndOfTheStepItEndsIn) {
  for (const bool async : {false, true}) {
    TierReplay r(300'000, async);
    r.tiers.StorePrompt(Keys(Ids(1, 9), 4196), 0, 4096);
    r.tiers.StorePrompt(Keys(Ids(101, 9), 4196), 0, 4096);
    r.Run({Request(1, 0, Ids(1, 9)), Request(2, 0, Ids(101, 9))});
    ASSERT_EQ(r.rec.done.size(), 2u);
    EXPECT_EQ(r.rec.done[1].first_token_ns, 8'500'000) << "async " << async;
    EXPECT_EQ(r.rec.done[2].first_token_ns, 15'800'000) << "async " << async;
  }
}

// A busy engine: request 1 (not in the tier) prefills in the first 1 ms step and then decodes, one
// 1 ms step each; request 2's load (7,340,032 ns) ends inside step 8 (7-8 ms), whose get_finished
// reports it. Synchronous scheduling runs it in the next step (8-9 ms); async scheduling had already
// planned that step while step 8 ran, so it runs in 9-10 ms. No idle step is taken.
TEST(KvTierLoadTest, ABusyEngineRunsALoadedRequestAfterTheStepThatReportedIt) {
  for (const bool async : {false, true}) {
    TierReplay r(300'000, async);
    r.tiers.StorePrompt(Keys(Ids(101, 9), 4196), 0, 4096);
    TraceRequest decoder = Request(1, 0, Ids(1, 9));
    decoder.output_tokens = 20;
    r.Run({decoder, Request(2, 0, Ids(101, 9))});
    ASSERT_EQ(r.rec.done.size(), 2u);
    EXPECT_EQ(r.rec.done[1].first_token_ns, 1'000'000) << "async " << async;
    EXPECT_EQ(r.rec.done[2].first_token_ns, async ? 10'000'000 : 9'000'000) << "async " << async;
  }
}

}  // namespace
}  // namespace kvsim
