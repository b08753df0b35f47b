// The DeepSeek, Kimi, GLM and MiniMax presets (data/models, sources in data/models/SOURCES.md) against
// their model cards' parameter counts, and the ids the alias table (data/models/ALIASES.tsv) maps onto
// them. Every expected figure is a card's, a checkpoint's tensor count, or derived by hand below.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "kvcache/base/error.h"
#include "kvcache/budget/kv_cache_layout.h"
#include "kvcache/budget/weight_memory.h"
#include "kvcache/model/model_aliases.h"
#include "kvcache/model/model_catalog.h"
#include "kvcache/model/quantization.h"
#include "kvcache/model/weight_tensors.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

const std::string kData = KVSIM_DATA_DIR_FOR_TESTS;

ModelSpec Preset(const std::string& id) { return LoadModelConfigFile(kData + "/models/" + id + ".json"); }
double Billions(int64_t n) { return static_cast<double>(n) / 1e9; }

// DeepSeek-V3.2: "671B" for the main model (the card), and a checkpoint of 685,396,921,376 numbers
// (a public dump of its 163 safetensors files' tensors, search index id 62736905881), which also counts
// the MTP layer 61 with its own embedding and head copies (129,280 x 7,168 each) and the fp8 block
// scales (weight_scale_inv, about one float per 128 x 128 weights: ~0.04B). Within 0.5%. Beside
// DeepSeek-V3 it adds only the DSA indexer, active for every token: per layer wq_b [64 x 128, 1,536],
// wk [128, 7,168], k_norm's weight and bias [128] and weights_proj [64, 7,168] (the dump's tensors):
// 13,959,424, x 61 layers.
TEST(FrontierPresetsTest, DeepSeekV32MatchesItsCheckpoint) {
  const ModelSpec spec = Preset("deepseek-ai/DeepSeek-V3.2");
  EXPECT_EQ(spec.model_type, "deepseek_v32");
  EXPECT_EQ(spec.mla.indexer_heads, 64);
  EXPECT_EQ(spec.mla.indexer_head_dim, 128);
  EXPECT_NEAR(Billions(CountParameters(spec)), 671.0, 671.0 * 0.01);
  const ModelSpec v3 = Preset("deepseek-ai/DeepSeek-V3");
  const int64_t indexer = 61LL * (64 * 128 * 1536 + 128 * 7168 + 2 * 128 + 64 * 7168);
  EXPECT_EQ(CountParameters(spec) - CountParameters(v3), indexer);
  EXPECT_EQ(CountActiveParameters(spec) - CountActiveParameters(v3), indexer);
  const int64_t checkpoint = CountParameters(spec) + CountMtpParameters(spec) + 2LL * 129280 * 7168;
  EXPECT_NEAR(Billions(checkpoint), 685.397, 685.397 * 0.005);
}

// DSA's KV cache, by hand from vLLM's deepseek_v2.py: the latent as fp8_ds_mla, 656 B per token and layer
// (512 fp8 values, 4 fp32 scales, 64 bf16 RoPE values), which kv_cache_dtype "auto" selects for a config
// with index_topk; plus the indexer's key cache, 128 fp8 values and one fp32 scale per 128: 132 B.
TEST(FrontierPresetsTest, DeepSeekV32KvCacheCarriesTheIndexerKeys) {
  const ModelSpec spec = Preset("deepseek-ai/DeepSeek-V3.2");
  const KvCacheFormat format = ParseKvCacheFormat("auto", spec, spec.dtype);
  EXPECT_TRUE(format.fp8_ds_mla);
  EXPECT_DOUBLE_EQ(AttentionBytesPerTokenPerLayer(spec, format, 1), 656.0 + 132.0);
}

