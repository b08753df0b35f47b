// QK norms over all heads under tensor parallelism (QkNormSpan). MiniMax-M2: vLLM's MiniMaxText01RMSNormTP
// normalizes q and k over every head's width, so each rank's per-token sum of squares is all-reduced in
// every attention layer (vllm/model_executor/layers/mamba/linear_attn.py), once for q and once for k
// before PR #31493 and as one [tokens, 2] fp32 tensor from 0.14 on; the preset
// (data/models/MiniMaxAI/MiniMax-M2.7.json) has 62 attention layers. Each call is the interconnect's
// all-reduce latency plus the ring's 2 (TP - 1) / TP of its bytes over the link (sim/timing/link_rates.h),
// as for the layers' own all-reduces. OLMo 2: olmo2.py's _apply_qk_norm all-gathers q and k whole, one
// call each, a ring moving (TP - 1) / TP of the gathered bytes.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/deployment.h"
#include "kvcache/model/model_catalog.h"
#include "sim/timing/link_rates.h"
#include "sim/timing/step_model.h"
#include "tests/sim/timing/operator_costs.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

struct Plan {
  Deployment d;
  CapacityResult cap;
};

Plan PlanFor(const std::string& model, int tp, const std::string& release) {
  DeploymentOptions o;
  o.model = model;
  o.gpu = "h100";
  o.tensor_parallel_size = tp;
  o.enable_expert_parallel = tp > 1;
  o.max_model_len = "4096";
  o.vllm_version = release;
  Plan p{ResolveDeployment(o, DataDirectory()), {}};
  p.cap = PlanCapacity(p.d.model, p.d.gpu, p.d.config);
  return p;
}

// Four requests decoding one token each.
std::map<std::string, OperatorCost> DecodeOperators(const Plan& p) {
  const StepModel m(p.d.model, p.cap, p.d.gpu, {});
  return testing::ByName(m.Operators({4, 4 * 1500, 4 * 1501, 4}));
}

constexpr const char* kMiniMax = "MiniMaxAI/MiniMax-M2.7";
constexpr double kLayers = 62;

TEST(QkNormAllReduceTest, OneJointAllReducePerLayerFromRelease014) {
  const Plan p = PlanFor(kMiniMax, 8, "0.16.0");
  const auto ops = DecodeOperators(p);
  ASSERT_TRUE(ops.count("qk_norm_all_reduce"));
  const OperatorCost& op = ops.at("qk_norm_all_reduce");
  const double bytes = 4 * 2 * 4.0;  // 4 tokens x (q, k) x fp32
  EXPECT_EQ(op.kernels, 62);
  EXPECT_DOUBLE_EQ(op.bytes, kLayers * bytes);
  EXPECT_EQ(op.group, "communication");
  const Interconnect link = p.d.gpu.interconnect;
  EXPECT_NEAR(op.seconds, kLayers * (AllReduceLatencySeconds(link) + 2.0 * 7 / 8 * bytes / LinkBytesPerSecond(link)),
              1e-12);
  // Latency-bound: at least 62 x 8 us, about half a millisecond on a decode step of a few ms.
  EXPECT_GE(op.seconds, 62 * 8e-6);
}

TEST(QkNormAllReduceTest, TwoAllReducesPerLayerBeforePr31493) {
  const Plan p = PlanFor(kMiniMax, 8, "0.13.0");
  const auto ops = DecodeOperators(p);
  ASSERT_TRUE(ops.count("qk_norm_all_reduce"));
  const OperatorCost& op = ops.at("qk_norm_all_reduce");
  const double bytes = 4 * 4.0;  // 4 tokens x fp32, for q and again for k
  EXPECT_EQ(op.kernels, 124);
  EXPECT_DOUBLE_EQ(op.bytes, 2 * kLayers * bytes);
  const Interconnect link = p.d.gpu.interconnect;
  EXPECT_NEAR(op.seconds,
              2 * kLayers * (AllReduceLatencySeconds(link) + 2.0 * 7 / 8 * bytes / LinkBytesPerSecond(link)), 1e-12);
}

TEST(QkNormAllReduceTest, NoneOnOneGpuOrForPerHeadNorms) {
  EXPECT_FALSE(DecodeOperators(PlanFor(kMiniMax, 1, "0.16.0")).count("qk_norm_all_reduce"));
  // Qwen3's QK norms are per head (head_dim wide): a rank has every head it normalizes.
  EXPECT_FALSE(DecodeOperators(PlanFor("Qwen/Qwen3-8B", 8, "0.16.0")).count("qk_norm_all_reduce"));
}

// An OLMo-2-7B-shaped config (hidden 4096, 32 layers, 32 query and 32 KV heads of 128, bfloat16) at TP 4:
// four decoding tokens gather 4 x (32 + 32) x 128 x 2 B = 65,536 B of q and k a layer.
TEST(QkNormAllReduceTest, OlmoGathersQAndKWholeEveryLayer) {
  const testing::TempDir dir;
  nlohmann::json config = nlohmann::json::parse(testing::LlamaConfig(4096, 11008, 32, 32, 32, 100352));
  config["model_type"] = "olmo2";
  config["architectures"] = {"Olmo2ForCausalLM"};
  config["torch_dtype"] = "bfloat16";
  const std::string path = dir.File("config.json");
  std::ofstream(path) << config.dump();
  const Plan p = PlanFor(path, 4, "0.16.0");
  const auto ops = DecodeOperators(p);
  ASSERT_TRUE(ops.count("qk_norm_all_gather"));
  ASSERT_FALSE(ops.count("qk_norm_all_reduce"));
  const OperatorCost& op = ops.at("qk_norm_all_gather");
  const double bytes = 32 * 4 * (32 + 32) * 128 * 2.0;
  EXPECT_EQ(op.kernels, 64);
  EXPECT_DOUBLE_EQ(op.bytes, bytes);
  const Interconnect link = p.d.gpu.interconnect;
  EXPECT_NEAR(op.seconds, 64 * AllReduceLatencySeconds(link) + 3.0 / 4 * bytes / LinkBytesPerSecond(link), 1e-12);
}

}  // namespace
}  // namespace kvsim
