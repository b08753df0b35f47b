// One prefill/decode request's TTFT term by term (sim/disagg/disagg_runner.h): the prefill pool's
// queueing and steps, the handoff to the decode pool, the decode side's admission, the KV transfer
// over the stated link (bytes = layers x tokens x KV heads x head_dim x 2 x dtype bytes, the busiest
// GPU's share, kv_link.h), its queueing behind another transfer, and the decode step that computes
// the last prompt token and samples. The figures are derived in the comments from the model's
// config.json and the link's stated rate; steps are fixed (10 ms) so that each term stands alone,
// and one case with the per-operator step model checks that the steps it times add up to the TTFT.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <vector>

#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/deployment.h"
#include "kvcache/model/model_catalog.h"
#include "sim/disagg/disagg_runner.h"
#include "sim/run/replay_setup.h"
#include "sim/run/request_sources.h"
#include "sim/timing/step_model.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

constexpr int64_t kMs = 1'000'000;
// Qwen3-0.6B (data/models/Qwen/Qwen3-0.6B.json): 28 layers, 8 KV heads of 128, bf16:
// 2 x 28 x 8 x 128 x 2 B = 114,688 B of KV per token; at TP 2 each GPU holds 4 heads, 57,344 B.
constexpr int64_t kBytesPerTokenTp1 = 2LL * 28 * 8 * 128 * 2;

struct Recorder final : ReplayObserver {
  std::map<uint64_t, RequestRecord> done;
  std::vector<StepSample> decode_steps;
  void OnStep(const StepSample& s) override { decode_steps.push_back(s); }
  void OnRequestDone(const RequestRecord& r) override { done[r.id] = r; }
};

Deployment Qwen06(int tp, int64_t max_batched_tokens) {
  DeploymentOptions o;
  o.model = "Qwen/Qwen3-0.6B";
  o.gpu = "h100";
  o.max_model_len = "8192";
  o.tensor_parallel_size = tp;
  o.max_num_batched_tokens = std::to_string(max_batched_tokens);
  return ResolveDeployment(o, DataDirectory());
}

TraceRequest Request(uint64_t id, int64_t prompt, int64_t output) {
  TraceRequest r;
  r.id = id;
  r.arrival_ns = 0;
  r.prompt_tokens = prompt;
  r.output_tokens = output;
  return r;
}

struct PdRun {
  Recorder rec;
  ReplaySummary summary;
};

std::unique_ptr<PdRun> RunPd(const DisaggDeployment& dd, ReplayOptions r, std::vector<TraceRequest> requests) {
  auto run = std::make_unique<PdRun>();
  r.trace_format = TraceFormat::kAzure;  // requests without block ids: no prefix keys
  auto trace = std::make_shared<PreloadedTrace>();
  trace->requests = std::move(requests);
  trace->description = "hand-made";
  ReplayHooks hooks;
  hooks.preloaded = trace;
  hooks.observers = {&run->rec};
  run->summary = RunDisaggregatedReplay(dd, r, hooks).summary;
  return run;
}

// A 1P1D deployment: prefill TP 1 (2,048-token chunks), decode TP 2, a 10 GB/s link with 5 µs of
// latency per transfer, a pushing connector (P2pNcclConnector: the decode worker posts nothing, so
// the link's time stands alone; NIXL's post is nixl_post_test.cpp's).
DisaggDeployment OnePrefillOneDecode() {
  DisaggDeployment dd;
  dd.prefill = Qwen06(1, 2048);
  dd.decode = Qwen06(2, 2048);
  dd.link = ParseKvLink("10,5");
  dd.connector = KvConnectorKind::kPush;
  return dd;
}

