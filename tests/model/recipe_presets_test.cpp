// The presets and aliases added for the serve lines of vLLM's recipes that had no model here: GLM-4.7,
// Nemotron-3-Nano's FP8 release, the EAGLE-3 head of Llama-3.1-8B, and those of the July-September 2026
// recipes (Qwen3-1.7B, Qwen3.6-27B, Kimi-K2.6, Nemotron-3-Super, Nemotron-3.5-Lightning). Each is checked against its
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

// Qwen3-1.7B: "Number of Parameters: 1.7B, Number of Paramaters (Non-Embedding): 1.4B" (the model card,
// https://huggingface.co/Qwen/Qwen3-1.7B; vllm-project/recipes models/Qwen/Qwen3-1.7B.yaml parameter_count
// "1.7B"). By hand from the config: per layer q and o 2,048 x 2,048, k and v 1,024 x 2,048, the QK norms
// 2 x 128, a gated MLP 3 x 2,048 x 6,144 and two norms 2 x 2,048: 50,336,000; x 28 layers = 1,409,408,000
// (the card's 1.4B); plus the tied embedding 151,936 x 2,048 and the final norm: 1,720,574,976.
TEST(RecipePresetsTest, Qwen3OnePointSevenBMatchesItsCard) {
  const ModelSpec spec = Named("Qwen/Qwen3-1.7B");
  const int64_t per_layer = 2LL * 2048 * 2048 + 2LL * 1024 * 2048 + 2 * 128 + 3LL * 2048 * 6144 + 2 * 2048;
  EXPECT_EQ(CountParameters(spec), 28 * per_layer + 151936LL * 2048 + 2048);
  EXPECT_NEAR(Billions(CountParameters(spec)), 1.7, 1.7 * 0.03);
  EXPECT_NEAR(Billions(28 * per_layer), 1.4, 1.4 * 0.03);
}

// Kimi-K2.6 and Kimi-K2.7-Code: "1T" total and "32B" active (vllm-project/recipes models/moonshotai/Kimi-K2.6.yaml,
// Kimi-K2.7-Code.yaml), K2.5's shapes (NVIDIA's NVFP4 releases' configs state them). Their ids are planned as the
// K2.5 preset: Moonshot's INT4
// experts in groups of 32 with a bf16 scale, and NVIDIA's 4-bit floats in groups of 16 with an fp8 scale,
// are 4.5 bits per expert weight; both keep the first (dense) layer, attention, the shared experts and lm_head
// in bf16 (their ignore lists). By hand, one expert's gate_up [4,096 x 7,168] and down [7,168 x 2,048]:
// 14,680,064 + 1,835,008 + 7,340,032 + 917,504 = 24,772,608 B; x 384 experts x 60 MoE layers.
TEST(RecipePresetsTest, KimiK26MatchesItsCardAndQuantizesOnlyItsExperts) {
  for (const std::string id :
       {"moonshotai/Kimi-K2.6", "nvidia/Kimi-K2.6-NVFP4", "moonshotai/Kimi-K2.7-Code", "nvidia/Kimi-K2.7-Code-NVFP4"}) {
    const ModelSpec spec = Named(id);
    EXPECT_NEAR(Billions(CountParameters(spec)), 1000.0, 1000.0 * 0.03) << id;
    EXPECT_NEAR(Billions(CountActiveParameters(spec)), 32.0, 32.0 * 0.03) << id;
    const WeightMemory w =
        WeightsOnGpu(spec, EnumerateWeights(spec), spec.checkpoint_quantization, spec.dtype, 1, 1, 0);
    EXPECT_DOUBLE_EQ(w.quantized_bytes, 384.0 * 60 * 24772608) << id;
    const int64_t routed = 384LL * 60 * 3 * 7168 * 2048;
    EXPECT_DOUBLE_EQ(w.full_width_bytes, 2.0 * static_cast<double>(CountParameters(spec) - routed)) << id;
  }
}

