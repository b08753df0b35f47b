// Families whose config.json leaves shapes to their config class or model code: parameter totals
// against published or hand-derived figures, and which layers keep per-token KV. The configs are
// the upstream config.json files of each model (fields as Hugging Face serves them).
#include <gtest/gtest.h>

#include "kvcache/base/error.h"
#include "kvcache/budget/kv_cache_layout.h"
#include "kvcache/model/model_catalog.h"
#include "kvcache/model/weight_tensors.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::SpecFromJson;

// EleutherAI/pythia-6.9b. The Pythia README's model table: 6,857,302,016 total and 6,444,163,072
// non-embedding parameters. GPT-NeoX: LayerNorms with bias, biased plain MLP, untied embed_out,
// RoPE on 25% of each head.
TEST(ModelFamiliesTest, PythiaMatchesItsPublishedCounts) {
  const ModelSpec s = SpecFromJson(R"({"architectures":["GPTNeoXForCausalLM"],"hidden_act":"gelu",
    "hidden_size":4096,"intermediate_size":16384,"max_position_embeddings":2048,"model_type":"gpt_neox",
    "num_attention_heads":32,"num_hidden_layers":32,"rotary_emb_base":10000,"rotary_pct":0.25,
    "tie_word_embeddings":false,"torch_dtype":"float16","use_parallel_residual":true,"vocab_size":50432})");
  EXPECT_EQ(CountParameters(s), 6857302016);
  EXPECT_EQ(CountParameters(s) - 2 * 50432 * 4096, 6444163072);
  EXPECT_EQ(s.rotary_dim, 32);
  EXPECT_EQ(s.mlp_kind, MlpKind::kPlain);
}

// tiiuae/falcon-7b: multi-query, one LayerNorm per parallel block, no linear biases, tied
// embeddings by default, no max_position_embeddings in the file (FalconConfig: 2048). Hand count:
// embeddings 65,024 x 4,544 = 295,469,056; per layer LN 9,088 + QKV (71+2) x 64 x 4,544
// = 21,229,568 + dense 20,647,936 + MLP 2 x 4,544 x 18,176 = 165,183,488; 32 layers + final LN
// = 6,921,720,704.
TEST(ModelFamiliesTest, FalconSevenBFromItsConfig) {
  const ModelSpec s = SpecFromJson(R"({"alibi":false,"architectures":["FalconForCausalLM"],"bias":false,
    "hidden_size":4544,"model_type":"falcon","multi_query":true,"new_decoder_architecture":false,
    "num_attention_heads":71,"num_hidden_layers":32,"parallel_attn":true,"torch_dtype":"bfloat16",
    "vocab_size":65024})");
  EXPECT_EQ(CountParameters(s), 6921720704);
  EXPECT_EQ(s.num_kv_heads, 1);
  EXPECT_EQ(s.max_position_embeddings, 2048);
  EXPECT_TRUE(s.tie_word_embeddings);
}

// Falcon-40B's new decoder architecture states 8 KV heads; its file also says multi_query, which
// vLLM ignores for this architecture.
TEST(ModelFamiliesTest, FalconNewDecoderArchitectureUsesItsKvHeads) {
  const ModelSpec s = SpecFromJson(R"({"architectures":["FalconForCausalLM"],"bias":false,"hidden_size":8192,
    "model_type":"falcon","multi_query":true,"new_decoder_architecture":true,"num_attention_heads":128,
    "num_hidden_layers":60,"num_kv_heads":8,"parallel_attn":true,"torch_dtype":"bfloat16","vocab_size":65024})");
  EXPECT_EQ(s.num_kv_heads, 8);
  EXPECT_EQ(s.norms_per_layer, 2);
}

// openai-community/gpt2: 124,439,808 = wte 50,257 x 768 + wpe 1,024 x 768 + 12 x 7,087,872 + ln_f.
TEST(ModelFamiliesTest, GptTwoCountsLearnedPositionsAndTiesItsHead) {
  const ModelSpec s = SpecFromJson(R"({"activation_function":"gelu_new","architectures":["GPT2LMHeadModel"],
    "model_type":"gpt2","n_ctx":1024,"n_embd":768,"n_head":12,"n_layer":12,"n_positions":1024,"vocab_size":50257})");
  EXPECT_EQ(CountParameters(s), 124439808);
  EXPECT_EQ(s.rotary_dim, 0);
  EXPECT_EQ(s.max_position_embeddings, 1024);
}

