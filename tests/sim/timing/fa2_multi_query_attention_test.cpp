// A speculative verify's attention on FlashAttention-2 (fa2_multi_query_attention.h), against figures
// derived by hand: the kernel's tile sizes from vllm-project/flash-attention's
// run_mha_fwd_splitkv_dispatch (64 query rows x 128 keys for head_dim 128), Llama-3.1-8B's shapes
// from its config (32 query heads, 8 KV heads, head_dim 128, 32 layers), and the A100-40GB and H100
// datasheets (data/gpus.csv: 312 TFLOPS bf16 dense, 1,555 GB/s, 108 SMs; Hopper).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>

#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/deployment.h"
#include "sim/run/speculation_setup.h"
#include "sim/timing/fa2_multi_query_attention.h"
#include "sim/timing/speculative_step.h"
#include "sim/timing/step_model.h"
#include "tests/testutil.h"
#include "tests/sim/timing/operator_costs.h"

namespace kvsim {
namespace {

constexpr double kA100Peak = 312e12, kA100Bandwidth = 1.555e12;
constexpr int kA100Sms = 108;
// KernelEfficiency defaults: FlashAttention-2 at 55% of the tensor peak, KV streamed at 93% of HBM,
// a 3 µs kernel floor, 550 tokens of reads per sequence for grouped decode.
constexpr double kAttentionCompute = 0.55, kAttentionMemory = 0.93, kFloor = 3e-6, kGroupedSeqTokens = 550;
// One layer's K and V per token: 2 × 8 KV heads × 128 × 2 bytes.
constexpr double kKvPerTokenLayer = 2.0 * 8 * 128 * 2;
// One tile: Q·K^T and P·V over 64 query rows × 128 keys × 128 dims, 2 FLOPs per multiply-add.
constexpr double kTileFlops = 4.0 * 64 * 128 * 128;

Fa2MultiQueryAttention Llama8bOnA100() {
  return Fa2MultiQueryAttention(32, 128, kA100Sms, kA100Peak * kAttentionCompute, kA100Bandwidth * kAttentionMemory,
                                kKvPerTokenLayer, kFloor);
}

// Batch 1, k = 1 (2 queries) at 4,096 cached tokens: 32 CTAs (one per query head) each walk
// ceil(4,098 / 128) = 33 tiles on their own SM at 312e12 × 0.55 / 108 FLOP/s: 87.1 µs, far above
// the 16.8 MB KV read (11.6 µs), plus the floor: 90.1 µs per layer.
TEST(Fa2MultiQueryAttentionTest, BatchOneIsTheTilesOfOneCtaOnOneSm) {
  const Fa2MultiQueryAttention fa2 = Llama8bOnA100();
  EXPECT_EQ(fa2.BlockN(), 128);
  const Fa2LayerTime t = fa2.Layer(1, 2, 4096);
  EXPECT_DOUBLE_EQ(t.ctas, 32);
  EXPECT_DOUBLE_EQ(t.tiles_per_cta, 33);
  EXPECT_DOUBLE_EQ(t.flops, 32 * 33 * kTileFlops);
  EXPECT_DOUBLE_EQ(t.kv_bytes, 4098 * kKvPerTokenLayer);
  const double per_cta = 33 * kTileFlops / (kA100Peak * kAttentionCompute / kA100Sms);
  EXPECT_NEAR(per_cta, 87.11e-6, 0.01e-6);
  EXPECT_NEAR(t.seconds, per_cta + kFloor, 1e-12);
}

// Eight requests: 256 CTAs on 108 SMs share them, 256/108 of one CTA's tiles per SM.
TEST(Fa2MultiQueryAttentionTest, MoreCtasThanSmsQueue) {
  const Fa2LayerTime t = Llama8bOnA100().Layer(8, 3, 1000);
  EXPECT_DOUBLE_EQ(t.tiles_per_cta, 8);  // ceil(1,003 / 128)
  const double per_cta = 8 * kTileFlops / (kA100Peak * kAttentionCompute / kA100Sms);
  EXPECT_NEAR(t.seconds, per_cta * 256.0 / 108.0 + kFloor, 1e-12);
}

// A short context is one tile (ceil(182 / 128) = 2 here): the tile model and the KV read are both
// a few microseconds.
TEST(Fa2MultiQueryAttentionTest, ShortContextIsAFewTiles) {
  const Fa2LayerTime t = Llama8bOnA100().Layer(1, 2, 180);
  EXPECT_DOUBLE_EQ(t.tiles_per_cta, 2);
  EXPECT_NEAR(t.seconds, 2 * kTileFlops / (kA100Peak * kAttentionCompute / kA100Sms) + kFloor, 1e-12);
}

TEST(Fa2MultiQueryAttentionTest, VllmRunsItOnAmpereAndAdaOnly) {
  GpuSpec g;
  for (const std::string gen : {"ampere", "ada"}) {
    g.generation = gen;
    EXPECT_TRUE(VllmRunsFlashAttention2(g)) << gen;
  }
  for (const std::string gen : {"hopper", "blackwell", "turing", ""}) {
    g.generation = gen;
    EXPECT_FALSE(VllmRunsFlashAttention2(g)) << gen;
  }
}

struct Timed {
  Deployment d;
  CapacityResult cap;
};

Timed Llama8b(const std::string& gpu) {
  DeploymentOptions o;
  o.model = "meta-llama/Llama-3.1-8B-Instruct";
  o.gpu = gpu;
  o.max_model_len = "8192";
  Timed t{ResolveDeployment(o, DataDirectory()), {}};
  t.cap = PlanCapacity(t.d.model, t.d.gpu, t.d.config);
  return t;
}

using testing::ByName;

StepWork Verify(int64_t seqs, int64_t k, int64_t context) {
  StepWork w;
  w.Add(1 + k, context, seqs);
  w.draft_tokens = k * seqs;
  return w;
}

// The step model adds, over its 32 layers, what the tiles cost beyond the grouped decode's KV read:
// ((4,096 + 2 + 550) × 4,096 + 2 × 8,192 × 2 query bytes) / (0.93 × 1,555 GB/s) + 3 µs per layer.
TEST(Fa2MultiQueryAttentionTest, TheA100StepModelAddsTheTilesOverTheGroupedRead) {
  const Timed t = Llama8b("a100-40gb");
  const StepModel m(t.d.model, t.cap, t.d.gpu, StepModelOptions{});
  const auto ops = ByName(m.Operators(Verify(1, 1, 4096)));
  ASSERT_EQ(ops.count("attention_fa2_tiles"), 1u);
  const double tiles = 33 * kTileFlops / (kA100Peak * kAttentionCompute / kA100Sms) + kFloor;
  const double grouped = ((4096 + 2 + kGroupedSeqTokens) * kKvPerTokenLayer + 2 * 8192 * 2.0) /
                             (kAttentionMemory * kA100Bandwidth) + kFloor;
  EXPECT_NEAR(ops.at("attention_fa2_tiles").seconds, 32 * (tiles - grouped), 1e-9);
  EXPECT_NEAR(ops.at("attention").seconds, 32 * grouped, 1e-9);
  EXPECT_NEAR(m.Breakdown(Verify(1, 1, 4096)).attention, 32 * tiles, 1e-9);
}

// Without drafts (one query per sequence: the swapped, split-KV decode), with an fp8 KV cache and
// on Hopper (FlashAttention-3) there is no tile term.
TEST(Fa2MultiQueryAttentionTest, NoTermForPlainDecodeOrOnHopper) {
  const Timed a100 = Llama8b("a100-40gb");
  const StepModel on_a100(a100.d.model, a100.cap, a100.d.gpu, StepModelOptions{});
  StepWork plain;
  plain.Add(1, 4096, 1);
  EXPECT_EQ(ByName(on_a100.Operators(plain)).count("attention_fa2_tiles"), 0u);
  // An fp8 KV cache is not FlashAttention-2's (vLLM runs another backend for it).
  Timed fp8 = Llama8b("a100-40gb");
  {
    DeploymentOptions o;
    o.model = "meta-llama/Llama-3.1-8B-Instruct";
    o.gpu = "a100-40gb";
    o.max_model_len = "8192";
    o.kv_cache_dtype = "fp8";
    fp8.d = ResolveDeployment(o, DataDirectory());
    fp8.cap = PlanCapacity(fp8.d.model, fp8.d.gpu, fp8.d.config);
  }
  const StepModel on_fp8(fp8.d.model, fp8.cap, fp8.d.gpu, StepModelOptions{});
  EXPECT_EQ(ByName(on_fp8.Operators(Verify(1, 1, 4096))).count("attention_fa2_tiles"), 0u);
  const Timed h100 = Llama8b("h100");
  const StepModel on_h100(h100.d.model, h100.cap, h100.d.gpu, StepModelOptions{});
  EXPECT_EQ(ByName(on_h100.Operators(Verify(1, 1, 4096))).count("attention_fa2_tiles"), 0u);
}

// The EAGLE-1 head (one Llama-3.1-8B decoder layer) drafting k = 2 on the A100: its first pass runs
// 3 queries per request through the same kernel, ceil(4,099 / 128) = 33 tiles per query head on
// their own SMs, 90.1 µs; the later one-query passes take the grouped decode: (4,097 + 550) × 4,096
// bytes of KV and 2 × 4,096 × 2 bytes of q and v at 93% of 1,555 GB/s, plus the floor.
TEST(Fa2MultiQueryAttentionTest, TheDraftersFirstPassRunsTheTilesToo) {
  DeploymentOptions o;
  o.model = "meta-llama/Llama-3.1-8B-Instruct";
  o.gpu = "a100-40gb";
  o.max_model_len = "8192";
  o.speculative_config = "{\"method\":\"eagle\",\"num_speculative_tokens\":2}";
  const Deployment d = ResolveDeployment(o, DataDirectory());
  const CapacityResult cap = PlanCapacity(d.model, d.gpu, d.config);
  const std::unique_ptr<DraftingTimer> timer = MakeProposerTimer(d, cap, StepModelOptions{});
  ASSERT_NE(timer, nullptr);
  StepWork decoding;
  decoding.Add(1, 4096, 1);
  const DraftingTime t = timer->Time(decoding);
  const double tiles = 33 * kTileFlops / (kA100Peak * kAttentionCompute / kA100Sms) + kFloor;
  EXPECT_NEAR(t.first_pass.attention, tiles, 1e-9);
  const double grouped = ((4097 + kGroupedSeqTokens) * kKvPerTokenLayer + 2 * 4096 * 2.0) /
                             (kAttentionMemory * kA100Bandwidth) + kFloor;
  EXPECT_NEAR(t.later_pass.attention, grouped, 1e-9);
  // One logits row per request in the first pass, as in the later ones.
  EXPECT_DOUBLE_EQ(t.first_pass.lm_head, t.later_pass.lm_head);
}

}  // namespace
}  // namespace kvsim
