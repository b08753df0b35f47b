// LoRA's host side (sim/timing/lora_host.h): launch counts from vLLM's wrappers, the metadata's cost
// and when launches from the CPU lengthen a step, all derived by hand below.
#include <gtest/gtest.h>

#include "sim/timing/lora_host.h"

namespace kvsim {
namespace {

LoraKernelShape Shape(const char* module, int64_t layers, int64_t slices, bool per_sequence = false, bool gather = false) {
  LoraKernelShape k;
  k.module = module;
  k.layers = layers;
  k.slices = slices;
  k.rank = 16;
  k.per_sequence = per_sequence;
  k.gather = gather;
  return k;
}

// Two layers of qkv (3 slices) and o (1 slice), the embedding and lm_head.
std::vector<LoraKernelShape> Shapes() {
  return {Shape("qkv_proj", 2, 3), Shape("o_proj", 2, 1), Shape("embed_tokens", 1, 1, false, true),
          Shape("lm_head", 1, 1, true)};
}

LoraHostCosts Costs() {
  LoraHostCosts c;
  c.torch_launch_s = 4e-6;
  c.triton_launch_s = 10e-6;
  c.per_token_s = 0.15e-6;
  c.base_launch_s = 1e-3;
  c.base_exposed_host_s = 0.3e-3;
  return c;
}

// One launch for all slices (vLLM >= 0.8): per layer qkv 2 Triton + 1 zero_, o the same; the
// embedding's expand + F.embedding; lm_head's shrink + expand + zero_.
//   Triton 2·2 + 2·2 + 1 + 2 = 11, PyTorch 2 + 2 + 1 + 1 = 6 -> 11·10 + 6·4 = 134 us.
TEST(LoraHostTest, FusedKernelsLaunchTwoTritonKernelsPerModule) {
  const LoraHostTimer t(Shapes(), Costs());
  EXPECT_EQ(t.triton_launches(), 11);
  EXPECT_EQ(t.torch_launches(), 6);
  EXPECT_NEAR(t.LaunchSeconds(), 134e-6, 1e-12);
}

// vLLM <= 0.7 loops over slices: qkv 6 Triton + 3 zeros per layer, o 2 + 1; the embedding and
// lm_head as above. Triton 2·6 + 2·2 + 1 + 2 = 19, PyTorch 2·3 + 2·1 + 1 + 1 = 10 -> 230 us.
TEST(LoraHostTest, PerSliceKernelsLaunchPerSlice) {
  LoraHostCosts c = Costs();
  c.per_slice_kernels = true;
  const LoraHostTimer t(Shapes(), c);
  EXPECT_EQ(t.triton_launches(), 19);
  EXPECT_EQ(t.torch_launches(), 10);
  EXPECT_NEAR(t.LaunchSeconds(), 230e-6, 1e-12);
}

// 45 PyTorch ops at 4 us and 0.15 us per scheduled token: 1,000 tokens -> 180 + 150 = 330 us.
TEST(LoraHostTest, MetadataIsOpsPlusPerTokenPython) {
  const LoraHostTimer t(Shapes(), Costs());
  EXPECT_EQ(LoraHostTimer::kMetadataOps, 45);
  EXPECT_NEAR(t.MetadataSeconds(1000), 330e-6, 1e-12);
}

// With a graph the kernels' GPU time and the metadata add, whatever the base step.
TEST(LoraHostTest, GraphStepAddsKernelsAndMetadata) {
  const LoraHostTimer t(Shapes(), Costs());
  const LoraHostStep decode{8, 8, true};
  EXPECT_FALSE(t.LaunchesFromCpu(decode));
  EXPECT_NEAR(t.AddedSeconds(5e-3, 50e-6, decode), 50e-6 + 180e-6 + 8 * 0.15e-6, 1e-12);
}

// Eager: a 5 ms step exposing 0.3 ms of host time is busy 4.7 ms, 3.7 ms more than its own 1 ms of
// launches, which hides LoRA's 134 us: only the kernels' 50 us and the metadata add. A step that is
// launch bound (1.3 ms: busy 1 ms = its launches) has nothing in hand: the launches add 134 us.
TEST(LoraHostTest, EagerLaunchesCostOnlyWhereTheCpuFallsBehind) {
  LoraHostCosts c = Costs();
  c.eager = true;
  const LoraHostTimer t(Shapes(), c);
  const LoraHostStep decode{1, 1, true};
  ASSERT_TRUE(t.LaunchesFromCpu(decode));
  const double metadata = 180e-6 + 0.15e-6;
  EXPECT_NEAR(t.AddedSeconds(5e-3, 50e-6, decode), metadata + 50e-6, 1e-12);
  EXPECT_NEAR(t.AddedSeconds(1.3e-3, 50e-6, decode), metadata + 134e-6, 1e-12);
  // In between: 1.36 ms leaves 60 us in hand -> 134 - 60 = 74 us.
  EXPECT_NEAR(t.AddedSeconds(1.36e-3, 50e-6, decode), metadata + 74e-6, 1e-12);
}

// The V0 engine graphs decode-only batches: its prefill steps launch from the CPU. Decode batches
// above the largest captured size launch from the CPU in either engine.
TEST(LoraHostTest, WhichStepsLaunchFromTheCpu) {
  LoraHostCosts c = Costs();
  const LoraHostTimer v1(Shapes(), c);
  EXPECT_FALSE(v1.LaunchesFromCpu({2048, 4, false}));
  EXPECT_FALSE(v1.LaunchesFromCpu({512, 512, true}));
  EXPECT_TRUE(v1.LaunchesFromCpu({513, 513, true}));
  c.prefill_from_cpu = true;
  const LoraHostTimer v0(Shapes(), c);
  EXPECT_TRUE(v0.LaunchesFromCpu({2048, 4, false}));
  EXPECT_FALSE(v0.LaunchesFromCpu({64, 64, true}));
}

// Property: the added time never falls below the kernels plus the metadata, and never rises as
// the base step (the GPU time in hand) grows.
TEST(LoraHostTest, AddedTimeIsBoundedAndNonIncreasingInTheBaseStep) {
  LoraHostCosts c = Costs();
  c.eager = true;
  const LoraHostTimer t(Shapes(), c);
  const LoraHostStep s{100, 10, false};
  double last = 1e9;
  for (double base = 0; base < 3e-3; base += 7e-6) {
    const double added = t.AddedSeconds(base, 20e-6, s);
    EXPECT_GE(added, 20e-6 + t.MetadataSeconds(100) - 1e-15);
    EXPECT_LE(added, last + 1e-15);
    last = added;
  }
}

}  // namespace
}  // namespace kvsim
