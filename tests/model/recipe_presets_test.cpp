// The presets and aliases added for the serve lines of vLLM's recipes that had no model here: GLM-4.7,
// Nemotron-3-Nano's FP8 release, and the EAGLE-3 head of Llama-3.1-8B. Each is checked against its
// published parameter count or a figure derived by hand from its config below, never against kvsim's
// own output.
#include <gtest/gtest.h>

#include <memory>

#include <nlohmann/json.hpp>

#include "kvcache/base/error.h"
#include "kvcache/budget/speculative_memory.h"
#include "kvcache/budget/weight_memory.h"
#include "kvcache/model/model_catalog.h"
#include "kvcache/model/model_config_parser.h"
#include "kvcache/model/quantization.h"
#include "kvcache/model/weight_tensors.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

const std::string kData = KVSIM_DATA_DIR_FOR_TESTS;

ModelSpec Named(const std::string& id) { return ResolveModel(id, kData); }
double Billions(int64_t n) { return static_cast<double>(n) / 1e9; }

// GLM-4.7: the GLM-4.5 architecture, "355B total parameters and 32B active" (GLM-4.5 technical report,
// arXiv 2508.06471, Table 1: 3 dense and 89 MoE layers, hidden 5,120, 96 query / 8 KV heads of 128,
// 160 routed experts of 1,536 plus a shared one, 8 active). By hand: 92 layers of 136,341,760 attention
// parameters (q and o 5,120 x 12,288, k and v 5,120 x 1,024, their biases, QK norms and the two layer
// norms), 3 dense MLPs of 3 x 5,120 x 12,288, 89 MoE layers of 161 experts of 3 x 5,120 x 1,536 with a
// router and its correction bias, and 2 x 151,552 x 5,120 of embedding and head: 352.80B (the card
// rounds up). Active, as the card counts it (without the embedding and head, as for GLM-4.5-Air): the
// attention and dense layers and 9 of the 161 experts of each MoE layer, 32.08B. Its one MTP layer
// (num_nextn_predict_layers) is apart: vLLM loads it only as a drafter.
TEST(RecipePresetsTest, Glm47MatchesItsCard) {
  const ModelSpec spec = Named("zai-org/GLM-4.7");
  EXPECT_EQ(spec.num_layers, 92);
  EXPECT_EQ(spec.mtp_layers, 1);
  EXPECT_NEAR(Billions(CountParameters(spec)), 352.80, 0.01);
  EXPECT_NEAR(Billions(CountParameters(spec)), 355.0, 355.0 * 0.01);
  const int64_t embedding_and_head = 2LL * 151552 * 5120;
  EXPECT_NEAR(Billions(CountActiveParameters(spec) - embedding_and_head), 32.08, 0.01);
  EXPECT_NEAR(Billions(CountActiveParameters(spec) - embedding_and_head), 32.0, 32.0 * 0.01);
  EXPECT_EQ(spec.rotary_dim, 64);  // partial_rotary_factor 0.5 of head_dim 128
  const ModelSpec fp8 = Named("zai-org/GLM-4.7-FP8");
  EXPECT_EQ(fp8.checkpoint_quantization.method, QuantMethod::kFp8);
  EXPECT_EQ(CountParameters(fp8), CountParameters(spec));
}

// NVIDIA-Nemotron-3-Nano-30B-A3B-FP8: per-tensor FP8 on the routed and shared experts and on 17 of the 23
// Mamba layers; attention, the Mamba layer before each attention layer, convolutions, routers, embeddings
// and head in bf16 (the recipe data/models/ALIASES.tsv cites). By hand from the config: a Mamba layer's
// in_proj is (4,096 + 6,144 + 64) x 2,688 and out_proj 2,688 x 4,096 (38,707,200); a MoE layer holds 128
// routed squared-ReLU experts of 2 x 2,688 x 1,856 and a shared one of 2 x 2,688 x 3,712 (1,297,121,280).
// FP8: 17 x 38,707,200 + 23 x 1,297,121,280 = 30,491,811,840 weights of one byte (and a 4-byte scale per
// tensor). vLLM's "Model loading memory" for this checkpoint on one H100 is 31.4 GiB (NVIDIA Model-Optimizer
// README, search-index file 55503058637): weights plus what loading leaves allocated, so it bounds them
// from above.
TEST(RecipePresetsTest, Nemotron3NanoFp8KeepsItsSensitiveLayersIn16Bits) {
  const ModelSpec spec = Named("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-FP8");
  const QuantizationSpec& q = spec.checkpoint_quantization;
  ASSERT_EQ(q.method, QuantMethod::kFp8);
  EXPECT_FALSE(q.attention_unquantized);
  EXPECT_EQ(q.unquantized_mixer_layers, (std::vector<int64_t>{4, 5, 11, 12, 18, 19, 25, 26, 32, 33, 41, 42}));
  const WeightMemory w = WeightsOnGpu(spec, EnumerateWeights(spec), q, spec.dtype, 1, 1, 0);
  const double fp8_weights = 17.0 * 38707200 + 23.0 * 1297121280;
  EXPECT_GT(w.quantized_bytes, fp8_weights);
  EXPECT_LT(w.quantized_bytes, fp8_weights + 1e6);  // the per-tensor scales
  const int64_t bf16 = CountParameters(spec) - static_cast<int64_t>(fp8_weights);
  EXPECT_NEAR(w.full_width_bytes, 2.0 * static_cast<double>(bf16), 1e6);
  const double gib = (w.quantized_bytes + w.full_width_bytes) / (1024.0 * 1024.0 * 1024.0);
  EXPECT_LT(gib, 31.4);
  EXPECT_GT(gib, 31.4 * 0.95);
}

