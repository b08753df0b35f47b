// The punica kernels' time (sim/timing/lora_kernels.h) from bytes and FLOPs derived by hand.
#include <gtest/gtest.h>

#include "sim/timing/lora_kernels.h"

namespace kvsim {
namespace {

// One module (one layer, one slice): rank 16, in 4096, out 4096; 16-bit activations and weights.
// HBM 1 TB/s at full efficiency, peak 1 PFLOP/s, no launch floor.
LoraKernelTimer OneModule(double floor_s = 0, LoraKernelGrid grid = LoraKernelGrid::kPerAdapterTile, int64_t slices = 1) {
  LoraKernelShape k;
  k.module = slices == 1 ? "o_proj" : "qkv_proj";
  k.layers = 1;
  k.slices = slices;
  k.rank = 16;
  k.in = 4096;
  k.out_total = 4096;
  k.a_elements = slices * 16 * 4096;
  k.b_elements = 4096 * 16;  // out_total 4096 over the slices
  LoraDevice d;
  d.peak_flops = 1e15;
  d.hbm_bytes_per_s = 1e12;
  d.compute_efficiency = 1;
  d.memory_efficiency = 1;
  d.floor_s = floor_s;
  return LoraKernelTimer({k}, d, 2, 2, grid);
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
  // Each kernel adds one launch floor: the shrink, the expand and the fill that zeroes the shrink's
  // buffer (lora_shrink_op.py output_tensor.zero_()), 3 x 3 us more.
  EXPECT_NEAR(OneModule(3e-6).Seconds(w), 311.552e-9 + 9e-6, 1e-15);
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

// vLLM <= 0.7's bgmv kernels (grid (SPLIT_K, batches)): every decode token loads its own adapter's
// tile, so 8 sequences on one adapter read A and B 8 times each.
//   shrink: x 8·4096·2 = 65,536 B + A 8 x 131,072 = 1,048,576 B + buffer 8·16·4 = 512 B = 1,114,624 B
//   expand: buffer 512 B + B 8 x 131,072 = 1,048,576 B + output 2·8·4096·2 = 131,072 B = 1,180,160 B
//   2,294,784 B -> 2,294.784 ns at 1 TB/s (FLOPs 2·8·65,536 per kernel: 1 ns, memory bound).
// v0.8's lora_shrink/lora_expand group the tokens by adapter: A and B once each,
//   (65,536 + 131,072 + 512) + (512 + 131,072 + 131,072) = 459,776 B -> 459.776 ns.
TEST(LoraKernelsTest, PerSequenceBgmvReadsTheAdapterOncePerDecodeToken) {
  LoraStepWork w;
  w.lora_tokens = 8;
  w.lora_rows = 8;
  w.batch_tokens = 8;
  w.adapters = 1;
  EXPECT_NEAR(OneModule(0, LoraKernelGrid::kPerSequence).Seconds(w), 2294.784e-9, 1e-15);
  EXPECT_NEAR(OneModule(0, LoraKernelGrid::kPerAdapterTile).Seconds(w), 459.776e-9, 1e-15);
}

// v0.8's kernels load an adapter's tile once per BLOCK_M of its tokens (utils.py's default config:
// shrink block_m 32, expand block_m 64). A 100-token prefill on one adapter: A read ceil(100/32) = 4
// times, B ceil(100/64) = 2 times.
//   shrink: x 100·4096·2 = 819,200 B + A 4 x 131,072 = 524,288 B + buffer 100·16·4 = 6,400 B
//   expand: buffer 6,400 B + B 2 x 131,072 = 262,144 B + output 2·100·4096·2 = 1,638,400 B
//   3,256,832 B -> 3,256.832 ns (FLOPs 13.1 M per kernel: 13 ns, memory bound).
TEST(LoraKernelsTest, GroupedKernelsReadTheAdapterOncePerRowTile) {
  LoraStepWork w;
  w.lora_tokens = 100;
  w.lora_rows = 1;
  w.batch_tokens = 100;
  w.adapters = 1;
  EXPECT_NEAR(OneModule(0, LoraKernelGrid::kPerAdapterTile).Seconds(w), 3256.832e-9, 1e-15);
}

// vLLM <= 0.7's wrapper launches a shrink and an expand per slice, each shrink after a torch.zeros
// buffer of its own: a qkv module (3 slices) pays 9 kernel floors, v0.8's one zero_(), one shrink
// and one expand over all slices 3. One decode token, 3 us floors: the difference is 6 x 3 us
// whatever the bytes (one token reads the weights once on either grid).
TEST(LoraKernelsTest, PerSliceWrapperPaysAFloorPerSliceKernel) {
  LoraStepWork w;
  w.lora_tokens = 1;
  w.lora_rows = 1;
  w.batch_tokens = 1;
  w.adapters = 1;
  const double per_slice = OneModule(3e-6, LoraKernelGrid::kPerSequence, 3).Seconds(w);
  const double grouped = OneModule(3e-6, LoraKernelGrid::kPerAdapterTile, 3).Seconds(w);
  EXPECT_NEAR(per_slice - grouped, 6 * 3e-6, 1e-15);
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
