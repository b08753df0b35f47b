// Reading config.json: family rules, defaults and errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "kvcache/base/error.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::SharedModel;
using testing::SpecFromJson;

TEST(ModelConfigParserTest, MissingFieldsAreAllNamed) {
  try {
    SpecFromJson(R"({"model_type":"llama","hidden_size":1024})");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    for (const char* field : {"num_hidden_layers", "num_attention_heads", "vocab_size", "max_position_embeddings",
                              "intermediate_size"})
      EXPECT_NE(msg.find(field), std::string::npos) << msg;
    EXPECT_NE(msg.find("inline-config.json"), std::string::npos);
  }
}

// A family whose vLLM class reads Llama's fields (internlm2.py) is read as a Llama-style decoder; an
// unknown one is refused rather than guessed (known_families_test.cpp).
TEST(ModelConfigParserTest, LlamaLayoutFamilyReadsAsAGenericDecoder) {
  const std::string fields = R"("hidden_size":2048,"intermediate_size":8192,
    "num_hidden_layers":4,"num_attention_heads":16,"num_key_value_heads":4,"vocab_size":50000,
    "max_position_embeddings":8192})";
  const ModelSpec spec = SpecFromJson(R"({"model_type":"internlm2",)" + fields);
  EXPECT_EQ(spec.head_dim, 128);
  EXPECT_EQ(spec.num_kv_heads, 4);
  EXPECT_THROW(SpecFromJson(R"({"model_type":"brand_new",)" + fields), Error);
}

TEST(ModelConfigParserTest, GemmaTiesEmbeddingsAndAlternatesWindows) {
  const ModelSpec g = SharedModel("google__gemma-2-9b-it.json");
  EXPECT_TRUE(g.tie_word_embeddings);
  EXPECT_EQ(g.norms_per_layer, 4);
  EXPECT_EQ(g.layers[0].kind, AttentionKind::kSlidingWindow);
  EXPECT_EQ(g.layers[1].kind, AttentionKind::kFull);
  EXPECT_EQ(g.layers[0].window_tokens, 4096);
}

TEST(ModelConfigParserTest, MultimodalWrappersReadTheirTextConfig) {
  const ModelSpec llava = SharedModel("llava-hf__llava-1.5-7b-hf.json");  // text_config lists only non-defaults
  EXPECT_EQ(llava.hidden_size, 4096);
  EXPECT_EQ(llava.num_layers, 32);
  EXPECT_EQ(llava.vocab_size, 32064);
  EXPECT_GT(llava.vision_params, 250000000);  // CLIP ViT-L/14-336 is ~304M
  const ModelSpec scout = SharedModel("meta-llama__Llama-4-Scout-17B-16E-Instruct.json");
  EXPECT_EQ(scout.moe.num_experts, 16);
  EXPECT_EQ(scout.layers[3].kind, AttentionKind::kFull);          // every 4th layer is NoPE / global
  EXPECT_EQ(scout.layers[0].kind, AttentionKind::kChunkedLocal);  // RoPE layers use 8192-token chunks
}

TEST(ModelConfigParserTest, QwenSlidingWindowIsOffUnlessEnabled) {
  for (const auto& layer : SharedModel("Qwen__Qwen2.5-7B.json").layers) EXPECT_EQ(layer.kind, AttentionKind::kFull);
}

TEST(ModelConfigParserTest, FileErrorsNameTheFileAndPlace) {
  EXPECT_THROW(LoadModelConfigFile("/nonexistent/config.json"), Error);
  const testing::TempDir dir;
  dir.Write("config.json", "{\n  \"hidden_size\": 4096,\n  oops\n}\n");
  try {
    LoadModelConfigFile(dir.path());  // a directory resolves to its config.json
    FAIL();
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("config.json"), std::string::npos);
    EXPECT_NE(msg.find("line 3"), std::string::npos) << msg;
  }
}

// Hugging Face writes config.json with Python's json.dumps, which spells an infinite float as a bare
// Infinity (Nemotron-3-Super's "time_step_limit": [0.0, Infinity]); json.load reads it, so kvsim does.
// Inside a string it is text; as a size kvsim reads it is refused by that field's range.
TEST(ModelConfigParserTest, ReadsInfinityAsPythonWritesIt) {
  const std::string llama = R"("model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
    "num_attention_heads": 2, "vocab_size": 100, "max_position_embeddings": 4096)";
  const testing::TempDir dir;
  dir.Write("config.json", "{" + llama + R"(, "num_hidden_layers": 2, "torch_dtype": "bfloat16",
    "time_step_limit": [0.0, Infinity], "floor": -Infinity, "note": "Infinity stays text"})");
  EXPECT_EQ(LoadModelConfigFile(dir.path()).num_layers, 2);
  dir.Write("config.json", "{" + llama + R"(, "num_hidden_layers": Infinity})");
  try {
    LoadModelConfigFile(dir.path());
    FAIL() << "accepted an infinite layer count";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("num_hidden_layers"), std::string::npos) << e.what();
  }
}

