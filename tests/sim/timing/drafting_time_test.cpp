// A step's drafting as vLLM's EagleProposer.propose() runs it (DraftingTimer), against figures
// derived by hand: the EAGLE head's KV bytes per token from its config, the first pass's query and
// key counts, the H100 datasheet bandwidth, and the host launches and ops counted in eagle.py and
// the model runner.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/deployment.h"
#include "kvcache/model/model_catalog.h"
#include "sim/run/speculation_setup.h"
#include "sim/timing/drafting_prologue.h"
#include "sim/timing/speculative_step.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

constexpr double kH100Bandwidth = 3.35e12;  // H100 SXM5 datasheet, 3.35 TB/s (data/gpus.csv)

struct Eagle {
  Deployment d;
  CapacityResult cap;
  std::unique_ptr<DraftingTimer> timer;
};

// Llama-3.1-8B-Instruct on one H100 with an EAGLE-1 head (yuhuili/EAGLE-LLaMA3.1-Instruct-8B: one
// Llama decoder layer) drafting k tokens, CUDA graphs on unless the release or `extra` keys say not.
Eagle EagleOnH100(int64_t k, const std::string& vllm_version = "latest", const std::string& extra = "") {
  DeploymentOptions o;
  o.model = "meta-llama/Llama-3.1-8B-Instruct";
  o.gpu = "h100";
  o.max_model_len = "8192";
  o.vllm_version = vllm_version;
  o.speculative_config =
      "{\"method\":\"eagle\",\"num_speculative_tokens\":" + std::to_string(k) + extra + "}";
  Eagle e{ResolveDeployment(o, DataDirectory()), {}, nullptr};
  e.cap = PlanCapacity(e.d.model, e.d.gpu, e.d.config);
  e.timer = MakeProposerTimer(e.d, e.cap, StepModelOptions{});
  return e;
}

StepWork OneTokenEach(int64_t seqs, int64_t context) {
  StepWork w;
  w.Add(1, context, seqs);
  return w;
}

// k = 2, one request at context 4,096. The first pass runs the 3 tokens the target just verified
// (the last sampled token and both drafts) through the head: 3·4,096 + (1 + 2 + 3) = 12,294 causal
// pairs. Its one attention layer reads the head's own KV cache: 2 (K, V) × 8 KV heads × 128 × 2
// bytes = 4,096 bytes per token, over 4,096 + 3 tokens, and writes 3 query rows of q and v width
// (2 × 4,096 × 2 bytes each). GQA decode has a fixed cost of 550 tokens of reads per sequence
// (KernelEfficiency, FlashInfer's measurements); at 93% of 3.35 TB/s that is
// ((4,099 + 550)·4,096 + 3·16,384) / (0.93 · 3.35e12) = 6.128 µs, far above its
// 2·8,192·12,294 = 201 MFLOP at 55% of 989 TFLOPS (0.37 µs), plus the 3 µs kernel floor.
TEST(DraftingTimeTest, FirstPassAttendsTheHeadsOwnKvOverTheWholeContext) {
  const Eagle e = EagleOnH100(2);
  ASSERT_NE(e.timer, nullptr);
  const DraftingTime t = e.timer->Time(OneTokenEach(1, 4096));
  EXPECT_EQ(t.first_work.new_tokens, 3);
  EXPECT_EQ(t.first_work.sequences, 1);
  EXPECT_EQ(t.first_work.context_tokens, 4096);
  EXPECT_EQ(t.first_work.attended, 3 * 4096 + 6);
  const double reads = (4099.0 + 550.0) * 4096.0 + 3.0 * 16384.0;
  EXPECT_NEAR(t.first_pass.attention, reads / (0.93 * kH100Bandwidth) + 3e-6, 1e-9);
  // The head's logits are computed for each request's last position only (compute_logits on
  // last_token_indices): the first pass's lm_head is the later passes' one row per request.
  EXPECT_DOUBLE_EQ(t.first_pass.lm_head, t.later_pass.lm_head);
  EXPECT_EQ(t.later_passes, 1);
}

