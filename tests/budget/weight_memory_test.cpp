// Weight memory per GPU: vLLM's sharding rules, checked against hand-derived shapes and the
// weights vLLM printed in real start-up logs (shared/validation).
#include <gtest/gtest.h>

#include "kvcache/base/error.h"
#include "kvcache/base/units.h"
#include "kvcache/budget/weight_memory.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::LlamaConfig;
using testing::SharedModel;
using testing::SpecFromJson;

double WeightsGiB(const ModelSpec& spec, int tp, int pp = 1, int stage = 0, const QuantizationSpec& q = {}) {
  const NumericFormat dtype = spec.dtype == NumericFormat::kFloat32 ? NumericFormat::kFloat16 : spec.dtype;
  return BytesToGiB(WeightsOnGpu(spec, EnumerateWeights(spec), q, dtype, tp, pp, stage).total_bytes());
}

// vllm/distributed/utils.py get_pp_indices: remainder layers go to the stages before the last.
TEST(WeightMemoryTest, PipelineSplitFollowsVllm) {
  const auto r = PipelineStageLayers(32, 3);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0], (std::pair<int64_t, int64_t>{0, 11}));
  EXPECT_EQ(r[1], (std::pair<int64_t, int64_t>{11, 22}));
  EXPECT_EQ(r[2], (std::pair<int64_t, int64_t>{22, 32}));
}

// VLLM_PP_LAYER_PARTITION (get_pp_indices) sets each stage's layer count; vLLM refuses a partition whose
// stage count is not pp_size or whose layers are not num_hidden_layers ("Invalid partition string" for an
// item int() cannot read). It was planned with the even split as if the variable were not there.
TEST(WeightMemoryTest, PipelinePartitionGivesEachStageItsLayers) {
  const auto r = PipelineStageLayers(32, 3, ParsePipelineLayerPartition("4, +12,1_6"));
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0], (std::pair<int64_t, int64_t>{0, 4}));
  EXPECT_EQ(r[1], (std::pair<int64_t, int64_t>{4, 16}));
  EXPECT_EQ(r[2], (std::pair<int64_t, int64_t>{16, 32}));
  EXPECT_THROW(PipelineStageLayers(32, 2, {15, 16}), Error);      // 31 layers
  EXPECT_THROW(PipelineStageLayers(32, 2, {10, 11, 11}), Error);  // 3 stages for pp 2
  EXPECT_TRUE(ParsePipelineLayerPartition("").empty());  // not given
  for (const char* bad : {"8,", "8,,24", "8;24", "8.0,24", "0x8,24", "1__6,16", "_8,24", "-8,40", "0,32"})
    EXPECT_THROW(ParsePipelineLayerPartition(bad), Error) << bad;
}

// Hand-derived: a 2-layer toy with vocab 1000 (padded to 1024 by vLLM), hidden 64, MHA 4 heads,
// MLP 128, fp16. TP=2 halves q/k/v/o, gate/up/down and the padded vocabulary; norms replicate.
TEST(WeightMemoryTest, TensorParallelShardsLinearsAndPaddedVocab) {
  ModelSpec spec = SpecFromJson(LlamaConfig(64, 128, 2, 4, 4, 1000, false, 0 + 8));
  spec.rope_cache_positions = 0;
  const double layer = 4.0 * 64 * 64 + 3.0 * 64 * 128;  // attention + MLP elements
  const double tp1 = 2 * layer + 2 * 1024.0 * 64 + (2 * 2 + 1) * 64;
  const double tp2 = 2 * layer / 2 + 2 * 512.0 * 64 + (2 * 2 + 1) * 64;
  EXPECT_DOUBLE_EQ(WeightsOnGpu(spec, EnumerateWeights(spec), {}, NumericFormat::kFloat16, 1, 1, 0).total_bytes(), 2 * tp1);
  EXPECT_DOUBLE_EQ(WeightsOnGpu(spec, EnumerateWeights(spec), {}, NumericFormat::kFloat16, 2, 1, 0).total_bytes(), 2 * tp2);
}

