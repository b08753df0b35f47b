// vLLM's own start-up tests for the null block and the longest request that fits, reproduced:
//   tests/v1/core/test_kv_cache_utils.py::test_estimate_max_model_len (vllm-project/vllm, v0.11):
//     Qwen1.5-7B shapes in fp16 (32 layers x 32 KV heads x 128 x 2 (K, V) x 2 B = 524,288 B per
//     token), block 16, max_num_batched_tokens 32,768, 8 GiB of KV: 8 x 2^30 / 524,288 = 16,384
//     tokens; max_model_len 16,385 -> 16,384, 16,383 -> 16,383 (the search never exceeds it).
//   PR #47272 (merged 2026-07-01, first in 0.25), "Reserve the KV null block when validating
//     max_model_len": a pool of exactly ceil(max_model_len / block_size) blocks passed the check and
//     then hung; since then the check leaves block 0 out, whether the pool comes from
//     --num-gpu-blocks-override, --kv-cache-memory-bytes or the profile.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/testutil.h"

namespace kvsim {
namespace {

// Qwen/Qwen1.5-7B's config.json shapes, with max_position_embeddings as the test's max_model_len.
std::string Qwen15_7b(int max_pos) {
  return R"({"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 4096,
             "intermediate_size": 11008, "num_hidden_layers": 32, "num_attention_heads": 32,
             "num_key_value_heads": 32, "vocab_size": 151936, "max_position_embeddings": )" +
         std::to_string(max_pos) + R"(, "torch_dtype": "float16", "tie_word_embeddings": false})";
}

int64_t AutoMaxModelLen(const testing::TempDir& dir, int max_pos) {
  const std::string config = dir.Write("qwen15_" + std::to_string(max_pos) + ".json", Qwen15_7b(max_pos));
  const auto r = testing::RunCli({"capacity", "--model", config, "--gpu", "h100", "--dtype", "float16",
                                  "--kv-cache-memory", "8GiB", "--max-num-batched-tokens", "32768",
                                  "--max-model-len", "auto", "--json", "-"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out)["settings"]["max_model_len"].get<int64_t>();
}

TEST(NullBlockTest, VllmEstimateMaxModelLenCases) {
  testing::TempDir dir;
  EXPECT_EQ(AutoMaxModelLen(dir, 16385), 16384);
  EXPECT_EQ(AutoMaxModelLen(dir, 16383), 16383);
}

// Llama-3.1-8B: a block is 16 tokens x 32 layers x 2 x 8 x 128 x 2 B = 2,097,152 B. 100 blocks hold a
// request of 1,600 tokens; with block 0 kept back, 99 blocks hold 1,584.
testing::CommandResult Capacity(const std::string& version, const std::vector<std::string>& pool) {
  std::vector<std::string> args = {"capacity", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "a100-80gb",
                                   "--max-model-len", "1600", "--vllm-version", version};
  args.insert(args.end(), pool.begin(), pool.end());
  return testing::RunCli(args);
}

TEST(NullBlockTest, ExactPoolStartsBefore025AndIsRefusedSince) {
  for (const std::vector<std::string>& pool :
       {std::vector<std::string>{"--num-gpu-blocks-override", "100"}, std::vector<std::string>{"--kv-cache-memory", "209715200"}}) {
    const auto old = Capacity("0.19", pool);
    EXPECT_EQ(old.exit_code, 0) << old.err;
    EXPECT_NE(old.out.find("null block"), std::string::npos) << old.out;  // starts, and the request would wait forever
    const auto now = Capacity("0.25", pool);
    EXPECT_EQ(now.exit_code, 2) << now.out;
    EXPECT_NE((now.out + now.err).find("the largest --max-model-len that fits is 1584"), std::string::npos)
        << now.out << now.err;
  }
  // One block more and 0.25 starts too.
  EXPECT_EQ(Capacity("0.25", {"--num-gpu-blocks-override", "101"}).exit_code, 0);
}

}  // namespace
}  // namespace kvsim