// The per-GPU KV bytes the link moves come from the two pools' layouts: TP 1 holds all 114,688 B of a
// token, TP 2 half; with TP_p < TP_d each prefill GPU feeds two decode GPUs, so the busiest GPU moves
// the TP 1 share.
TEST(PdTtftTermsTest, TheLinkMovesTheBusiestGpusShare) {
  const DisaggDeployment dd = OnePrefillOneDecode();
  const CapacityResult p = PlanCapacity(dd.prefill.model, dd.prefill.gpu, dd.prefill.config);
  const CapacityResult d = PlanCapacity(dd.decode.model, dd.decode.gpu, dd.decode.config);
  EXPECT_DOUBLE_EQ(p.stages[p.bottleneck_stage].layout.bytes_per_token, kBytesPerTokenTp1);
  EXPECT_DOUBLE_EQ(d.stages[d.bottleneck_stage].layout.bytes_per_token, kBytesPerTokenTp1 / 2);
  EXPECT_DOUBLE_EQ(dd.link.bytes_per_s, 10e9);
  EXPECT_EQ(dd.link.latency_ns, 5'000);
}

// Two 4,096-token requests arrive together at 0; each wants 3 output tokens. Steps last 10 ms.
// Request 1, term by term:
//   prefill queueing   0        (first in an idle prefill instance)
//   prefill            20 ms    (two steps of 2,048 tokens; the second samples the proxy's one token)
//   handoff/control    0        (kvsim models no handshake or proxy hop, and a pushing connector posts
//                                nothing on the decode side: it gets the request when the prefill
//                                step ends)
//   decode admission   0        (an idle decode instance admits it at 20 ms, reserving its blocks)
//   transfer           46,969,736 ns: 4,095 tokens (the decode side computes the last one) x
//                      114,688 B = 469,647,360 B over 10 GB/s = 46,964,736 ns, + 5 µs latency
//   first decode step  10 ms    (the last prompt token, then sampling)
//   TTFT               76,969,736 ns
// Request 2 queues behind request 1 on the prefill instance (its two steps run 20..40 ms); its
// transfer is asked for at 40 ms but the link carries request 1's until 66,969,736 ns, so it ends at
// 66,969,736 + 46,969,736 = 113,939,472 ns. Request 1 decodes its three tokens at 66.97..96.97 ms;
// the decode instance then waits for request 2's KV, and one step later samples its first token:
// TTFT 123,939,472 ns = 20 (prefill queueing) + 20 (prefill) + 26,969,736 (link queueing)
// + 46,969,736 (transfer) + 10 (first decode step) ms.
TEST(PdTtftTermsTest, TtftIsPrefillTransferAndTheFirstDecodeStep) {
  ReplayOptions r;
  r.timer.fixed_step_ms = 10;
  const auto run = RunPd(OnePrefillOneDecode(), r, {Request(1, 4096, 3), Request(2, 4096, 3)});
  ASSERT_EQ(run->rec.done.size(), 2u);
  const int64_t transfer = 4095LL * kBytesPerTokenTp1 * 1'000'000'000LL / 10'000'000'000LL + 5'000;
  EXPECT_EQ(transfer, 46'969'736);
  const RequestRecord& a = run->rec.done.at(1);
  EXPECT_EQ(a.arrival_ns, 0);                             // the arrival at the prefill pool
  EXPECT_EQ(a.admitted_ns, 20 * kMs);                     // decode admission = prefill end
  EXPECT_EQ(a.first_token_ns, 20 * kMs + transfer + 10 * kMs);
  EXPECT_EQ(a.first_token_ns, 76'969'736);
  EXPECT_EQ(a.finished_ns, a.first_token_ns + 20 * kMs);  // two more 10 ms decode steps
  const RequestRecord& b = run->rec.done.at(2);
  EXPECT_EQ(b.first_token_ns, 20 * kMs + 20 * kMs + (20 * kMs + transfer - 40 * kMs) + transfer + 10 * kMs);
  EXPECT_EQ(b.first_token_ns, 123'939'472);
  // The decode pool's first step starts when request 1's KV is there.
  ASSERT_FALSE(run->rec.decode_steps.empty());
  EXPECT_EQ(run->rec.decode_steps.front().start_ns, 20 * kMs + transfer);
  ASSERT_NE(run->summary.disagg, nullptr);
  EXPECT_EQ(run->summary.disagg->transfers, 2);
  EXPECT_NEAR(run->summary.disagg->mean_transfer_s, 0.046969736, 1e-6);
  EXPECT_NEAR(run->summary.disagg->mean_link_wait_s, (20 * kMs + transfer - 40 * kMs) / 2.0 * 1e-9, 1e-6);
}

// With the per-operator step model the same request's TTFT is the prefill pool's two steps (2,048
// new tokens over 0 and over 2,048 cached), the transfer and the decode pool's step of one token over
// 4,095: the terms the two pools' step models give for that work, plus the hand-derived transfer,
// sum to the replay's TTFT exactly. The decode step reads at least each GPU's half of the decoder
// layers' weights once at the datasheet bandwidth: per layer q 1,024 x 2,048, k and v 1,024 x 1,024,
// o 2,048 x 1,024, MLP 3 x 1,024 x 3,072 = 15,728,640 parameters, x 28 layers x 2 B / 2 GPUs =
// 440,401,920 B over 3.35 TB/s = 131.5 µs; a prefill chunk is longer than the one-token step.
TEST(PdTtftTermsTest, PerOperatorStepsAndTheTransferSumToTheTtft) {
  const DisaggDeployment dd = OnePrefillOneDecode();
  ReplayOptions r;
  const auto run = RunPd(dd, r, {Request(1, 4096, 1)});
  ASSERT_EQ(run->rec.done.size(), 1u);
  const CapacityResult pc = PlanCapacity(dd.prefill.model, dd.prefill.gpu, dd.prefill.config);
  const CapacityResult dc = PlanCapacity(dd.decode.model, dd.decode.gpu, dd.decode.config);
  const StepModel prefill(dd.prefill.model, pc, dd.prefill.gpu, TimerOptions(dd.prefill, r));
  const StepModel decode(dd.decode.model, dc, dd.decode.gpu, TimerOptions(dd.decode, r));
  StepWork chunk1, chunk2, first;
  chunk1.Add(2048, 0);
  chunk2.Add(2048, 2048);
  first.Add(1, 4095);
  const int64_t p1 = prefill.StepNs(chunk1), p2 = prefill.StepNs(chunk2), d1 = decode.StepNs(first);
  const int64_t transfer = 46'969'736;
  EXPECT_EQ(run->rec.done.at(1).admitted_ns, p1 + p2);
  EXPECT_EQ(run->rec.done.at(1).first_token_ns, p1 + p2 + transfer + d1);
  const double weights_floor_ns = 15'728'640.0 * 28 * 2 / 2 / 3.35e12 * 1e9;
  EXPECT_GT(static_cast<double>(d1), weights_floor_ns);
  EXPECT_GT(p1, d1);
  EXPECT_GT(p2, p1);  // the second chunk also attends over the first
}

}  // namespace
}  // namespace kvsim
