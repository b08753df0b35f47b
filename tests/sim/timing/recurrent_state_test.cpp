// The recurrent-state term of a step (sim/timing/recurrent_state.h) against bytes derived by hand from
// NVIDIA-Nemotron-3-Nano-30B-A3B's config.json (data/models/nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.json:
// hybrid_override_pattern with 23 'M' Mamba-2 layers, mamba_num_heads 64, mamba_head_dim 64,
// ssm_state_size 128, n_groups 8, conv_kernel 4, torch_dtype bfloat16, mamba_ssm_cache_dtype float32)
// and the H200's 4.8 TB/s (nvidia.com/en-us/data-center/h200).
#include <gtest/gtest.h>

#include <string>

#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/deployment.h"
#include "kvcache/model/model_catalog.h"
#include "sim/timing/step_model.h"
#include "tests/sim/timing/operator_costs.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

constexpr const char* kNemotronNano = "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16";
constexpr double kNemotronMambaLayers = 23;
constexpr double kH200HbmBytesPerS = 4.8e12;

// One request's state in one Mamba-2 layer on one TP rank: the SSM state heads/TP x head_dim x
// d_state in `ssm_bytes` per element, and the conv state (conv_kernel - 1) x (heads x head_dim +
// 2 x groups x d_state) / TP in the model's bfloat16.
double StatePageByHand(int tp, double ssm_bytes) {
  const double ssm = 64.0 / tp * 64 * 128 * ssm_bytes;
  const double conv = 3.0 * (64 * 64 + 2 * 8 * 128) / tp * 2;
  return ssm + conv;
}

struct StatePlan {
  Deployment d;
  CapacityResult cap;
};

StatePlan PlanState(const std::string& model, const std::string& gpu, int tp, const std::string& ssm_dtype = "auto") {
  DeploymentOptions o;
  o.model = model;
  o.gpu = gpu;
  o.tensor_parallel_size = tp;
  o.max_model_len = "4096";
  o.mamba_ssm_cache_dtype = ssm_dtype;
  StatePlan p{ResolveDeployment(o, DataDirectory()), {}};
  p.cap = PlanCapacity(p.d.model, p.d.gpu, p.d.config);
  return p;
}

StepWork StateDecode(int64_t seqs, int64_t context) { return {seqs, seqs * context, seqs * (context + 1), seqs}; }

TEST(RecurrentStateTest, StateBytesAreTheBudgetsStatePage) {
  EXPECT_DOUBLE_EQ(StatePageByHand(1, 4), 2134016.0);  // 2,097,152 float32 SSM + 36,864 bf16 conv
  const StatePlan p = PlanState(kNemotronNano, "h200", 1);
  const RecurrentStateTraffic t = RecurrentStateOf(p.d.model, p.cap);
  EXPECT_EQ(t.layers, kNemotronMambaLayers);
  EXPECT_DOUBLE_EQ(t.bytes_per_layer, StatePageByHand(1, 4));
  EXPECT_DOUBLE_EQ(t.BytesPerSequence(), 2 * kNemotronMambaLayers * StatePageByHand(1, 4));
}

// 1,000 decoding requests: each Mamba layer reads and writes 1,000 states of 2,134,016 B,
// 98.16 GB a step, at the elementwise share of 4.8 TB/s, plus two kernel floors a layer.
TEST(RecurrentStateTest, DecodeStepReadsAndWritesEveryStateOnce) {
  const StatePlan p = PlanState(kNemotronNano, "h200", 1);
  const StepModel m(p.d.model, p.cap, p.d.gpu, {});
  const auto ops = testing::ByName(m.Operators(StateDecode(1000, 1536)));
  ASSERT_TRUE(ops.count("ssm_state"));
  const OperatorCost& op = ops.at("ssm_state");
  const double bytes = 1000 * kNemotronMambaLayers * 2 * StatePageByHand(1, 4);
  EXPECT_DOUBLE_EQ(bytes, 98164736000.0);
  EXPECT_DOUBLE_EQ(op.bytes, bytes);
  EXPECT_EQ(op.group, "attention");
  EXPECT_EQ(op.kernels, 2 * 23);
  const KernelEfficiency& e = m.efficiency();
  EXPECT_NEAR(op.seconds, bytes / (kH200HbmBytesPerS * e.elementwise_memory) + 46 * e.kernel_floor_us * 1e-6, 1e-12);
}