// Kimi-K2-Thinking: "1T total, 32B activated" (the card), its routed experts INT4 in groups of 32 with
// attention, shared experts, the dense MLP and lm_head in bf16 (the quantization_config's ignore list).
// By hand, one expert's gate_up [4,096 x 7,168] and down [7,168 x 2,048] at 4 bits plus a 2-byte
// scale per 32 inputs: 14,680,064 + 1,835,008 + 7,340,032 + 917,504 = 24,772,608 B; x 384 experts
// x 60 MoE layers = 570,760,888,320 B. Everything else stays 2 bytes per parameter.
TEST(FrontierPresetsTest, KimiK2ThinkingPlansOnlyItsExpertsAtFourBits) {
  const ModelSpec spec = Preset("moonshotai/Kimi-K2-Thinking");
  EXPECT_NEAR(Billions(CountParameters(spec)), 1000.0, 1000.0 * 0.03);
  EXPECT_NEAR(Billions(CountActiveParameters(spec)), 32.0, 32.0 * 0.03);
  ASSERT_EQ(spec.checkpoint_quantization.method, QuantMethod::kInt4Symmetric);
  EXPECT_EQ(spec.checkpoint_quantization.group_size, 32);
  EXPECT_TRUE(spec.checkpoint_quantization.experts_only);
  const WeightMemory w =
      WeightsOnGpu(spec, EnumerateWeights(spec), spec.checkpoint_quantization, spec.dtype, 1, 1, 0);
  EXPECT_DOUBLE_EQ(w.quantized_bytes, 570760888320.0);
  const int64_t routed = 384LL * 60 * 3 * 7168 * 2048;
  EXPECT_DOUBLE_EQ(w.full_width_bytes, 2.0 * static_cast<double>(CountParameters(spec) - routed));
}

// Kimi-K2.5: the same 1T / 32B language model (card) and its MoonViT tower, "400M" (card). By hand from
// vision_config, as the checkpoint's tensors list them (a public dump of its 64 safetensors files,
// search index id 62530201892): 27 blocks of wqkv [3,456 x 1,152], wo [1,152 x 1,152], fc0 [4,304 x
// 1,152], fc1 [1,152 x 4,304], their biases and norm0/norm1 (15,239,504 each: 411,466,608), the patch
// convolution 1,152 x 3 x 14 x 14 + bias (678,528), the position table 64 x 64 x 1,152 (4,718,592), the
// final LayerNorm (2,304); the projector: pre_norm over 1,152 (2,304), proj.0 [4,608 x 4,608] + bias,
// proj.2 [7,168 x 4,608] + bias.
TEST(FrontierPresetsTest, KimiK25CountsItsVisionTower) {
  const ModelSpec spec = Preset("moonshotai/Kimi-K2.5");
  EXPECT_EQ(spec.model_type, "kimi_k2");
  const int64_t tower = 411466608LL + 678528 + 4718592 + 2304;
  EXPECT_EQ(spec.vision_params, tower + 2304 + (4608LL * 4608 + 4608) + (7168LL * 4608 + 7168));
  EXPECT_NEAR(static_cast<double>(tower) / 1e6, 400.0, 400.0 * 0.06);
  EXPECT_NEAR(Billions(CountParameters(spec)), 1000.0, 1000.0 * 0.03);
  EXPECT_TRUE(spec.checkpoint_quantization.experts_only);
}

// The same dump sums the checkpoint's tensors to 554.27 GiB: INT4 experts packed in int32 with bf16 scales
// per 32 inputs, everything else bf16. kvsim's weights on one GPU (no RoPE cache) within 0.5%.
TEST(FrontierPresetsTest, KimiK25WeightsMatchItsCheckpointBytes) {
  const ModelSpec spec = Preset("moonshotai/Kimi-K2.5");
  const WeightMemory w =
      WeightsOnGpu(spec, EnumerateWeights(spec), spec.checkpoint_quantization, spec.dtype, 1, 1, 0);
  const double gib = (w.quantized_bytes + w.full_width_bytes) / (1024.0 * 1024.0 * 1024.0);
  EXPECT_NEAR(gib, 554.27, 554.27 * 0.005);
}

// MiniMax-M2.7 (and M2, M2.1, M2.5 through the alias table): "230B total, 10B activated" (the card), and a
// checkpoint of 228,703,644,928 numbers (a public dump of its 125 safetensors files, search index id
// 62693775865: no MTP tensors ship, and vLLM's MiniMaxM2ForCausalLM loads none). By hand: 62 layers of
// attention (q and o 3,072 x 6,144, k and v 3,072 x 1,024: 44.0M) and 256 experts of 3 x 3,072 x 1,536
// (3.62B), embeddings and head 2 x 200,064 x 3,072: 228.7B. Within 0.2% of the checkpoint. The card's
// "10B activated" leaves out the embedding and the output head (1.23B): attention 2.73B and 8 experts per
// layer 7.02B come to 9.8B.
TEST(FrontierPresetsTest, MiniMaxM27MatchesItsCheckpoint) {
  const ModelSpec spec = Preset("MiniMaxAI/MiniMax-M2.7");
  EXPECT_NEAR(Billions(CountParameters(spec)), 228.704, 228.704 * 0.002);
  EXPECT_NEAR(Billions(CountParameters(spec)), 230.0, 230.0 * 0.01);
  EXPECT_NEAR(Billions(CountActiveParameters(spec) - 2LL * 200064 * 3072), 10.0, 10.0 * 0.03);
  EXPECT_EQ(spec.mtp_layers, 0);
  EXPECT_EQ(spec.rotary_dim, 64);
  EXPECT_TRUE(spec.moe.router_correction_bias);
  EXPECT_EQ(spec.checkpoint_quantization.method, QuantMethod::kFp8);
  EXPECT_EQ(ResolveModel("MiniMaxAI/MiniMax-M2.5", kData).max_position_embeddings, 196608);
}