// Qwen/Qwen3-Next-80B-A3B-Instruct: full attention every 4th layer, Gated DeltaNet elsewhere.
// Only the 12 full layers hold per-token KV: 12 x 2 (K, V) x 2 heads x 256 x 2 B = 24,576 B.
TEST(ModelFamiliesTest, QwenThreeNextKeepsKvOnlyInItsFullAttentionLayers) {
  const ModelSpec s = SpecFromJson(R"({"architectures":["Qwen3NextForCausalLM"],"decoder_sparse_step":1,
    "full_attention_interval":4,"head_dim":256,"hidden_size":2048,"intermediate_size":5120,
    "linear_num_key_heads":16,"linear_num_value_heads":32,"max_position_embeddings":262144,"mlp_only_layers":[],
    "model_type":"qwen3_next","moe_intermediate_size":512,"num_attention_heads":16,"num_experts":512,
    "num_experts_per_tok":10,"num_hidden_layers":48,"num_key_value_heads":2,"partial_rotary_factor":0.25,
    "shared_expert_intermediate_size":512,"tie_word_embeddings":false,"torch_dtype":"bfloat16","vocab_size":151936})");
  EXPECT_EQ(s.kv_layers(), 12);
  EXPECT_EQ(s.layers[3].kind, AttentionKind::kFull);
  EXPECT_EQ(s.layers[0].kind, AttentionKind::kStateOnly);
  KvCacheFormat bf16;
  bf16.bytes_per_element = 2;
  const KvCacheLayout layout = BuildKvCacheLayout(s, bf16, 1, 0, s.num_layers, 16, KvGrouping::kHybrid);
  EXPECT_DOUBLE_EQ(layout.bytes_per_token, 24576.0);
  EXPECT_EQ(layout.num_attention_layers, 12);
  ASSERT_FALSE(s.notes.empty());
  EXPECT_NE(s.notes.back().find("not modelled"), std::string::npos);
}

TEST(ModelFamiliesTest, AModelWithoutAttentionLayersIsRefused) {
  EXPECT_THROW(SpecFromJson(R"({"model_type":"granitemoehybrid","hidden_size":64,"intermediate_size":128,
    "num_hidden_layers":2,"num_attention_heads":4,"vocab_size":100,"max_position_embeddings":128,
    "layer_types":["mamba","mamba"]})"), Error);
}

// A family whose config class is a mixture of experts and defaults its expert count: left out (or
// null), vLLM builds the class's default number of experts, so planning the dense model of
// intermediate_size would put a tenth of the weights on the GPU (Qwen3-30B-A3B as 3.3B). An explicit
// 0 is what vLLM's qwen3_moe.py builds densely, and stays dense.
TEST(ModelFamiliesTest, AnMoeFamilyWithoutItsExpertCountIsRefused) {
  const std::string head = R"({"model_type":"qwen3_moe","hidden_size":2048,"intermediate_size":6144,
    "moe_intermediate_size":768,"num_experts_per_tok":8,"num_hidden_layers":48,"num_attention_heads":32,
    "num_key_value_heads":4,"head_dim":128,"vocab_size":151936,"max_position_embeddings":40960)";
  for (const std::string& tail : {std::string("}"), std::string(R"(,"num_experts":null})")}) {
    try {
      SpecFromJson(head + tail);
      ADD_FAILURE() << "accepted " << tail;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("num_experts: missing (or null); model_type 'qwen3_moe' is a mixture of experts"),
                std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(SpecFromJson(head + R"(,"num_experts":0})").moe.num_experts, 0);
  EXPECT_EQ(SpecFromJson(head + R"(,"num_experts":128})").moe.num_experts, 128);
}

// mlp_only_layers is tested with `layer_idx in ...` by the model code: a string or a list of names
// is not silently read as "no dense layers".
TEST(ModelFamiliesTest, MlpOnlyLayersMustListLayerIndices) {
  const std::string head = R"({"model_type":"qwen3_moe","hidden_size":2048,"intermediate_size":6144,
    "moe_intermediate_size":768,"num_experts":128,"num_experts_per_tok":8,"num_hidden_layers":48,
    "num_attention_heads":32,"num_key_value_heads":4,"head_dim":128,"vocab_size":151936,
    "max_position_embeddings":40960,"mlp_only_layers":)";
  for (const std::string& bad : {std::string(R"("0,1")"), std::string(R"(["0"])"), std::string("null")})
    EXPECT_THROW(SpecFromJson(head + bad + "}"), Error) << bad;
  const ModelSpec two_dense = SpecFromJson(head + "[0, 1]}");
  EXPECT_FALSE(two_dense.moe.layer_is_moe[0]);
  EXPECT_FALSE(two_dense.moe.layer_is_moe[1]);
  EXPECT_TRUE(two_dense.moe.layer_is_moe[2]);
}