// --mamba-ssm-cache-dtype bfloat16 halves the SSM state; the conv state stays bfloat16.
TEST(RecurrentStateTest, SsmCacheDtypeFlagSetsTheStateBytes) {
  const StatePlan p = PlanState(kNemotronNano, "h200", 1, "bfloat16");
  const StepModel m(p.d.model, p.cap, p.d.gpu, {});
  EXPECT_DOUBLE_EQ(testing::ByName(m.Operators(StateDecode(100, 512))).at("ssm_state").bytes,
                   100 * kNemotronMambaLayers * 2 * StatePageByHand(1, 2));
}

// At TP 2 each rank keeps 32 of the 64 heads and half the conv channels (8 groups divide by 2).
TEST(RecurrentStateTest, TensorParallelRanksKeepTheirShareOfTheState) {
  const StatePlan p = PlanState(kNemotronNano, "b200", 2);
  const StepModel m(p.d.model, p.cap, p.d.gpu, {});
  EXPECT_DOUBLE_EQ(StatePageByHand(2, 4), 1067008.0);
  EXPECT_DOUBLE_EQ(testing::ByName(m.Operators(StateDecode(400, 2300))).at("ssm_state").bytes,
                   400 * kNemotronMambaLayers * 2 * StatePageByHand(2, 4));
}

// A prefill chunk's scan takes the request's state as its initial state and writes the final one:
// once per scheduled request, whatever its tokens.
TEST(RecurrentStateTest, PrefillChunksMoveTheStateOncePerRequest) {
  const StatePlan p = PlanState(kNemotronNano, "h200", 1);
  const StepModel m(p.d.model, p.cap, p.d.gpu, {});
  StepWork w = StateDecode(10, 700);
  w.Add(512, 1024, 2);
  EXPECT_DOUBLE_EQ(testing::ByName(m.Operators(w)).at("ssm_state").bytes, 12 * kNemotronMambaLayers * 2 * StatePageByHand(1, 4));
}

// Qwen3-Next's gated DeltaNet layers (data/models/Qwen/Qwen3-Next-80B-A3B-Thinking.json: 48 layers, full
// attention every 4th, so 36 linear-attention layers; 16 key and 32 value heads of 128, conv kernel 4,
// bfloat16): conv 3 x (2 x 16 x 128 + 32 x 128) x 2 B = 49,152 B and the recurrent state 32 x 128 x 128
// x 2 B = 1,048,576 B per request and layer, at TP 4 a quarter of each.
TEST(RecurrentStateTest, GatedDeltaNetLayersMoveTheirRecurrentState) {
  const StatePlan p = PlanState("Qwen/Qwen3-Next-80B-A3B-Thinking", "h200", 4);
  const double per_layer = (3.0 * (2 * 16 * 128 + 32 * 128) * 2 + 32.0 * 128 * 128 * 2) / 4;
  EXPECT_DOUBLE_EQ(per_layer, 274432.0);
  const StepModel m(p.d.model, p.cap, p.d.gpu, {});
  const OperatorCost op = testing::ByName(m.Operators(StateDecode(256, 4000))).at("ssm_state");
  EXPECT_DOUBLE_EQ(op.bytes, 256 * 36 * 2 * per_layer);
  EXPECT_EQ(op.kernels, 2 * 36);
}

TEST(RecurrentStateTest, ModelsWithoutStateLayersHaveNoTerm) {
  const StatePlan p = PlanState("meta-llama/Llama-3.1-8B-Instruct", "h200", 1);
  EXPECT_EQ(RecurrentStateOf(p.d.model, p.cap).layers, 0);
  const StepModel m(p.d.model, p.cap, p.d.gpu, {});
  EXPECT_EQ(testing::ByName(m.Operators(StateDecode(64, 1000))).count("ssm_state"), 0u);
}

// The breakdown carries the term, and a decode run's steps equal StepNs bit for bit with it.
TEST(RecurrentStateTest, DecodeRunsTimeTheStateAsStepNs) {
  const StatePlan p = PlanState(kNemotronNano, "h200", 1);
  const StepModel m(p.d.model, p.cap, p.d.gpu, {});
  for (int64_t seqs : {1, 64, 512, 1000}) {
    const auto run = m.DecodeRun(seqs);
    // A run's Ns and TimeSteps take the batch's context tokens, summed over its requests.
    for (int64_t c : {0, 100, 1536, 3000}) EXPECT_EQ(run->Ns(seqs * c), m.StepNs(StateDecode(seqs, c))) << seqs << " " << c;
    int64_t now = 0, out[64];
    const int64_t steps = run->TimeSteps(100 * seqs, seqs, 64, INT64_MAX, &now, out);
    for (int64_t k = 0; k < steps; ++k) EXPECT_EQ(out[k], m.StepNs(StateDecode(seqs, 100 + k)));
  }
}

}  // namespace
}  // namespace kvsim
