// StepTimer: the roofline's two regimes and its fixed mode, against hand-computed figures.
#include <gtest/gtest.h>

#include <cmath>

#include "kvcache/budget/capacity_planner.h"
#include "kvcache/model/model_catalog.h"
#include "sim/step_timer.h"

namespace kvsim {
namespace {

struct TimedDeployment {
  Deployment d;
  CapacityResult cap;
};

TimedDeployment Llama8bOnA100(int tp = 1) {
  DeploymentOptions o;
  o.gpu = "a100-80gb";
  o.tensor_parallel_size = tp;
  o.max_model_len = "8192";
  TimedDeployment s{ResolveDeployment(o, DataDirectory()), {}};
  s.cap = PlanCapacity(s.d.model, s.d.gpu, s.d.config);
  return s;
}

TEST(StepTimerTest, FixedStepTimeIgnoresTheWork) {
  const TimedDeployment s = Llama8bOnA100();
  StepTimerOptions o;
  o.fixed_step_ms = 20;
  const StepTimer t(s.d.model, s.cap, s.d.gpu, o);
  EXPECT_TRUE(t.fixed());
  EXPECT_EQ(t.StepNs({1, 0, 1}), 20000000);
  EXPECT_EQ(t.StepNs({8192, 100000, 5000000}), 20000000);
}

// One decode token is memory bound: every weight byte plus the KV of the context is read once.
// Llama-3.1-8B: 8,030,261,248 bf16 parameters; 131,072 KV bytes per token (32 layers × 2 × 8 heads
// × 128 × 2 B); A100-80GB 2,039 GB/s at 80% → bytes / 1.6312e12 s, plus the 1 ms step overhead.
TEST(StepTimerTest, SmallDecodeIsMemoryBound) {
  const TimedDeployment s = Llama8bOnA100();
  const StepTimer t(s.d.model, s.cap, s.d.gpu, StepTimerOptions{});
  const double weights = s.cap.weights_bytes;
  EXPECT_NEAR(weights, 8030261248.0 * 2, 8030261248.0 * 2 * 0.01);  // the RoPE cache is the rest
  const int64_t context = 4000;
  const double bytes = weights + 131072.0 * (context + 1);
  const double expected_ns = bytes / (2.039e12 * 0.8) * 1e9 + 1e6;
  EXPECT_NEAR(static_cast<double>(t.StepNs({1, context, context + 1})), expected_ns, 2.0);
}

// A 4,096-token prefill is compute bound: 2 FLOPs per active parameter per token plus attention
// (4 × layers × q width per attended pair), at 60% of the A100's 312 TFLOPS.
TEST(StepTimerTest, LargePrefillIsComputeBound) {
  const TimedDeployment s = Llama8bOnA100();
  const StepTimer t(s.d.model, s.cap, s.d.gpu, StepTimerOptions{});
  const int64_t tokens = 4096;
  const int64_t attended = tokens * (tokens + 1) / 2;  // causal: token i attends to i tokens
  const double flops = 2.0 * 8030261248.0 * tokens + 4.0 * 32 * 4096 * static_cast<double>(attended);
  const double expected_ns = flops / (312e12 * 0.6) * 1e9 + 1e6;
  EXPECT_NEAR(static_cast<double>(t.StepNs({tokens, 0, attended})), expected_ns, expected_ns * 1e-9 + 2);
}

// TP 2 over NVLink (300 GB/s per direction): two all-reduces per layer, each 10 µs plus
// 2·(tp−1)/tp × tokens × hidden × 2 B over the link.
TEST(StepTimerTest, TensorParallelAddsTwoAllReducesPerLayer) {
  const TimedDeployment one = Llama8bOnA100(1), two = Llama8bOnA100(2);
  StepTimerOptions o;
  o.fixed_step_ms = 0;
  const StepTimer t2(two.d.model, two.cap, two.d.gpu, o);
  const int64_t tokens = 256;
  const double allreduce_ns = 2 * 32 * (10e3 + 2.0 * 1 / 2 * tokens * 4096 * 2.0 / 300e9 * 1e9);
  const double bytes = two.cap.weights_bytes + 65536.0 * tokens;  // KV heads split over 2 GPUs
  const double flops = 2.0 * static_cast<double>(two.cap.active_params) / 2 * tokens + 4.0 * 32 * 2048 * tokens;
  const double roofline_ns = std::max(flops / (312e12 * 0.6), bytes / (2.039e12 * 0.8)) * 1e9;
  EXPECT_NEAR(static_cast<double>(t2.StepNs({tokens, 0, tokens})), roofline_ns + 1e6 + allreduce_ns, 3.0);
  (void)one;
}

}  // namespace
}  // namespace kvsim