// ModelOpt's exclude_modules names single layers' mixer projections (Nemotron-3) or every layer's
// self_attn (NVIDIA's DeepSeek FP4); names of other modules leave the layer quantized.
TEST(RecipePresetsTest, ModelOptExclusionsAreReadPerLayer) {
  const nlohmann::json config = nlohmann::json::parse(R"({"quant_method": "modelopt", "quant_algo": "FP8",
      "exclude_modules": ["lm_head", "backbone.layers.7.mixer.in_proj", "backbone.layers.7.mixer.out_proj",
                          "backbone.layers.3.mixer.conv1d", "backbone.layers.12.mixer.experts.0.up_proj",
                          "backbone.layers.x.mixer.q_proj", "model.layers.2.mixer.o_proj"]})");
  const QuantizationSpec q = ParseQuantizationConfig(config, "hf_quant_config.json");
  EXPECT_EQ(q.method, QuantMethod::kFp8);
  EXPECT_EQ(q.unquantized_mixer_layers, (std::vector<int64_t>{2, 7}));
  EXPECT_FALSE(q.attention_unquantized);
}

// yuhuili/EAGLE3-LLaMA3.1-Instruct-8B as vLLM loads it beside Llama-3.1-8B-Instruct (llama_eagle3.py): by hand,
// fc 4,096 x 12,288; one decoder layer whose q/k/v read 8,192 features (q 4,096 x 8,192, k and v 1,024 x 8,192,
// o 4,096 x 4,096, gate_up 28,672 x 4,096, down 4,096 x 14,336); its own lm_head over the 32,000-token draft
// vocabulary (4,096 wide); four norms of 4,096 (two in the layer, hidden_norm, the final one): 424,689,664
// parameters of 2 bytes, plus the draft-to-target id map of 32,000 int64. The embedding is the target's.
TEST(RecipePresetsTest, Eagle3HeadOfLlama31Is425MillionParameters) {
  const ModelSpec target = Named("meta-llama/Llama-3.1-8B-Instruct");
  for (const std::string id : {"yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "RedHatAI/Llama-3.1-8B-Instruct-speculator.eagle3"}) {
    SpeculativeSettings s;
    s.method = "eagle3";
    s.draft_model = id;
    s.num_speculative_tokens = 3;
    s.draft = std::make_shared<const ModelSpec>(Named(id));
    EXPECT_EQ(s.draft->draft_vocab_size, 32000) << id;
    const DraftWeights d = DraftWeightsOnGpu(target, EnumerateWeights(target), s, QuantizationSpec{}, target.dtype, 1);
    const double params = 50331648.0 + 33554432 + 2 * 8388608 + 16777216 + 117440512 + 58720256 + 131072000 + 4 * 4096;
    EXPECT_DOUBLE_EQ(d.memory.quantized_bytes + d.memory.full_width_bytes, 2.0 * params + 8.0 * 32000) << id;
  }
}

// Kimi-Linear's KDA layers are refused with the reason, not read as a Llama.
TEST(RecipePresetsTest, KimiLinearIsRefusedWithItsReason) {
  try {
    testing::SpecFromJson(R"({"architectures":["KimiLinearForCausalLM"],"model_type":"kimi_linear",
      "hidden_size":2304,"num_hidden_layers":27,"num_attention_heads":32,"vocab_size":163840})");
    FAIL() << "accepted kimi_linear";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Kimi Delta Attention"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kvsim