// GLM-5.1: "744B total, 40B activated" for GLM-5's main model (the card), and a checkpoint of
// 753,864,139,008 numbers (a public dump of its 282 safetensors files, search index id 62604838642) that
// adds the MTP layer 78 (sharing the embedding and head). Within 1.5% and 0.3%. Its KV cache per token and
// layer: the 576-wide latent in bf16 (no fp8_ds_mla hook for GlmMoeDsaForCausalLM) plus the indexer's
// 128 fp8 keys and one fp32 scale: 1,152 + 132 B.
TEST(FrontierPresetsTest, Glm51MatchesItsCheckpoint) {
  const ModelSpec spec = Preset("zai-org/GLM-5.1");
  EXPECT_EQ(spec.mtp_layers, 1);
  EXPECT_EQ(spec.mla.indexer_heads, 32);
  EXPECT_NEAR(Billions(CountParameters(spec)), 744.0, 744.0 * 0.015);
  EXPECT_NEAR(Billions(CountActiveParameters(spec)), 40.0, 40.0 * 0.05);
  EXPECT_NEAR(Billions(CountParameters(spec) + CountMtpParameters(spec)), 753.864, 753.864 * 0.003);
  const KvCacheFormat format = ParseKvCacheFormat("auto", spec, spec.dtype);
  EXPECT_FALSE(format.fp8_ds_mla);
  EXPECT_DOUBLE_EQ(AttentionBytesPerTokenPerLayer(spec, format, 1), 1152.0 + 132.0);
}

// GLM-4.5-Air: "106B total parameters and 12B active" (the card, https://huggingface.co/zai-org/GLM-4.5-Air),
// for the main model: its MTP layer (num_nextn_predict_layers 1, loaded only as a drafter) is apart. As
// for MiniMax, the activated figure leaves out the embedding and output head (2 x 151,552 x 4,096). Within 1%.
TEST(FrontierPresetsTest, Glm45AirMatchesItsCard) {
  const ModelSpec spec = Preset("zai-org/GLM-4.5-Air");
  EXPECT_EQ(spec.mtp_layers, 1);
  EXPECT_GT(CountMtpParameters(spec), 0);
  EXPECT_NEAR(Billions(CountParameters(spec)), 106.0, 106.0 * 0.01);
  EXPECT_NEAR(Billions(CountActiveParameters(spec) - 2LL * 151552 * 4096), 12.0, 12.0 * 0.02);
  EXPECT_EQ(spec.rotary_dim, 64);  // partial_rotary_factor 0.5 of head_dim 128
}

// GLM-4.5V: its checkpoint holds 107,710,933,120 numbers (a public dump of its 46 safetensors files, search
// index id 62538297598): GLM-4.5-Air's language model without an MTP layer, and a 24-block tower whose
// MLP is out_hidden_size (4,096) wide, with a 2 x 2 downsampling convolution and a gated merger of
// intermediate_size (10,944), every shape as the dump lists it. Exact.
TEST(FrontierPresetsTest, Glm45vMatchesItsCheckpoint) {
  const ModelSpec spec = Preset("zai-org/GLM-4.5V");
  EXPECT_EQ(spec.model_type, "glm4v_moe_text");
  EXPECT_EQ(CountParameters(spec), 107710933120LL);
  EXPECT_EQ(spec.mtp_layers, 0);
  EXPECT_TRUE(spec.moe.router_correction_bias);
  EXPECT_EQ(ResolveModel("zai-org/GLM-4.5V-FP8", kData).checkpoint_quantization.method, QuantMethod::kFp8);
}

