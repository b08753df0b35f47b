// An architecture kvsim does not know is refused, not read as Llama; the way round is stated.
#include <gtest/gtest.h>

#include "kvcache/base/error.h"
#include "kvcache/model/known_families.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

// ChatGLM names its KV groups multi_query_group_num and its MLP width ffn_hidden_size: read as
// Llama, it would be planned as multi-head attention with the wrong MLP.
TEST(KnownFamiliesTest, UnknownFamilyIsRefusedWithTheWayRound) {
  const std::string chatglm = R"({"architectures": ["ChatGLMModel"], "model_type": "chatglm", "hidden_size": 4096,
      "num_layers": 28, "num_attention_heads": 32, "multi_query_group_num": 2, "ffn_hidden_size": 13696,
      "padded_vocab_size": 65024, "seq_length": 32768})";
  try {
    testing::SpecFromJson(chatglm);
    FAIL() << "chatglm was read";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("model_type 'chatglm' (ChatGLMModel)"), std::string::npos) << what;
    EXPECT_NE(what.find(R"(--hf-overrides '{"model_type": "llama"}')"), std::string::npos) << what;
  }
  EXPECT_THROW(testing::SpecFromJson(R"({"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
                                         "intermediate_size": 11008, "vocab_size": 32000})"),
               Error);
}

TEST(KnownFamiliesTest, FamiliesKvsimReadsAreKnown) {
  for (const char* t : {"llama", "qwen", "qwen2", "qwen3_moe", "deepseek_v3", "gemma3_text", "mixtral", "granite", "internlm2"})
    EXPECT_TRUE(IsKnownModelFamily(t)) << t;
  for (const char* t : {"chatglm", "dbrx", "unknown", ""}) EXPECT_FALSE(IsKnownModelFamily(t)) << t;
  // A Llama-layout checkpoint of a family kvsim does not list reads through --hf-overrides.
  testing::TempDir dir;
  const std::string config = dir.Write("config.json", R"({"model_type": "my_llama", "hidden_size": 4096,
      "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
      "vocab_size": 128256, "max_position_embeddings": 8192})");
  EXPECT_EQ(testing::RunCli({"capacity", "--model", config}).exit_code, 2);
  const auto r = testing::RunCli({"capacity", "--model", config, "--hf-overrides", R"({"model_type": "llama"})"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace kvsim
