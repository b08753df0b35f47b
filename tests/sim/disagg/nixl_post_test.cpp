// NixlConnector's per-request control path on the decode side (sim/disagg/kv_connector.h): the decode
// worker posts each request's READ on the host before its step's forward, one descriptor per KV region
// per block, at the rate vllm#50913 measured (6.7 ms for 1,785 descriptors, vLLM v0.14.0). The figures
// are derived in the comments from the model's config.json, vLLM's block size and the link's stated
// rate; steps are fixed (10 ms) so that each term stands alone.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <vector>

#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/deployment.h"
#include "kvcache/model/model_catalog.h"
#include "sim/disagg/disagg_runner.h"
#include "sim/disagg/kv_connector.h"
#include "sim/run/replay_setup.h"
#include "sim/run/request_sources.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

constexpr int64_t kMs = 1'000'000;
// Qwen3-0.6B (data/models/Qwen/Qwen3-0.6B.json): 28 layers, each with its own K and V (no MLA), so
// a rank registers 56 regions; 8 KV heads of 128 in bf16 = 114,688 B of KV per token at TP 1.
constexpr int64_t kRegions = 56;
constexpr int64_t kBytesPerTokenTp1 = 2LL * 28 * 8 * 128 * 2;
// vLLM's CUDA block size is 16 tokens.
constexpr int64_t kBlock = 16;
// vllm#50913: 6.7 ms per 1,785 descriptors.
int64_t PostNs(int64_t descriptors) { return std::llround(static_cast<double>(descriptors) * 6.7e6 / 1785); }

struct Recorder final : ReplayObserver {
  std::map<uint64_t, RequestRecord> done;
  std::vector<StepSample> decode_steps;
  void OnStep(const StepSample& s) override { decode_steps.push_back(s); }
  void OnRequestDone(const RequestRecord& r) override { done[r.id] = r; }
};

Deployment Qwen06(int tp) {
  DeploymentOptions o;
  o.model = "Qwen/Qwen3-0.6B";
  o.gpu = "h100";
  o.max_model_len = "8192";
  o.tensor_parallel_size = tp;
  o.max_num_batched_tokens = "2048";
  return ResolveDeployment(o, DataDirectory());
}

TraceRequest Request(uint64_t id, int64_t arrival_ns, int64_t prompt, int64_t output) {
  TraceRequest r;
  r.id = id;
  r.arrival_ns = arrival_ns;
  r.prompt_tokens = prompt;
  r.output_tokens = output;
  return r;
}

std::unique_ptr<Recorder> RunPd(const DisaggDeployment& dd, std::vector<TraceRequest> requests, ReplaySummary* summary) {
  auto rec = std::make_unique<Recorder>();
  ReplayOptions r;
  r.timer.fixed_step_ms = 10;
  r.trace_format = TraceFormat::kAzure;  // requests without block ids: no prefix keys
  auto trace = std::make_shared<PreloadedTrace>();
  trace->requests = std::move(requests);
  trace->description = "hand-made";
  ReplayHooks hooks;
  hooks.preloaded = trace;
  hooks.observers = {rec.get()};
  *summary = RunDisaggregatedReplay(dd, r, hooks).summary;
  return rec;
}

// P prefill instances at TP 1 and one decode instance at TP 2 over a 10 GB/s link with 5 µs of
// latency, NixlConnector.
DisaggDeployment Nixl(int64_t prefill_replicas) {
  DisaggDeployment dd;
  dd.prefill = Qwen06(1);
  dd.decode = Qwen06(2);
  dd.prefill_replicas = prefill_replicas;
  dd.link = ParseKvLink("10,5");
  dd.connector = KvConnectorKind::kNixl;
  return dd;
}

// Transfer of `tokens` over the link: tokens x the busiest GPU's 114,688 B / 10 GB/s + 5 µs.
int64_t TransferNs(int64_t tokens) {
  return std::llround(static_cast<double>(tokens * kBytesPerTokenTp1) / 10e9 * 1e9) + 5'000;
}