// zai-org/GLM-4.5-Air: "106B total parameters, 12B active" (Z.ai's release note). DeepSeek-style
// MoE under another model_type: layer 0 dense, 45 MoE layers with one shared expert. The MTP
// layer (num_nextn_predict_layers) is not loaded by vLLM and not counted.
TEST(ModelFamiliesTest, GlmFourFiveAirReadsDeepSeekStyleMoeFields) {
  const ModelSpec s = SpecFromJson(R"({"architectures":["Glm4MoeForCausalLM"],"attention_bias":true,
    "first_k_dense_replace":1,"head_dim":128,"hidden_size":4096,"intermediate_size":10944,
    "max_position_embeddings":131072,"model_type":"glm4_moe","moe_intermediate_size":1408,"n_routed_experts":128,
    "n_shared_experts":1,"num_attention_heads":96,"num_experts_per_tok":8,"num_hidden_layers":46,
    "num_key_value_heads":8,"num_nextn_predict_layers":1,"partial_rotary_factor":0.5,"tie_word_embeddings":false,
    "torch_dtype":"bfloat16","use_qk_norm":false,"vocab_size":151552})");
  EXPECT_FALSE(s.moe.layer_is_moe[0]);
  EXPECT_TRUE(s.moe.layer_is_moe[1]);
  EXPECT_EQ(s.moe.shared_intermediate_size, 1408);
  EXPECT_FALSE(s.o_proj_bias);
  EXPECT_NEAR(static_cast<double>(CountParameters(s)) / 1e9, 106.0, 1.0);
  const double embeddings = 2.0 * 151552 * 4096;  // the card's active count leaves them out
  EXPECT_NEAR((static_cast<double>(CountActiveParameters(s)) - embeddings) / 1e9, 12.0, 0.3);
}

// baidu/ERNIE-4.5-21B-A3B-PT: "21B total, 3B activated"; MoE from layer 1, two shared experts.
TEST(ModelFamiliesTest, ErnieMoeFieldsAreRead) {
  const ModelSpec s = SpecFromJson(R"({"architectures":["Ernie4_5_MoeForCausalLM"],"hidden_size":2560,
    "intermediate_size":12288,"max_position_embeddings":131072,"model_type":"ernie4_5_moe","num_attention_heads":20,
    "num_key_value_heads":4,"num_hidden_layers":28,"vocab_size":103424,"tie_word_embeddings":true,"moe_num_experts":64,
    "moe_num_shared_experts":2,"moe_layer_start_index":1,"moe_intermediate_size":1536,"moe_k":6,"moe_layer_interval":1,
    "head_dim":128,"torch_dtype":"bfloat16"})");
  EXPECT_EQ(s.moe.num_experts, 64);
  EXPECT_EQ(s.moe.experts_per_token, 6);
  EXPECT_FALSE(s.moe.layer_is_moe[0]);
  EXPECT_EQ(s.moe.shared_intermediate_size, 2 * 1536);
  EXPECT_NEAR(static_cast<double>(CountParameters(s)) / 1e9, 21.5, 0.5);
  EXPECT_NEAR(static_cast<double>(CountActiveParameters(s)) / 1e9, 3.0, 0.5);
}

// Cohere 2 (Command R7B / Command A): three sliding-window layers, then one global.
TEST(ModelFamiliesTest, CohereTwoInterleavesThreeLocalLayersWithOneGlobal) {
  const ModelSpec s = SpecFromJson(R"({"architectures":["Cohere2ForCausalLM"],"hidden_size":4096,
    "intermediate_size":14336,"max_position_embeddings":8192,"model_type":"cohere2","num_attention_heads":32,
    "num_hidden_layers":8,"num_key_value_heads":8,"sliding_window":4096,"vocab_size":256000,"torch_dtype":"bfloat16"})");
  for (int64_t i = 0; i < 8; ++i)
    EXPECT_EQ(s.layers[i].kind, (i + 1) % 4 == 0 ? AttentionKind::kFull : AttentionKind::kSlidingWindow) << i;
  EXPECT_TRUE(s.tie_word_embeddings);
  EXPECT_EQ(s.norms_per_layer, 1);
}