// NVIDIA-Nemotron-3-Super-120B-A12B: "120B" total, "12B" active (vllm-project/recipes models/nvidia/
// NVIDIA-Nemotron-3-Super-120B-A12B-BF16.yaml: "~120B total / ~12B active"). By hand from the config and
// vLLM's nemotron_h.py: 40 Mamba2 layers (in_proj 4,096 x (2 x 8,192 + 2 x 8 x 128 + 128), conv1d 10,240 x 4
// and its bias, A, D and dt_bias of 128, the gated norm 8,192, out_proj 8,192 x 4,096, the layer norm);
// 8 attention layers (q and o 4,096 x 4,096, k and v 256 x 4,096, the norm); 40 LatentMoE layers (router
// 512 x 4,096 and its correction bias, fc1/fc2_latent_proj 2 x 1,024 x 4,096, 512 squared-ReLU experts of
// 2 x 1,024 x 2,688 in the latent width, a shared expert 2 x 4,096 x 5,376, the norm); embedding and head
// 2 x 131,072 x 4,096 and the final norm. Active: 22 of the 512 experts. The file spells time_step_limit's
// bound as Python writes it, Infinity.
TEST(RecipePresetsTest, Nemotron3SuperCountsItsLatentExperts) {
  const ModelSpec spec = Named("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16");
  EXPECT_EQ(spec.moe.latent_size, 1024);
  const int64_t mamba = 4096LL * 18560 + 10240 * 4 + 10240 + 3 * 128 + 8192 + 8192LL * 4096 + 4096;
  const int64_t attention = 2 * 4096LL * 4096 + 2 * 256LL * 4096 + 4096;
  const int64_t moe_fixed = 512LL * 4096 + 512 + 2 * 1024LL * 4096 + 2 * 4096LL * 5376 + 4096;
  const int64_t expert = 2 * 1024LL * 2688;
  const int64_t embedding_and_head = 2LL * 131072 * 4096;
  EXPECT_EQ(CountParameters(spec),
            40 * mamba + 8 * attention + 40 * (moe_fixed + 512 * expert) + embedding_and_head + 4096);
  EXPECT_NEAR(Billions(CountParameters(spec)), 120.0, 120.0 * 0.01);
  EXPECT_EQ(CountActiveParameters(spec),
            40 * mamba + 8 * attention + 40 * (moe_fixed + 22 * expert) + embedding_and_head + 4096);
  EXPECT_NEAR(Billions(CountActiveParameters(spec) - embedding_and_head), 12.0, 12.0 * 0.03);
  const ModelSpec fp8 = Named("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8");
  EXPECT_EQ(fp8.checkpoint_quantization.method, QuantMethod::kFp8);
  EXPECT_EQ(CountParameters(fp8), CountParameters(spec));
}

// NVIDIA-Nemotron-3-Ultra-550B-A55B: "550B" total, "55B" active (vllm-project/recipes models/nvidia/
// NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16.yaml). Its config lists 108 blocks and states no num_hidden_layers
// (transformers v5 derives it). By hand as for Super: 48 Mamba2 layers (in_proj 8,192 x (2 x 16,384 + 2 x 8
// x 128 + 256), conv1d 18,432 x 4 and its bias, A, D, dt_bias of 256, the gated norm 16,384, out_proj
// 16,384 x 8,192, the norm), 12 attention layers (q and o 8,192 x 8,192, k and v 256 x 8,192, the norm), 48
// LatentMoE layers (router 512 x 8,192 and its bias, latent projections 2 x 2,048 x 8,192, 512 experts of
// 2 x 2,048 x 5,120, a shared expert 2 x 8,192 x 10,240, the norm), embedding and head 2 x 131,072 x 8,192.
TEST(RecipePresetsTest, Nemotron3UltraTakesItsDepthFromItsBlockList) {
  const ModelSpec spec = Named("nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16");
  EXPECT_EQ(spec.num_layers, 108);
  const int64_t mamba = 8192LL * 35072 + 18432 * 4 + 18432 + 3 * 256 + 16384 + 16384LL * 8192 + 8192;
  const int64_t attention = 2 * 8192LL * 8192 + 2 * 256LL * 8192 + 8192;
  const int64_t moe_fixed = 512LL * 8192 + 512 + 2 * 2048LL * 8192 + 2 * 8192LL * 10240 + 8192;
  const int64_t expert = 2 * 2048LL * 5120;
  const int64_t embedding_and_head = 2LL * 131072 * 8192;
  EXPECT_EQ(CountParameters(spec),
            48 * mamba + 12 * attention + 48 * (moe_fixed + 512 * expert) + embedding_and_head + 8192);
  EXPECT_NEAR(Billions(CountParameters(spec)), 550.0, 550.0 * 0.01);
  EXPECT_NEAR(Billions(CountActiveParameters(spec) - embedding_and_head), 55.0, 55.0 * 0.03);
}

// Qwen3.5-27B, -35B-A3B and -122B-A10B: "27B", "35B" and "122B" (vllm-project/recipes models/Qwen/<name>.yaml
// parameter_count), counted with the vision tower as the cards count it. Within 1.5%.
TEST(RecipePresetsTest, Qwen35PresetsMatchTheirCards) {
  EXPECT_NEAR(Billions(CountParameters(Named("Qwen/Qwen3.5-27B"))), 27.0, 27.0 * 0.015);
  EXPECT_NEAR(Billions(CountParameters(Named("Qwen/Qwen3.5-35B-A3B"))), 35.0, 35.0 * 0.015);
  EXPECT_NEAR(Billions(CountParameters(Named("Qwen/Qwen3.5-122B-A10B"))), 122.0, 122.0 * 0.015);
}