// nvidia/DeepSeek-R1-FP4 (alias of DeepSeek-R1 with NVIDIA's ModelOpt NVFP4 block): the MLPs -- three
// dense layers of 3 x 7,168 x 18,432 and 58 MoE layers of 257 experts (256 routed, 1 shared) of
// 3 x 7,168 x 2,048 -- are NVFP4, while self_attn, excluded, stays bf16 beside the embeddings, norms,
// routers and head: those take 2 bytes a parameter.
TEST(FrontierPresetsTest, DeepSeekR1Fp4KeepsAttentionIn16Bits) {
  const ModelSpec spec = ResolveModel("nvidia/DeepSeek-R1-FP4", kData);
  ASSERT_EQ(spec.checkpoint_quantization.method, QuantMethod::kNvfp4);
  EXPECT_TRUE(spec.checkpoint_quantization.attention_unquantized);
  EXPECT_FALSE(spec.checkpoint_quantization.experts_only);
  const WeightMemory w =
      WeightsOnGpu(spec, EnumerateWeights(spec), spec.checkpoint_quantization, spec.dtype, 1, 1, 0);
  const int64_t mlp = 3LL * 3 * 7168 * 18432 + 58LL * 257 * 3 * 7168 * 2048;
  EXPECT_DOUBLE_EQ(w.full_width_bytes, 2.0 * static_cast<double>(CountParameters(spec) - mlp));
}

// Only an ignore list that keeps attention, the shared experts and the dense MLPs out leaves the routed
// experts as the sole quantized weights; ignoring attention alone still quantizes the MLPs.
TEST(FrontierPresetsTest, CompressedTensorsIgnoreListDecidesWhatIsQuantized) {
  auto experts_only = [](const std::string& ignore) {
    const nlohmann::json config = nlohmann::json::parse(
        R"({"quant_method": "compressed-tensors", "config_groups": {"group_0": {"weights":
            {"num_bits": 4, "group_size": 32, "symmetric": true, "type": "int"}}}, "ignore": )" + ignore + "}");
    return ParseQuantizationConfig(config, "config.json").experts_only;
  };
  EXPECT_TRUE(experts_only(
      R"(["lm_head", "re:.*self_attn.*", "re:.*shared_experts.*", "re:.*mlp\\.(gate|up|gate_up|down)_proj.*"])"));
  EXPECT_FALSE(experts_only(R"(["lm_head", "re:.*self_attn.*"])"));
  EXPECT_FALSE(experts_only(R"(["lm_head"])"));
}

// An alias resolves to its preset's shapes (ignoring case, as Hugging Face ids do) under its own name,
// with its declared patch merged in and a --hf-overrides still on top.
TEST(FrontierPresetsTest, AliasesResolveToTheirPresets) {
  const ModelSpec r1 = Preset("deepseek-ai/DeepSeek-R1");
  const ModelSpec r1_0528 = ResolveModel("deepseek-ai/DeepSeek-R1-0528", kData);
  EXPECT_EQ(r1_0528.name, "deepseek-ai/DeepSeek-R1-0528");
  EXPECT_EQ(CountParameters(r1_0528), CountParameters(r1));
  EXPECT_EQ(ResolveModel("deepseek-ai/deepseek-v3.2-exp", kData).mla.indexer_heads, 64);
  EXPECT_EQ(ResolveModel("minimaxai/minimax-m2.1", kData).moe.num_experts, 256);
  EXPECT_EQ(ResolveModel("zai-org/GLM-5.1-FP8", kData).checkpoint_quantization.method, QuantMethod::kFp8);
  const ModelSpec air_fp8 = ResolveModel("zai-org/GLM-4.5-Air-FP8", kData);
  EXPECT_EQ(air_fp8.checkpoint_quantization.method, QuantMethod::kFp8);
  EXPECT_EQ(Preset("zai-org/GLM-4.5-Air").checkpoint_quantization.method, QuantMethod::kNone);
  const ModelSpec patched = ResolveModel("zai-org/GLM-4.5-Air-FP8", kData, "--model", "--model ./config.json",
                                         nlohmann::json{{"max_position_embeddings", 65536}});
  EXPECT_EQ(patched.max_position_embeddings, 65536);
  EXPECT_EQ(patched.checkpoint_quantization.method, QuantMethod::kFp8);
  // Every row names a preset that ships.
  for (const ModelAlias& a : LoadModelAliases(kData))
    EXPECT_TRUE(std::filesystem::is_regular_file(kData + "/models/" + a.preset + ".json")) << a.id << " -> " << a.preset;
}

}  // namespace
}  // namespace kvsim
