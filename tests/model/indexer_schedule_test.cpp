// GLM-5.2's IndexShare: which layers run a top-k indexer of their own, what that does to the weights
// and the KV pool, against figures derived by hand from its published config.json and vLLM's rule
//   skip_topk = max(layer - index_skip_topk_offset + 1, 0) % index_topk_freq != 0.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "kvcache/base/error.h"
#include "kvcache/budget/kv_cache_layout.h"
#include "kvcache/budget/weight_memory.h"
#include "kvcache/model/model_catalog.h"
#include "kvcache/model/weight_tensors.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

const std::string kData = KVSIM_DATA_DIR_FOR_TESTS;

// A small DSA model: 12 layers of MLA with an indexer, and the IndexShare fields `extra` adds. Its MLPs
// are dense: n_routed_experts 0 says so (left out, the family's config class would supply experts).
std::string DsaConfig(const std::string& extra) {
  return R"({"model_type": "glm_moe_dsa", "architectures": ["GlmMoeDsaForCausalLM"], "hidden_size": 1024, "n_routed_experts": 0,
             "intermediate_size": 2048, "num_hidden_layers": 12, "num_attention_heads": 8, "num_key_value_heads": 8,
             "vocab_size": 1000, "max_position_embeddings": 4096, "kv_lora_rank": 512, "q_lora_rank": 256, "qk_nope_head_dim": 64,
             "qk_rope_head_dim": 64, "v_head_dim": 64, "index_n_heads": 4, "index_head_dim": 128)" +
         extra + "}";
}

std::vector<int64_t> IndexedLayers(const ModelSpec& spec) {
  std::vector<int64_t> on;
  for (int64_t i = 0; i < spec.num_layers; ++i)
    if (spec.mla.HasIndexer(i)) on.push_back(i);
  return on;
}

// Without the fields every layer runs one (DeepSeek-V3.2, GLM-5): frequency 1.
TEST(IndexerScheduleTest, EveryLayerByDefault) {
  const ModelSpec spec = testing::SpecFromJson(DsaConfig(""));
  EXPECT_TRUE(spec.mla.indexer_on_layer.empty());
  EXPECT_EQ(IndexedLayers(spec).size(), 12u);
}

// Frequency 4, offset 3: max(i - 2, 0) % 4 == 0 for i = 0, 1, 2, 6, 10.
TEST(IndexerScheduleTest, FrequencyAndOffset) {
  const ModelSpec spec = testing::SpecFromJson(DsaConfig(R"(, "index_topk_freq": 4, "index_skip_topk_offset": 3)"));
  EXPECT_EQ(IndexedLayers(spec), (std::vector<int64_t>{0, 1, 2, 6, 10}));
  // The default offset is 2: max(i - 1, 0) % 4 == 0 for i = 0, 1, 5, 9.
  const ModelSpec two = testing::SpecFromJson(DsaConfig(R"(, "index_topk_freq": 4)"));
  EXPECT_EQ(IndexedLayers(two), (std::vector<int64_t>{0, 1, 5, 9}));
  // A pattern wins over the frequency: 'S' layers share.
  const ModelSpec pattern =
      testing::SpecFromJson(DsaConfig(R"(, "index_topk_freq": 4, "index_topk_pattern": "FSFSFSFSFSFS")"));
  EXPECT_EQ(IndexedLayers(pattern), (std::vector<int64_t>{0, 2, 4, 6, 8, 10}));
}

TEST(IndexerScheduleTest, ListsThatDisagreeOrDoNotFitAreRefused) {
  const std::string agree =
      R"(, "index_topk_freq": 4, "index_skip_topk_offset": 3, "indexer_types": ["full", "full", "full", "shared",
          "shared", "shared", "full", "shared", "shared", "shared", "full", "shared"])";
  EXPECT_EQ(IndexedLayers(testing::SpecFromJson(DsaConfig(agree))), (std::vector<int64_t>{0, 1, 2, 6, 10}));
  testing::ExpectConfigRefused(DsaConfig(R"(, "index_topk_freq": 4, "indexer_types": ["full", "full", "full", "shared", "shared",
                          "shared", "full", "shared", "shared", "shared", "full", "shared"])"),
                "indexer_types: layer 2 is \"full\" but index_topk_freq");
  testing::ExpectConfigRefused(DsaConfig(R"(, "indexer_types": ["full"])"), "indexer_types: has 1 entries but num_hidden_layers is 12");
  testing::ExpectConfigRefused(DsaConfig(R"(, "index_topk_freq": 1, "indexer_types": ["full", "full", "full", "full", "full", "full",
                          "full", "full", "full", "full", "full", "dense"])"),
                "layer 11 is \"dense\"");
  testing::ExpectConfigRefused(DsaConfig(R"(, "index_topk_freq": 0)"), "index_topk_freq: 0 is outside the valid range");
  testing::ExpectConfigRefused(DsaConfig(R"(, "index_topk_pattern": "FS")"), "index_topk_pattern: has 2 letters");
}

// Weights: a shared layer has no indexer (wq_b 4 x 128 x 256, wk 128 x 1,024, k_norm's weight and bias
// 2 x 128, weights_proj 4 x 1,024: 266,496 parameters), so 7 of 12 layers hold 7 x 266,496 fewer.
TEST(IndexerScheduleTest, SharedLayersHoldNoIndexerWeights) {
  const int64_t all = CountParameters(testing::SpecFromJson(DsaConfig("")));
  const int64_t shared =
      CountParameters(testing::SpecFromJson(DsaConfig(R"(, "index_topk_freq": 4, "index_skip_topk_offset": 3)")));
  EXPECT_EQ(all - shared, 7 * (4 * 128 * 256 + 128 * 1024 + 2 * 128 + 4 * 1024));
}

