// ModelOpt MIXED_PRECISION checkpoints: a format per class of module, read from quantized_layers,
// against figures derived by hand from NVIDIA's published configs.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "kvcache/base/error.h"
#include "kvcache/budget/weight_memory.h"
#include "kvcache/model/model_catalog.h"
#include "kvcache/model/quantization.h"
#include "kvcache/model/weight_tensors.h"

namespace kvsim {
namespace {

const std::string kData = KVSIM_DATA_DIR_FOR_TESTS;

nlohmann::json Mixed(const nlohmann::json& layers) {
  return {{"quant_method", "modelopt"}, {"quant_algo", "MIXED_PRECISION"}, {"quantized_layers", layers}};
}

void ExpectRefused(const nlohmann::json& config, const std::string& reason) {
  try {
    ParseQuantizationConfig(config, "config.json");
    ADD_FAILURE() << "accepted " << config.dump();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
  }
}

const nlohmann::json kNvfp4 = {{"quant_algo", "W4A16_NVFP4"}, {"group_size", 16}};
const nlohmann::json kFp8 = {{"quant_algo", "FP8"}};

TEST(ModelOptMixedPrecisionTest, FormatsByClassOfModule) {
  const QuantizationSpec q = ParseQuantizationConfig(
      Mixed({{"model.language_model.layers.0.self_attn.q_proj", kFp8}, {"model.language_model.layers.0.mlp.experts", kNvfp4},
             {"model.language_model.layers.0.mlp.shared_expert.up_proj", kNvfp4}, {"lm_head", kNvfp4}}),
      "config.json");
  EXPECT_EQ(q.method, QuantMethod::kNvfp4);
  EXPECT_TRUE(q.attention_fp8);
  EXPECT_TRUE(q.lm_head_quantized);
  EXPECT_FALSE(q.experts_only);
  // An fp8 attention projection of 1,024 x 1,024: one byte a weight and one fp32 scale.
  EXPECT_DOUBLE_EQ(LinearWeightBytes(AttentionFormat(q), 1024, 1024, 2.0), 1024.0 * 1024 + 4);
  // Only the experts named: the rest stays in the model dtype.
  const QuantizationSpec experts = ParseQuantizationConfig(Mixed({{"backbone.layers.1.mixer.experts.0.up_proj", kNvfp4}}), "c");
  EXPECT_TRUE(experts.experts_only);
  EXPECT_FALSE(experts.lm_head_quantized);
}

TEST(ModelOptMixedPrecisionTest, WhatKvsimCannotSizeIsRefused) {
  ExpectRefused(Mixed({{"model.layers.0.mlp.gate_proj", kNvfp4}, {"model.layers.1.mlp.gate_proj", kFp8}}),
                "the MLPs and shared experts are in both FP8 and NVFP4");
  ExpectRefused(Mixed({{"model.layers.0.mlp.gate_proj", {{"quant_algo", "W4A8_AWQ"}}}}), "'W4A8_AWQ' is not modelled");
  ExpectRefused(Mixed({{"model.vision.patch_embed", kFp8}}), "'model.vision.patch_embed' is not a module kvsim can place");
  ExpectRefused(Mixed(nlohmann::json::object()), "quantized_layers: MIXED_PRECISION names each module's format there");
  ExpectRefused(Mixed({{"model.layers.0.mlp.gate_proj", kNvfp4}, {"lm_head", kFp8}}), "lm_head is in FP8 and the MLPs in NVFP4");
}

// nvidia/Qwen3.6-27B-NVFP4 (ALIASES.tsv): hidden 5,120, vocabulary 248,320, 64 layers (16 full attention, 48
// Gated DeltaNet), MLPs of 17,408. By hand, in bytes: FP8 (one byte a weight, 4 B of scale a tensor) for
// each full-attention layer's gated q_proj 12,288 x 5,120, k_proj and v_proj 1,024 x 5,120, o_proj 5,120 x
// 6,144, and each linear layer's in_proj_qkv 10,240 x 5,120, in_proj_z and out_proj 6,144 x 5,120; NVFP4
// (0.5625 B a weight, 8 B a tensor) for the three MLP projections and the lm_head; bf16 for the embedding,
// norms, QK norms, in_proj_a/b (48 x 5,120 each), the conv1d (10,240 x 4), A_log and dt_bias, and the
// vision tower's 460,737,008 parameters: 21,072,042,280 B. kvsim stores in_proj_a/b with the other
// linear-attention projections in FP8 (23.6 MB less), within 0.15%.
TEST(ModelOptMixedPrecisionTest, Qwen36_27bNvfp4ByHand) {
  const ModelSpec spec = ResolveModel("nvidia/Qwen3.6-27B-NVFP4", kData);
  const WeightMemory m = WeightsOnGpu(spec, EnumerateWeights(spec), spec.checkpoint_quantization, spec.dtype, 1, 1, 0);
  EXPECT_NEAR((m.quantized_bytes + m.full_width_bytes) / 21072042280.0, 1.0, 0.0015);
  // The same checkpoint read as one format throughout would be 1.6 GB smaller (fp8 projections at NVFP4's width).
  QuantizationSpec uniform = spec.checkpoint_quantization;
  uniform.attention_fp8 = false;
  const WeightMemory u = WeightsOnGpu(spec, EnumerateWeights(spec), uniform, spec.dtype, 1, 1, 0);
  EXPECT_GT(m.quantized_bytes - u.quantized_bytes, 1.5e9);
}

}  // namespace
}  // namespace kvsim