// --cpu-offload-gb as vLLM's maybe_offload_to_cpu moves parameters (make_layers, layer by layer):
// whole parameters while the bytes moved are below the budget; embeddings, the final norm and
// lm_head stay. Hand-derived on a 4-layer toy, fp16, hidden 256, 4 heads of 64 (2 KV heads), MLP 512,
// vocabulary 1000 (1,024 padded). A layer in kvsim's order: two norms (512 B each), q 131,072 B,
// k 65,536, v 65,536, o 131,072, gate_up 524,288, down 262,144: 1,180,672 B.
TEST(WeightMemoryTest, CpuOffloadMovesWholeLayerParametersUntilTheBudgetIsPassed) {
  ModelSpec spec = SpecFromJson(LlamaConfig(256, 512, 4, 4, 2, 1000, false, 8));
  spec.rope_cache_positions = 0;
  auto weights = [&](double budget) {
    return WeightsOnGpu(spec, EnumerateWeights(spec), {}, NumericFormat::kFloat16, 1, 1, 0, 0, budget);
  };
  const WeightMemory none = weights(0);
  EXPECT_DOUBLE_EQ(none.layer_bytes, 4 * 1180672.0);
  EXPECT_DOUBLE_EQ(none.cpu_offloaded_bytes, 0.0);
  // 1,500,000 B: layer 0 whole (1,180,672), then layer 1's norms, q, k, v (1,443,840, still below)
  // and o, which passes the budget (1,574,912); gate_up is not taken.
  const WeightMemory some = weights(1500000);
  EXPECT_DOUBLE_EQ(some.cpu_offloaded_bytes, 1574912.0);
  EXPECT_DOUBLE_EQ(some.total_bytes(), none.total_bytes() - 1574912.0);
  // More than the layers hold: the layers only; embeddings (524,288), lm_head (524,288) and the final
  // norm (512) stay on the GPU.
  const WeightMemory all = weights(1e12);
  EXPECT_DOUBLE_EQ(all.cpu_offloaded_bytes, 4 * 1180672.0);
  EXPECT_DOUBLE_EQ(all.total_bytes(), 2 * 524288.0 + 512);
}

// Real vLLM logs (validation rows R066, R069, R068, R079): "weights memory" per rank.
TEST(WeightMemoryTest, MatchesWeightsVllmLogged) {
  const ModelSpec llama8b = SharedModel("meta-llama__Llama-3.1-8B-Instruct.json");
  EXPECT_NEAR(WeightsGiB(llama8b, 1), 14.99, 0.02);
  EXPECT_NEAR(WeightsGiB(llama8b, 2), 7.51, 0.02);
  EXPECT_NEAR(WeightsGiB(llama8b, 1, 4, 0), 4.26, 0.02);  // first PP stage: embeddings + 8 layers
  EXPECT_NEAR(WeightsGiB(llama8b, 1, 4, 1), 3.28, 0.02);  // a middle stage
  EXPECT_NEAR(WeightsGiB(SharedModel("Qwen__Qwen2.5-72B.json"), 4), 34.01, 0.34);
}

// gpt-oss keeps attention in bf16 and stores experts as mxfp4, padded by vLLM's kernels
// (R102: 13.47 GiB; R103: 64.38 GiB on one H100).
TEST(WeightMemoryTest, Mxfp4ExpertsWithKernelPadding) {
  const ModelSpec small = SharedModel("openai__gpt-oss-20b.json");
  EXPECT_NEAR(WeightsGiB(small, 1, 1, 0, small.checkpoint_quantization), 13.47, 0.13);
  const ModelSpec big = SharedModel("openai__gpt-oss-120b.json");
  EXPECT_NEAR(WeightsGiB(big, 1, 1, 0, big.checkpoint_quantization), 64.38, 0.64);
}

// FP8 / int8 checkpoints keep embeddings and lm_head in bf16 (R046: 16.96 GiB at TP=4; R096: 33.88 at TP=2).
TEST(WeightMemoryTest, EightBitLinearsKeepEmbeddingsWide) {
  const ModelSpec l70 = SharedModel("meta-llama__Llama-3.3-70B-Instruct.json");
  EXPECT_NEAR(WeightsGiB(l70, 4, 1, 0, ParseQuantizationFlag("fp8", {})), 16.96, 0.17);
  EXPECT_NEAR(WeightsGiB(l70, 2, 1, 0, ParseQuantizationFlag("int8", {})), 33.88, 0.34);
}

}  // namespace
}  // namespace kvsim