// The KV pool: each layer's latent, (512 + 64) x 2 B in bf16, and the indexer's keys, 128 fp8 values and
// one fp32 scale (132 B), on the layers that run one. A block of 16 tokens holds every page.
TEST(IndexerScheduleTest, IndexerKeyPagesOnTheirLayersOnly) {
  const ModelSpec spec = testing::SpecFromJson(DsaConfig(R"(, "index_topk_freq": 4, "index_skip_topk_offset": 3)"));
  const KvCacheFormat f = ParseKvCacheFormat("auto", spec, spec.dtype);
  const KvCacheLayout whole = BuildKvCacheLayout(spec, f, 1, 0, 12, 16, KvGrouping::kHybrid);
  EXPECT_DOUBLE_EQ(whole.bytes_per_token, 12 * 1152 + 5 * 132);
  EXPECT_EQ(whole.block_bytes, 16 * (12 * 1152 + 5 * 132));
  // Pipeline stages: layers 0-5 hold the indexers of 0, 1, 2; layers 6-11 those of 6 and 10.
  EXPECT_EQ(BuildKvCacheLayout(spec, f, 1, 0, 6, 16, KvGrouping::kHybrid).block_bytes, 16 * (6 * 1152 + 3 * 132));
  EXPECT_EQ(BuildKvCacheLayout(spec, f, 1, 6, 12, 16, KvGrouping::kHybrid).block_bytes, 16 * (6 * 1152 + 2 * 132));
  // Every layer indexed folds the keys into each layer's page, as before.
  const ModelSpec every = testing::SpecFromJson(DsaConfig(""));
  EXPECT_EQ(BuildKvCacheLayout(every, f, 1, 0, 12, 16, KvGrouping::kHybrid).block_bytes, 16 * 12 * (1152 + 132));
}

// GLM-5.2 (data/models/zai-org/GLM-5.2.json, byte for byte the published config): 78 layers, hidden 6,144, 64
// heads; MLA ranks 2,048 / 512, nope 192, rope 64, v 256; indexer 32 heads of 128 on 21 layers (0, 1, 2, 6,
// 10, ..., 74); 3 dense layers of 12,288 and 75 MoE layers of 256 experts of 2,048 plus a shared one; vocab
// 154,880, untied. By hand: per layer 134,744,576 attention (q_a 2,048 x 6,144 and its norm, q_b 16,384 x
// 2,048, kv_a 576 x 6,144 and its norm, kv_b 28,672 x 512, o 6,144 x 16,384) and two norms of 6,144; per
// indexer 9,438,464 (wq_b 4,096 x 2,048, wk 128 x 6,144, k_norm 256, weights_proj 32 x 6,144); dense MLPs
// 226,492,416; MoE layers 9,704,179,968 (257 x 37,748,736, a 256 x 6,144 router and its 256-wide bias);
// embedding and head 2 x 951,582,720; the final norm: 743,377,019,904 ("743B", vllm-project/recipes
// models/zai-org/GLM-5.2.yaml). Active without embedding and head: 9 of the 257 experts, 39.35 B ("39B").
// KV in bf16: 78 x 1,152 + 21 x 132 = 92,628 B per token.
TEST(IndexerScheduleTest, Glm52MatchesItsCard) {
  const ModelSpec spec = ResolveModel("zai-org/GLM-5.2", kData);
  EXPECT_EQ(IndexedLayers(spec).size(), 21u);
  EXPECT_EQ(CountParameters(spec), 743377019904);
  EXPECT_NEAR(static_cast<double>(CountParameters(spec)) / 1e9, 743.0, 743.0 * 0.001);
  const int64_t embedding_and_head = 2LL * 154880 * 6144;
  EXPECT_NEAR(static_cast<double>(CountActiveParameters(spec) - embedding_and_head) / 1e9, 39.0, 39.0 * 0.01);
  const KvCacheFormat f = ParseKvCacheFormat("auto", spec, spec.dtype);
  EXPECT_DOUBLE_EQ(BuildKvCacheLayout(spec, f, 8, 0, 78, 64, KvGrouping::kHybrid).bytes_per_token, 92628.0);
  const ModelSpec fp8 = ResolveModel("zai-org/GLM-5.2-FP8", kData);
  EXPECT_EQ(CountParameters(fp8), CountParameters(spec));
  EXPECT_EQ(fp8.checkpoint_quantization.method, QuantMethod::kFp8);
}

// NVIDIA's NVFP4 release writes ModelOpt's list in its config.json as "ignore" (vLLM's
// ModelOptQuantConfigBase.from_config reads it as exclude_modules): attention and the shared experts are
// left out, so only the routed experts are 4-bit.
TEST(IndexerScheduleTest, Glm52Nvfp4QuantizesTheRoutedExpertsOnly) {
  const ModelSpec spec = ResolveModel("nvidia/GLM-5.2-NVFP4", kData);
  EXPECT_EQ(CountParameters(spec), 743377019904);
  EXPECT_TRUE(spec.checkpoint_quantization.experts_only);
  EXPECT_TRUE(spec.checkpoint_quantization.attention_unquantized);
  testing::ExpectConfigRefused(DsaConfig(R"(, "layer_types": ["deepseek_sparse_attention"])"), "layer_types: has 1 entries");
  nlohmann::json dense = nlohmann::json::parse(testing::LlamaConfig(1024, 2048, 2, 8, 8, 1000));
  dense["layer_types"] = {"deepseek_sparse_attention", "full_attention"};
  testing::ExpectConfigRefused(dense.dump(), "needs a latent-attention model with a top-k indexer");
}

}  // namespace
}  // namespace kvsim