TEST(NixlPostTest, DescriptorsAreBlocksTimesRegionsTimesReads) {
  const DisaggDeployment dd = Nixl(1);
  const CapacityResult p = PlanCapacity(dd.prefill.model, dd.prefill.gpu, dd.prefill.config);
  const CapacityResult d = PlanCapacity(dd.decode.model, dd.decode.gpu, dd.decode.config);
  // TP 1 -> TP 2: each decode rank reads its heads from the one prefill rank.
  const NixlReadShape up = NixlReadShapeOf(dd.decode.model, p.settings, d.settings);
  EXPECT_EQ(up.block_size, kBlock);
  EXPECT_EQ(up.regions, kRegions);
  EXPECT_EQ(up.reads_per_rank, 1);
  // 4,095 tokens fill 256 blocks (255 full, one of 15): 256 x 56 = 14,336 descriptors.
  EXPECT_EQ(NixlDescriptors(up, 4095), 14'336);
  // TP 2 -> TP 1: the decode rank reads half its heads from each of two prefill ranks.
  const NixlReadShape down = NixlReadShapeOf(dd.decode.model, d.settings, p.settings);
  EXPECT_EQ(down.reads_per_rank, 2);
  EXPECT_EQ(NixlDescriptors(down, 4095), 28'672);
  // 1,785 descriptors take the 6.7 ms vllm#50913 measured; 14,336 take 53,810,196 ns.
  EXPECT_EQ(NixlPostNs(1785), 6'700'000);
  EXPECT_EQ(NixlPostNs(14'336), 53'810'196);
  EXPECT_EQ(NixlPostNs(0), 0);
  EXPECT_THROW(ParseKvConnector("mooncake"), Error);
  EXPECT_EQ(ParseKvConnector("push"), KvConnectorKind::kPush);
}

// Two 4,096-token requests arrive together at 0; each wants 3 output tokens. Steps last 10 ms.
// Request 1, term by term:
//   prefill            20 ms   (two steps of 2,048 tokens; the second samples the proxy's one token)
//   decode admission   0       (the idle decode instance admits it at 20 ms)
//   posting the read   53,810,196 ns: 4,095 tokens = 256 blocks x 56 regions = 14,336 descriptors
//                      x 6.7 ms / 1,785 (the worker posts before the link starts)
//   transfer           46,969,736 ns: 4,095 x 114,688 B / 10 GB/s + 5 µs
//   first decode step  10 ms
//   TTFT               130,779,932 ns
// Request 2 is handed over at 40 ms; its read is posted when the worker's host is done with request
// 1's (73,810,196 ns), until 127,620,392; the link is free by then (request 1's transfer ended at
// 120,779,932), so its KV is there at 127,620,392 + 46,969,736 = 174,590,128 and its first token at
// 184,590,128 ns. Request 1 decodes its three tokens at 120.78..150.78 ms in between. The posts
// delay no decode step: each was made in a step that ran nothing but the connector.
TEST(NixlPostTest, TtftTermByTermWithThePost) {
  ReplaySummary summary;
  const auto rec = RunPd(Nixl(1), {Request(1, 0, 4096, 3), Request(2, 0, 4096, 3)}, &summary);
  ASSERT_EQ(rec->done.size(), 2u);
  const int64_t post = PostNs(256 * kRegions), transfer = TransferNs(4095);
  EXPECT_EQ(post, 53'810'196);
  EXPECT_EQ(transfer, 46'969'736);
  const RequestRecord& a = rec->done.at(1);
  EXPECT_EQ(a.admitted_ns, 20 * kMs);
  EXPECT_EQ(a.first_token_ns, 20 * kMs + post + transfer + 10 * kMs);
  EXPECT_EQ(a.first_token_ns, 130'779'932);
  EXPECT_EQ(a.finished_ns, a.first_token_ns + 20 * kMs);
  const RequestRecord& b = rec->done.at(2);
  EXPECT_EQ(b.first_token_ns, 20 * kMs + post + post + transfer + 10 * kMs);
  EXPECT_EQ(b.first_token_ns, 184'590'128);
  for (const StepSample& s : rec->decode_steps) EXPECT_EQ(s.duration_ns, 10 * kMs);
  ASSERT_NE(summary.disagg, nullptr);
  EXPECT_EQ(summary.disagg->connector, "nixl");
  EXPECT_NEAR(summary.disagg->mean_post_s, static_cast<double>(post) * 1e-9, 1e-6);
  EXPECT_NEAR(summary.disagg->mean_transfer_s, static_cast<double>(transfer) * 1e-9, 1e-6);
}

// Request 1 alone with a pushing connector (P2pNcclConnector): the decode worker posts nothing, and TTFT is request 1's 20 ms of prefill + the transfer + a 10 ms step.
TEST(NixlPostTest, APushingConnectorPostsNothing) {
  DisaggDeployment dd = Nixl(1);
  dd.connector = KvConnectorKind::kPush;
  ReplaySummary summary;
  const auto rec = RunPd(dd, {Request(1, 0, 4096, 3)}, &summary);
  EXPECT_EQ(rec->done.at(1).first_token_ns, 20 * kMs + TransferNs(4095) + 10 * kMs);
  EXPECT_EQ(summary.disagg->connector, "push");
  EXPECT_EQ(summary.disagg->mean_post_s, 0);
}

// A decode step's connector cost at two reads posted in it. Request 1 (1,024 tokens, 40 outputs)
// decodes alone in 10 ms steps; requests 2 and 3 (1,024 tokens each) arrive together at 50 ms, go to
// the two prefill instances, finish their one-step prefills at 60 ms and are handed over together.
// The decode step that admits them posts both reads before its forward: 1,023 tokens = 64 blocks x
// 56 regions = 3,584 descriptors each, 13,452,549 ns to post, so that step lasts
// 10 ms + 2 x 13,452,549 = 36,905,098 ns (the other steps 10 ms). Request 2's transfer (1,023 x
// 114,688 B / 10 GB/s + 5 µs = 11,737,582 ns) starts when its read is posted, 13,452,549 ns into the
// step; request 3's read is posted second, at 26,905,098 ns, and its transfer starts then (request
// 2's has the link until 25,190,131). Request 2's KV is there before the long step ends, so it samples
// its first token in the next step; request 3's (at 38,642,680) arrives during that next step, so it
// samples in the one after.
TEST(NixlPostTest, AStepPostingTwoReadsIsLongerByBoth) {
  ReplaySummary summary;
  const auto rec =
      RunPd(Nixl(2), {Request(1, 0, 1024, 40), Request(2, 50 * kMs, 1024, 2), Request(3, 50 * kMs, 1024, 2)}, &summary);
  ASSERT_EQ(rec->done.size(), 3u);
  const int64_t post = PostNs(64 * kRegions), transfer = TransferNs(1023);
  EXPECT_EQ(post, 13'452'549);
  EXPECT_EQ(transfer, 11'737'582);
  EXPECT_EQ(rec->done.at(2).admitted_ns, rec->done.at(3).admitted_ns);  // handed over together
  int long_steps = 0;
  int64_t step_start = -1;
  for (const StepSample& s : rec->decode_steps) {
    if (s.duration_ns == 10 * kMs) continue;
    ++long_steps;
    step_start = s.start_ns;
    EXPECT_EQ(s.duration_ns, 10 * kMs + 2 * post);
    EXPECT_EQ(s.duration_ns, 36'905'098);
  }
  EXPECT_EQ(long_steps, 1);
  // Each request's KV is there when its transfer ends; it then waits for the step in progress to
  // finish, and samples its first token in the next step.
  const int64_t ready2 = step_start + post + transfer, ready3 = step_start + 2 * post + transfer;
  const int64_t long_end = step_start + 10 * kMs + 2 * post;
  EXPECT_LT(ready2, long_end);
  EXPECT_GT(ready3, long_end);
  EXPECT_EQ(rec->done.at(2).first_token_ns, long_end + 10 * kMs);
  EXPECT_EQ(rec->done.at(3).first_token_ns, long_end + 20 * kMs);  // ready during the 10 ms step after
}

}  // namespace
}  // namespace kvsim
