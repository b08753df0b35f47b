// The punica kernels' time (sim/timing/lora_kernels.h) from bytes and FLOPs derived by hand.
#include <gtest/gtest.h>

#include "sim/timing/lora_kernels.h"

namespace kvsim {
namespace {

// One module (one layer, one slice): rank 16, in 4096, out 4096; 16-bit activations and weights.
// HBM 1 TB/s at full efficiency, peak 1 PFLOP/s, no launch floor.
LoraKernelTimer OneModule(double floor_s = 0) {
  LoraKernelShape k;
  k.module = "o_proj";
  k.layers = 1;
  k.slices = 1;
  k.rank = 16;
  k.in = 4096;
  k.out_total = 4096;
  k.a_elements = 16 * 4096;
  k.b_elements = 4096 * 16;
  LoraDevice d;
  d.peak_flops = 1e15;
  d.hbm_bytes_per_s = 1e12;
  d.compute_efficiency = 1;
  d.memory_efficiency = 1;
  d.floor_s = floor_s;
  return LoraKernelTimer({k}, d, 2, 2);
}

// Two tokens on one adapter, a batch of two tokens.
//   shrink: x 2·4096·2 = 16,384 B + A 16·4096·2 = 131,072 B + fp32 buffer 2·16·4 = 128 B = 147,584 B
//           -> 147.584 ns at 1 TB/s; its FLOPs 2·2·65,536 = 262,144 take 0.26 ns: memory bound.
//   expand: buffer 128 B + B 131,072 B + output read and written 2·2·4096·2 = 32,768 B = 163,968 B
//           -> 163.968 ns.
//   total 311.552 ns.
TEST(LoraKernelsTest, SmallRankIsMemoryBoundBytesOverBandwidth) {
  LoraStepWork w;
  w.lora_tokens = 2;
  w.lora_rows = 2;
  w.batch_tokens = 2;
  w.adapters = 1;
  EXPECT_NEAR(OneModule().Seconds(w), 311.552e-9, 1e-15);
  // Each kernel adds one launch floor: 2 x 3 us more.
  EXPECT_NEAR(OneModule(3e-6).Seconds(w), 311.552e-9 + 6e-6, 1e-15);
}

// Two adapters read both their A and B: 131,072 B more per kernel -> 311.552 + 262.144 ns. Other
// requests in the batch (8 tokens in all) only widen the zeroed buffer: 6 more tokens x 16 x 4 B.
TEST(LoraKernelsTest, EachActiveAdapterReadsItsWeights) {
  LoraStepWork w;
  w.lora_tokens = 2;
  w.lora_rows = 2;
  w.batch_tokens = 8;
  w.adapters = 2;
  EXPECT_NEAR(OneModule().Seconds(w), (311.552 + 262.144 + 6 * 16 * 4 / 1000.0) * 1e-9, 1e-15);
}

// vLLM's kernels return before launching when no token has an adapter.
TEST(LoraKernelsTest, NoAdapterTokensCostNothing) {
  LoraStepWork w;
  w.batch_tokens = 512;
  EXPECT_EQ(OneModule(3e-6).Seconds(w), 0);
  EXPECT_EQ(OneModule(3e-6).Ns(w), 0);
}

}  // namespace
}  // namespace kvsim