// The published Gemma 3 configs state only what differs from transformers' Gemma3TextConfig:
// no vocab_size or max_position_embeddings, and head_dim only where it is not 256. Shapes of the
// 12B text model from its model card (48 layers, hidden 3,840, MLP 15,360, 16 query / 8 KV heads);
// vLLM 0.19's log of google/gemma-3-12b-it prints head_size=256 (not 3840 / 16 = 240), and the
// tokenizer's vocabulary with its image tokens is 262,208. One full layer every six, window 1,024.
TEST(ModelFamiliesTest, GemmaThreeTextConfigTakesItsClassDefaults) {
  const ModelSpec s = SpecFromJson(R"({"architectures":["Gemma3ForConditionalGeneration"],"model_type":"gemma3",
    "text_config":{"hidden_size":3840,"intermediate_size":15360,"model_type":"gemma3_text","num_attention_heads":16,
      "num_hidden_layers":48,"num_key_value_heads":8,"rope_scaling":{"factor":8.0,"rope_type":"linear"},
      "sliding_window":1024},
    "torch_dtype":"bfloat16",
    "vision_config":{"hidden_size":1152,"image_size":896,"intermediate_size":4304,"model_type":"siglip_vision_model",
      "num_attention_heads":16,"num_hidden_layers":27,"patch_size":14,"vision_use_head":false}})");
  EXPECT_EQ(s.vocab_size, 262208);
  EXPECT_EQ(s.head_dim, 256);
  EXPECT_EQ(s.num_kv_heads, 8);
  EXPECT_EQ(s.max_position_embeddings, 131072);
  EXPECT_TRUE(s.tie_word_embeddings);
  ASSERT_EQ(s.layers.size(), 48u);
  EXPECT_EQ(s.layers[0].window_tokens, 1024);
  for (size_t i = 0; i < s.layers.size(); ++i)
    EXPECT_EQ(s.layers[i].kind, (i + 1) % 6 == 0 ? AttentionKind::kFull : AttentionKind::kSlidingWindow) << i;
}

// What the file states wins over the class default: gemma-3-27b-it states head_dim 128.
TEST(ModelFamiliesTest, GemmaThreeStatedFieldsKeepTheirValues) {
  const ModelSpec s = SpecFromJson(R"({"model_type":"gemma3","text_config":{"head_dim":128,"hidden_size":5376,
    "intermediate_size":21504,"model_type":"gemma3_text","num_attention_heads":32,"num_hidden_layers":62,
    "num_key_value_heads":16,"sliding_window":1024,"vocab_size":262144}})");
  EXPECT_EQ(s.head_dim, 128);
  EXPECT_EQ(s.vocab_size, 262144);
  EXPECT_EQ(s.num_layers, 62);
}

// Qwen/Qwen3-Next-80B-A3B (card: 80 B total): vLLM's qwen3_next.py builds 36 Gated DeltaNet mixers and
// 12 gated-attention layers. Hand count: embeddings and untied head 2 x 151,936 x 2,048 = 622,329,856;
// per layer 512 experts x 3 x 2,048 x 512 + router 512 x 2,048 + shared expert 3 x 2,048 x 512 + its gate
// 2,048 = 1,614,809,088 (x 48); a DeltaNet mixer: in_proj_qkvz (2 x 16 x 128 + 2 x 32 x 128) x 2,048
// + in_proj_ba 64 x 2,048 + conv1d 8,192 x 4 + A_log, dt_bias 2 x 32 + gated norm 128 + out_proj
// 2,048 x 4,096 = 33,718,464 (x 36); a gated attention: q with its gate 2 x 16 x 256 x 2,048 + k, v
// 2 x 512 x 2,048 + o 2,048 x 4,096 + q/k norms 2 x 256 = 27,263,488 (x 12); two norms a layer and the
// final one 198,656: 79,674,391,296.
TEST(ModelFamiliesTest, QwenThreeNextCountsItsDeltaNetMixers) {
  const ModelSpec next = ResolveModel("Qwen/Qwen3-Next-80B-A3B-Thinking", DataDirectory());
  EXPECT_EQ(CountParameters(next), 79674391296);
  EXPECT_EQ(next.state.formula, StateLayerFormula::kGatedDeltaNet);
}

}  // namespace
}  // namespace kvsim