TEST(ModelConfigParserTest, RejectsNonsenseValues) {
  EXPECT_THROW(SpecFromJson(R"({"hidden_size":-5,"intermediate_size":1,"num_hidden_layers":1,
    "num_attention_heads":1,"vocab_size":1,"max_position_embeddings":1})"), Error);
  EXPECT_THROW(SpecFromJson(R"({"hidden_size":"big","intermediate_size":1,"num_hidden_layers":1,
    "num_attention_heads":1,"vocab_size":1,"max_position_embeddings":1})"), Error);
  EXPECT_THROW(SpecFromJson(R"({"hidden_size":64,"intermediate_size":1,"num_hidden_layers":1,
    "num_attention_heads":8,"num_key_value_heads":3,"vocab_size":1,"max_position_embeddings":1})"), Error);
}

// rope_scaling naming two types (rope_type "linear", the legacy type "yarn") was planned by rope_type
// alone; vLLM refuses the conflict, and the one the same (both "yarn") stays accepted.
TEST(ModelConfigParserTest, RopeScalingWithTwoDifferentTypesIsRefused) {
  const std::string head = R"({"model_type":"llama","hidden_size":64,"intermediate_size":128,"num_hidden_layers":2,
    "num_attention_heads":4,"vocab_size":100,"max_position_embeddings":8192,"rope_scaling":)";
  try {
    SpecFromJson(head + R"({"type":"yarn","rope_type":"linear","factor":4.0,"original_max_position_embeddings":8192}})");
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rope_scaling: rope_type 'linear' and type 'yarn' disagree"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(SpecFromJson(head + R"({"type":"yarn","rope_type":"yarn","factor":4.0,"original_max_position_embeddings":8192}})"));
}

// A rope_scaling missing a key vLLM's get_rope indexes was planned as if complete (llama3 without
// low_freq_factor at Llama-3.1's 131,072 positions); vLLM raises KeyError building the rotary
// embedding, and transformers' rope validation refuses it too. The complete Llama-3.1 rope_scaling,
// a dynamic scaling by alpha alone, and a longrope whose original positions sit at the top level
// (Phi-3) stay accepted.
TEST(ModelConfigParserTest, RopeScalingMissingAKeyGetRopeReadsIsRefused) {
  const std::string head = R"({"model_type":"llama","hidden_size":64,"intermediate_size":128,"num_hidden_layers":2,
    "num_attention_heads":4,"vocab_size":100,"max_position_embeddings":131072,"rope_scaling":)";
  auto refused = [&](const std::string& rope, const std::string& expected) {
    try {
      SpecFromJson(head + rope + "}");
      ADD_FAILURE() << "accepted: " << rope;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  refused(R"({"rope_type":"llama3","factor":8.0,"high_freq_factor":4.0,"original_max_position_embeddings":8192})",
          "rope_scaling: rope_type 'llama3' needs low_freq_factor");
  refused(R"({"rope_type":"llama3","factor":8.0})",
          "needs low_freq_factor, high_freq_factor, original_max_position_embeddings");
  refused(R"({"rope_type":"yarn","original_max_position_embeddings":32768})", "rope_type 'yarn' needs factor");
  refused(R"({"type":"linear","factor":null})", "rope_type 'linear' needs factor");
  refused(R"({"type":"dynamic"})", "rope_type 'dynamic' needs factor (or alpha)");
  refused(R"({"rope_type":"longrope","short_factor":[1.0]})", "rope_type 'longrope' needs long_factor");
  EXPECT_EQ(SpecFromJson(head + R"({"rope_type":"llama3","factor":8.0,"low_freq_factor":1.0,"high_freq_factor":4.0,
    "original_max_position_embeddings":8192}})").derived_max_model_len, 131072);
  EXPECT_NO_THROW(SpecFromJson(head + R"({"type":"dynamic","alpha":1000.0}})"));
  EXPECT_NO_THROW(SpecFromJson(head + R"({"type":"longrope","short_factor":[1.0],"long_factor":[2.0]}})"));
}

// partial_rotary_factor 0 (or -0.0) was planned with no rotated dimension; vLLM's get_rope refuses
// a factor outside (0, 1].
TEST(ModelConfigParserTest, PartialRotaryFactorZeroIsRefused) {
  const std::string head = R"({"model_type":"llama","hidden_size":64,"intermediate_size":128,"num_hidden_layers":2,
    "num_attention_heads":4,"vocab_size":100,"max_position_embeddings":8192,"partial_rotary_factor":)";
  for (const char* zero : {"0", "-0.0", "0.0"}) {
    try {
      SpecFromJson(head + zero + "}");
      ADD_FAILURE() << "accepted " << zero;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("is outside the valid range (0, 1]"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(SpecFromJson(head + "0.5}").rotary_dim, 8);  // head_dim 64 / 4 = 16, half rotated
}

}  // namespace
}  // namespace kvsim