// NVIDIA-Nemotron-3.5-Lightning-30B-A3B: "30B total / 3B active" (vllm-project/recipes models/nvidia/
// NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16.yaml). Its config lists the blocks by name (layers_block_type,
// transformers v5) where Nemotron-3-Nano's states them as a pattern; the names spell Nano's very pattern,
// and the shapes are Nano's (31.6B by the Nano card), so the two count alike.
TEST(RecipePresetsTest, Nemotron35LightningReadsItsBlockList) {
  const ModelSpec lightning = Named("nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16");
  const ModelSpec nano = Named("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16");
  ASSERT_EQ(lightning.layers.size(), 52u);
  for (size_t i = 0; i < lightning.layers.size(); ++i) {
    EXPECT_EQ(lightning.layers[i].kind, nano.layers[i].kind) << i;
    EXPECT_EQ(lightning.moe.layer_is_moe[i], nano.moe.layer_is_moe[i]) << i;
  }
  EXPECT_EQ(CountParameters(lightning), CountParameters(nano));
  EXPECT_NEAR(Billions(CountParameters(lightning)), 31.6, 31.6 * 0.01);
  EXPECT_EQ(lightning.max_position_embeddings, 1048576);
  testing::ExpectConfigRefused(R"({"architectures":["NemotronHForCausalLM"],"model_type":"nemotron_h","hidden_size":64,
      "num_hidden_layers":2,"layers_block_type":["mamba","convolution"],"num_attention_heads":2,"vocab_size":100,
      "intermediate_size":128,"max_position_embeddings":4096})",
                "layers_block_type: \"convolution\"");
}

// Qwen3.6-27B and Qwen3.8-27B: "27B" (vllm-project/recipes models/Qwen/Qwen3.6-27B.yaml, Qwen3.8-27B.yaml
// parameter_count), counted with the vision tower as the cards count it. Within 2%.
TEST(RecipePresetsTest, Qwen36TwentySevenBMatchesItsCard) {
  const ModelSpec spec = Named("Qwen/Qwen3.6-27B");
  EXPECT_EQ(spec.num_layers, 64);
  EXPECT_NEAR(Billions(CountParameters(spec)), 27.0, 27.0 * 0.02);
  EXPECT_EQ(Named("Qwen/Qwen3.6-27B-FP8").checkpoint_quantization.method, QuantMethod::kFp8);
  // Qwen3.8-27B by alias: "linear attention on 48 of 64 layers" (models/Qwen/Qwen3.8-27B.yaml).
  const ModelSpec q38 = Named("Qwen/Qwen3.8-27B");
  int linear = 0;
  for (const auto& layer : q38.layers) linear += layer.kind == AttentionKind::kStateOnly;
  EXPECT_EQ(linear, 48);
  EXPECT_EQ(q38.num_layers, 64);
  EXPECT_EQ(CountParameters(q38), CountParameters(spec));
}

// DiffusionGemma (vllm-project/recipes models/Google/diffusiongemma-26B-A4B-it.yaml: "iterative denoising over
// a fixed-length canvas rather than left-to-right autoregressive decoding") is refused with the reason.
TEST(RecipePresetsTest, DiffusionGemmaIsRefusedWithItsReason) {
  testing::ExpectConfigRefused(R"({"architectures":["DiffusionGemmaForBlockDiffusion"],"model_type":"diffusion_gemma",
      "canvas_length":256,"text_config":{"hidden_size":2816,"num_hidden_layers":30,"num_attention_heads":16,
      "vocab_size":262144}})",
                "block-diffusion");
}

// MiniMax-M3's sparse attention is refused with the reason, not read as a MiniMax-M2.
TEST(RecipePresetsTest, MiniMaxM3IsRefusedWithItsReason) {
  testing::ExpectConfigRefused(R"({"architectures":["MiniMaxM3ForCausalLM"],"model_type":"minimax_m3",
      "hidden_size":6144,"num_hidden_layers":60,"num_attention_heads":64,"vocab_size":200064})",
                "MSA sparse attention");
}

// Kimi-Linear's KDA layers are refused with the reason, not read as a Llama.
TEST(RecipePresetsTest, KimiLinearIsRefusedWithItsReason) {
  testing::ExpectConfigRefused(R"({"architectures":["KimiLinearForCausalLM"],"model_type":"kimi_linear",
      "hidden_size":2304,"num_hidden_layers":27,"num_attention_heads":32,"vocab_size":163840})",
                "Kimi Delta Attention");
}

}  // namespace
}  // namespace kvsim