// One pass's host preparation runs with the GPU idle: EAGLE-1 with one layer launches 15 input
// updates, 2 per attention layer and the logits GEMM and argmax outside the graph (19 × 4 µs), and
// replays 2 graph pieces (2 × 20 µs): 116 µs, the KernelEfficiency launch figures. Before it, the
// drafting prologue (the test below): 117 µs.
TEST(DraftingTimeTest, OnePassHostPreparationIsExposedPerStep) {
  const Eagle e = EagleOnH100(2);
  const DraftingTime t = e.timer->Time(OneTokenEach(1, 180));
  EXPECT_NEAR(t.prologue_s, 117e-6, 1e-12);
  EXPECT_NEAR(t.exposed_host_s, 19 * 4e-6 + 2 * 20e-6 + 117e-6, 1e-12);
  EXPECT_NEAR(t.total(), t.first_pass.total() + t.later_pass.total() + t.exposed_host_s, 1e-15);
}

// The prologue counted from vLLM's v0.9-line model runner and propose() (drafting_prologue.h).
// EAGLE-1: model runner 1 + 2 + 3 + 1 = 7 ops, prepare_inputs 5, propose 1 + 2 + 3 + (2 + 3) + 2 =
// 13: 25 ops at 4 µs = 100 µs; prepare_eagle_input_kernel at the 11 µs Triton launch; two .item()
// read-backs at the 3 µs kernel floor each: 117 µs. EAGLE-3 gathers three hidden states and joins
// them (4 ops instead of 1) and runs its fc (1): 29 ops, 133 µs.
TEST(DraftingTimeTest, PrologueCountsTheOpsBeforeTheFirstPass) {
  const KernelEfficiency e;
  const DraftingPrologue eagle = EagleDraftingPrologue(false), eagle3 = EagleDraftingPrologue(true);
  EXPECT_EQ(eagle.torch_ops, 25);
  EXPECT_EQ(eagle3.torch_ops, 29);
  EXPECT_EQ(eagle.triton_launches, 1);
  EXPECT_EQ(eagle.host_syncs, 2);
  EXPECT_NEAR(eagle.Seconds(e, 11e-6), 25 * 4e-6 + 11e-6 + 2 * 3e-6, 1e-15);
  EXPECT_NEAR(eagle3.Seconds(e, 11e-6), 29 * 4e-6 + 11e-6 + 2 * 3e-6, 1e-15);
}

// EAGLE-3 (the head in data/validation/features/spec_decode: one layer, draft vocabulary 32,000)
// with k = 2, one request at context 180 on an H100, term by term: the host with the GPU idle is the
// prologue (133 µs, above) and one pass's preparation: 15 input updates + 4 for the draft-to-target
// vocabulary scatter, 2 attention-op kernels and the logits GEMM and argmax outside the graph (23 × 4
// µs) and 2 graph replays (2 × 20 µs): 132 µs. The drafting is the first pass over 3 tokens, one
// later pass of 1 token and those 265 µs.
TEST(DraftingTimeTest, Eagle3StepDraftingTermByTerm) {
  DeploymentOptions o;
  o.model = "meta-llama/Llama-3.1-8B-Instruct";
  o.gpu = "h100";
  o.max_model_len = "4096";
  o.speculative_config = "{\"method\":\"eagle3\",\"model\":\"" + DataDirectory() +
                         "/validation/features/spec_decode/EAGLE3-LLaMA3.1-Instruct-8B.json\",\"num_speculative_tokens\":2}";
  const Deployment d = ResolveDeployment(o, DataDirectory());
  const CapacityResult cap = PlanCapacity(d.model, d.gpu, d.config);
  const std::unique_ptr<DraftingTimer> timer = MakeProposerTimer(d, cap, StepModelOptions{});
  ASSERT_NE(timer, nullptr);
  const DraftingTime t = timer->Time(OneTokenEach(1, 180));
  EXPECT_NEAR(t.prologue_s, 133e-6, 1e-12);
  EXPECT_NEAR(t.exposed_host_s, 133e-6 + 23 * 4e-6 + 2 * 20e-6, 1e-12);
  EXPECT_EQ(t.first_work.new_tokens, 3);
  EXPECT_EQ(t.later_passes, 1);
  EXPECT_NEAR(t.total(), t.first_pass.total() + t.later_pass.total() + 265e-6, 1e-12);
  // The later pass's logits GEMM streams the 32,000-row lm_head (32,000 x 4,096 x 2 bytes) with the
  // hidden state in and one row of logits out, at 80% of 3.35 TB/s, plus the 5 us GEMM floor: 97.8 us
  // + 5 us, whatever the context (its GPU time is what the pass's host work hides behind).
  double lm_head = -1;
  for (const OperatorCost& op : timer->pass().Operators(t.later_work))
    if (op.name == "lm_head") lm_head = op.seconds;
  const double bytes = 32000.0 * 4096 * 2 + 4096 * 2 + 32000 * 2;
  EXPECT_NEAR(lm_head, bytes / (0.80 * kH100Bandwidth) + 5e-6, 1e-9);
}

