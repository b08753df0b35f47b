// The punica kernels' grids (sim/timing/lora_kernels.h LaunchGrids, from vLLM's launch code) and the
// time their CTAs keep the SMs busy (sim/timing/lora_grid.h), derived by hand below. Latencies are
// lora_grid.h's defaults: an L2 step 0.142 us, a DRAM step 0.348 us.
#include <gtest/gtest.h>

#include "sim/timing/lora_grid.h"
#include "sim/timing/lora_kernels.h"

namespace kvsim {
namespace {

constexpr double kL2 = 0.142e-6, kDram = 0.348e-6;

LoraKernelShape Module(int64_t rank, int64_t slices) {
  LoraKernelShape k;
  k.module = slices == 1 ? "o_proj" : "qkv_proj";
  k.layers = 1;
  k.slices = slices;
  k.rank = rank;
  k.in = 4096;
  k.out_total = slices * 4096;
  k.a_elements = slices * rank * 4096;
  k.b_elements = slices * 4096 * rank;
  return k;
}

// Bytes and FLOPs negligible (1 PB/s, 1 EFLOP/s), no launch floor: only the grid shows.
LoraDevice GridBound(int sm_count) {
  LoraDevice d;
  d.peak_flops = 1e18;
  d.hbm_bytes_per_s = 1e15;
  d.compute_efficiency = 1;
  d.memory_efficiency = 1;
  d.floor_s = 0;
  d.sm_count = sm_count;
  return d;
}

LoraStepWork Tokens(int64_t tokens, int64_t rows) {
  LoraStepWork w;
  w.lora_tokens = tokens;
  w.lora_rows = rows;
  w.batch_tokens = tokens;
  w.adapters = 1;
  return w;
}

// 64 resident warps and 32 resident blocks per SM (compute capability 8.0 / 9.0).
TEST(LoraGridTest, ResidentSlotsFollowWarpsPerCta) {
  EXPECT_EQ(CtaSlotsPerSm(8), 8);
  EXPECT_EQ(CtaSlotsPerSm(4), 16);
  EXPECT_EQ(CtaSlotsPerSm(1), 32);
}

// Three kinds of CTA in one launch, 1 SM of 8 slots (8 warps a CTA): 2 working CTAs run 2 L2
// lookups, 1 DRAM step and 1 atomic add (3 x 0.142 + 0.348 = 0.774 us); 3 idle split-K CTAs the
// same without the DRAM step (0.426 us); 4 empty ones one lookup (0.142 us).
//   busy = 2 x 0.774 + 3 x 0.426 + 4 x 0.142 = 3.394 CTA-us over 8 slots = 0.42425 us < one
//   chain: 0.774 us. With 1,000 times the CTAs: 3,394 CTA-us / 8 = 424.25 us.
TEST(LoraGridTest, IdleSplitKCtasRunTheirLookupsAndWriteBack) {
  LoraLaunchGrid g;
  g.ctas = 9;
  g.working_ctas = 2;
  g.idle_ctas = 3;
  g.warps = 8;
  g.l2_steps = 2;
  g.dram_steps = 1;
  g.writeback_l2_steps = 1;
  EXPECT_NEAR(GridSeconds(g, 1, MemoryLatency{}), 0.774e-6, 1e-15);
  g.ctas *= 1000;
  g.working_ctas *= 1000;
  g.idle_ctas *= 1000;
  EXPECT_NEAR(GridSeconds(g, 1, MemoryLatency{}), 424.25e-6, 1e-12);
  // Without the write-back the idle CTAs cost what their lookups do: 2 x 0.632 + 3 x 0.284 +
  // 4 x 0.142 = 2.684 CTA-us, x 1,000 over 8 slots = 335.5 us.
  g.writeback_l2_steps = 0;
  EXPECT_NEAR(GridSeconds(g, 1, MemoryLatency{}), 335.5e-6, 1e-12);
}

// The V0 engine's bgmv kernels (v0.6-0.7) on a decode batch of 256 tokens, rank 8, K = N = 4096,
// one slice, 108 SMs (A100); num_warps 8, so 8 CTAs per SM: 864 slots.
//   shrink: SPLIT_K 64 x 256 tokens = 16,384 CTAs; BLOCK_K 256 covers K = 4096 in 16 of the 64
//     split-K CTAs: 4,096 working CTAs, each an L2 lookup, one DRAM tile step (4096 / (256 x 64)
//     rounds up to 1) and the atomic add of its partial sum (L2) = 0.632 us. The other 48 per
//     token (12,288) run the lookup, an all-masked K step and the atomic add: 0.284 us.
//     busy = 4,096 x 0.632 + 12,288 x 0.284 = 6,078.464 CTA-us over 864 slots = 7.035259 us.
//   expand: SPLIT_N 64 (4096 divides by 64) x 256 = 16,384 CTAs, all working, 64 rows each in one
//     BLOCK_N 256 step: 16,384 x 0.490 / 864 = 9.291852 us.
TEST(LoraGridTest, V0BgmvDecodeBatchIsBoundByItsCtas) {
  const LoraKernelTimer timer({Module(8, 1)}, GridBound(108), 2, 2, LoraKernelGrid::kPerSequence);
  const LoraStepWork w = Tokens(256, 256);
  const LoraKernelTimer::Grids g = timer.LaunchGrids(Module(8, 1), w);
  EXPECT_EQ(g.shrink.ctas, 16384);
  EXPECT_EQ(g.shrink.working_ctas, 4096);
  EXPECT_EQ(g.shrink.idle_ctas, 12288);
  EXPECT_EQ(g.shrink.warps, 8);
  EXPECT_EQ(g.shrink.dram_steps, 1);
  EXPECT_EQ(g.shrink.writeback_l2_steps, 1);
  EXPECT_EQ(g.expand.ctas, 16384);
  EXPECT_EQ(g.expand.working_ctas, 16384);
  EXPECT_EQ(g.expand.idle_ctas, 0);
  EXPECT_EQ(g.expand.writeback_l2_steps, 0);  // the expand stores its tile (no split-K)
  const double shrink = (4096 * (2 * kL2 + kDram) + 12288 * 2 * kL2) / 864;
  const double expand = 16384 * (kL2 + kDram) / 864;
  EXPECT_NEAR(shrink, 7.035259e-6, 1e-12);
  EXPECT_NEAR(expand, 9.291852e-6, 1e-12);
  EXPECT_NEAR(GridSeconds(g.shrink, 108, MemoryLatency{}), shrink, 1e-15);
  EXPECT_NEAR(timer.Seconds(w), shrink + expand, 1e-15);
  // Twice the batch, twice the CTAs over the same slots.
  EXPECT_NEAR(timer.Seconds(Tokens(512, 512)), 2 * (shrink + expand), 1e-15);
}

// V0 prefill steps run sgmv, which moves whole prompts: no grid term. Without an SM count neither.
TEST(LoraGridTest, V0PrefillAndUnknownGpusHaveNoGridTerm) {
  const LoraKernelTimer v0({Module(8, 1)}, GridBound(108), 2, 2, LoraKernelGrid::kPerSequence);
  const LoraKernelTimer::Grids prefill = v0.LaunchGrids(Module(8, 1), Tokens(100, 1));
  EXPECT_EQ(prefill.shrink.working_ctas, 0);
  EXPECT_EQ(GridSeconds(prefill.shrink, 108, MemoryLatency{}), 0);
  const LoraKernelTimer::Grids decode = v0.LaunchGrids(Module(8, 1), Tokens(256, 256));
  EXPECT_EQ(GridSeconds(decode.shrink, 0, MemoryLatency{}), 0);
}

// v0.8+ lora_shrink / lora_expand (get_lora_op_configs defaults, num_warps 4: 16 slots per SM, 132
// SMs = 2,112 slots) on qkv (3 slices), rank 16, one adapter, 100 tokens (below 128: split_k 64,
// block_k 256).
//   shrink: 64 x cdiv(100, 32) = 4 x cdiv(16, 16) = 1 x 3 slices = 768 CTAs; working: 16 split-K
//     CTAs reach K x 4 tiles x 3 = 192, the other 576 lie past K. Chain: adapter id and token
//     indices (2 L2) + one K step (DRAM) + the atomic add (L2) = 0.774 us, past K 3 L2 = 0.426 us;
//     busy (192 x 0.774 + 576 x 0.426) / 2,112 = 0.187 us < one chain: 0.774 us.
//   expand: block_n 64 (several slices): cdiv(100, 64) = 2 x 4096/64 = 64 x 3 = 384 CTAs, all
//     working; chain 2 L2 + the input/B step + the output tile it adds to (2 DRAM) = 0.980 us; one
//     wave: 0.980 us.
// At 128 tokens the config turns to split_k 8, block_k 32: each CTA walks K in 4096 / 256 = 16
// DRAM steps, 3 x 0.142 + 16 x 0.348 = 5.994 us, in one wave of 8 x 4 x 3 = 96 CTAs, all working.
TEST(LoraGridTest, V1KernelsOfASmallBatchCostOneChain) {
  const LoraKernelTimer timer({Module(16, 3)}, GridBound(132), 2, 2, LoraKernelGrid::kPerAdapterTile);
  const LoraKernelTimer::Grids g = timer.LaunchGrids(Module(16, 3), Tokens(100, 100));
  EXPECT_EQ(g.shrink.ctas, 768);
  EXPECT_EQ(g.shrink.working_ctas, 192);
  EXPECT_EQ(g.shrink.idle_ctas, 576);
  EXPECT_EQ(g.expand.ctas, 384);
  EXPECT_EQ(g.expand.working_ctas, 384);
  EXPECT_NEAR(GridSeconds(g.shrink, 132, MemoryLatency{}), 0.774e-6, 1e-15);
  EXPECT_NEAR(GridSeconds(g.expand, 132, MemoryLatency{}), 0.980e-6, 1e-15);
  EXPECT_NEAR(timer.Seconds(Tokens(100, 100)), 1.754e-6, 1e-15);

  const LoraKernelTimer::Grids big = timer.LaunchGrids(Module(16, 3), Tokens(128, 128));
  EXPECT_EQ(big.shrink.ctas, 96);
  EXPECT_EQ(big.shrink.idle_ctas, 0);
  EXPECT_EQ(big.shrink.dram_steps, 16);
  EXPECT_NEAR(GridSeconds(big.shrink, 132, MemoryLatency{}), 5.994e-6, 1e-15);
}

}  // namespace
}  // namespace kvsim