// The engine asks for one pass at a time and multiplies by the passes: k × StepNs is the step's
// drafting to within the rounding of each pass (k ns).
TEST(DraftingTimeTest, PassesTimesStepNsIsTheStepsDrafting) {
  for (const int64_t k : {1, 2, 4, 7}) {
    const Eagle e = EagleOnH100(k);
    for (const int64_t seqs : {1, 8, 64}) {
      const StepWork w = OneTokenEach(seqs, 2000);
      const double drafting_ns = e.timer->Time(w).total() * 1e9;
      EXPECT_NEAR(static_cast<double>(k * e.timer->StepNs(w)), drafting_ns, static_cast<double>(k)) << k << " " << seqs;
      EXPECT_EQ(e.timer->passes(), k);
    }
  }
}

// With k = 1 there is no later pass: the drafting is the first pass over 2 tokens per request and
// the exposed preparation.
TEST(DraftingTimeTest, OneDraftIsOnePassOverTwoTokens) {
  const Eagle e = EagleOnH100(1);
  const DraftingTime t = e.timer->Time(OneTokenEach(4, 1000));
  EXPECT_EQ(t.later_passes, 0);
  EXPECT_EQ(t.first_work.new_tokens, 8);
  EXPECT_EQ(t.first_work.attended, 2 * 4000 + 4 * 3);
  EXPECT_NEAR(t.total(), t.first_pass.total() + t.exposed_host_s, 1e-15);
}

// Before v0.9.0 (PR #17211 put the EAGLE head under torch.compile and CUDA graphs) and with the
// drafter's own "enforce_eager", every kernel of a pass is launched from Python. The exposed host
// work is then one pass's launches: its 15 input updates and the forward's 17 kernels (one layer:
// 2 norms, rope, attention, the activation, 4 GEMMs, the fc, the final norm, the
// embedding, and the logits GEMM with 4 sampler kernels), 32 x 4 us, and the prologue's 117 us.
// The graphed pass (v0.9 on) exposes 116 us instead of 128.
TEST(DraftingTimeTest, EagerDrafterBeforeTheGraphedReleases) {
  const StepWork w = OneTokenEach(1, 180);
  const double eager = (15 + 17) * 4e-6 + 117e-6, graphed = 19 * 4e-6 + 2 * 20e-6 + 117e-6;
  EXPECT_NEAR(EagleOnH100(2, "0.8.4").timer->Time(w).exposed_host_s, eager, 1e-12);
  EXPECT_NEAR(EagleOnH100(2, "0.9.0").timer->Time(w).exposed_host_s, graphed, 1e-12);
  EXPECT_NEAR(EagleOnH100(2, "latest", ",\"enforce_eager\":true").timer->Time(w).exposed_host_s, eager, 1e-12);
  EXPECT_NEAR(EagleOnH100(2, "latest", ",\"enforce_eager\":false").timer->Time(w).exposed_host_s, graphed, 1e-12);
}

}  // namespace
}  // namespace kvsim
