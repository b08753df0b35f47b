// Bad input never crashes kvsim: one line naming the file/field or option, exit code 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::ExpectOneLineError;
using testing::RunCli;


TEST(BadInputTest, MissingConfigFile) {
  ExpectOneLineError(RunCli({"capacity", "--model", "/no/such/dir/config.json"}), "neither a config.json path nor a preset");
}

TEST(BadInputTest, MalformedConfigNamesFileAndLine) {
  const testing::TempDir dir;
  const std::string path = dir.Write("bad.json", "{\"hidden_size\": 4096,,}");
  ExpectOneLineError(RunCli({"capacity", "--model", path}), path);
  ExpectOneLineError(RunCli({"capacity", "--model", path}), "line 1");
}

TEST(BadInputTest, ConfigWithMissingFieldNamesIt) {
  const testing::TempDir dir;
  const std::string path = dir.Write("partial.json", R"({"model_type":"llama","hidden_size":4096,
    "num_hidden_layers":32,"num_attention_heads":32,"intermediate_size":11008,"max_position_embeddings":4096})");
  ExpectOneLineError(RunCli({"capacity", "--model", path}), "vocab_size");
}

TEST(BadInputTest, NegativeOrAbsurdSettings) {
  ExpectOneLineError(RunCli({"capacity", "--max-num-seqs", "-4"}), "--max-num-seqs");
  ExpectOneLineError(RunCli({"capacity", "--max-num-seqs", "lots"}), "--max-num-seqs");
  ExpectOneLineError(RunCli({"capacity", "-tp", "100000"}), "--tensor-parallel-size");
  ExpectOneLineError(RunCli({"capacity", "--gpu-memory-utilization", "7"}), "--gpu-memory-utilization");
  ExpectOneLineError(RunCli({"capacity", "--block-size", "0"}), "--block-size");
  ExpectOneLineError(RunCli({"capacity", "--max-model-len", "99999999"}), "--max-model-len");
  ExpectOneLineError(RunCli({"capacity", "--kv-cache-dtype", "fp7"}), "--kv-cache-dtype");
  ExpectOneLineError(RunCli({"capacity", "--quantization", "int3"}), "--quantization");
  ExpectOneLineError(RunCli({"capacity", "--no-such-flag"}), "no-such-flag");
}

// The replay's structured flag values are parsed by the CLI alone (the workload overlay and the cost
// take typed values): each refusal names the option.
TEST(BadInputTest, ReplayFlagValuesNameTheOption) {
  ExpectOneLineError(RunCli({"replay", "--quiet", "--shared-prefix", "4"}), "--shared-prefix: '4' is not K:LEN");
  ExpectOneLineError(RunCli({"replay", "--quiet", "--shared-prefix", "0:100"}), "K and LEN must be whole numbers >= 1");
  ExpectOneLineError(RunCli({"replay", "--quiet", "--shared-prefix", "1e300:100"}), "--shared-prefix K");
  ExpectOneLineError(RunCli({"replay", "--quiet", "--conversations", "2.5:10"}), "--conversations");
  ExpectOneLineError(RunCli({"replay", "--quiet", "--conversations", "x:1"}), "--conversations: 'x:1' is not TURNS:THINK_S");
  ExpectOneLineError(RunCli({"replay", "--quiet", "--gpu-hourly-cost", "h100"}), "--gpu-hourly-cost: 'h100' is not a USD amount per GPU-hour");
  ExpectOneLineError(RunCli({"replay", "--quiet", "--gpu-hourly-cost", "=3"}), "--gpu-hourly-cost: '=3' is not GPU=USD");
  ExpectOneLineError(RunCli({"replay", "--quiet", "--gpu-hourly-cost", "h100=-1"}), "--gpu-hourly-cost: '-1'");
  // Hexadecimal, which std::stod read (0x2 as 2 USD, 0x4:1000 as 4 prompts), is no number typed here.
  ExpectOneLineError(RunCli({"replay", "--quiet", "--gpu-hourly-cost", "0x2"}), "--gpu-hourly-cost: '0x2' is not a USD amount");
  ExpectOneLineError(RunCli({"replay", "--quiet", "--shared-prefix", "0x4:1000"}), "--shared-prefix: '0x4:1000' is not K:LEN");
}

TEST(BadInputTest, UnknownGpuListsCloseMatches) {
  ExpectOneLineError(RunCli({"capacity", "--gpu", "NVIDIA H10"}), "NVIDIA H100 80GB SXM5");
}

TEST(BadInputTest, ModelThatDoesNotFitSaysByHowManyGiB) {
  ExpectOneLineError(RunCli({"capacity", "--model", "meta-llama/Llama-3.1-70B-Instruct", "--gpu", "l4"}), "short by");
  ExpectOneLineError(RunCli({"capacity", "--gpu", "l4", "--max-model-len", "131072"}), "cannot hold one request");
}

TEST(BadInputTest, GoodInputSucceedsAndJsonHasTheKeys) {
  const auto r = RunCli({"capacity", "--gpu", "NVIDIA H100 80GB HBM3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"params", "weights_gib", "activation_peak_gib", "non_torch_gib", "kv_cache_gib",
                          "kv_bytes_per_token", "num_gpu_blocks", "gpu_kv_cache_tokens", "max_concurrency",
                          "baseline_1_2x_gib", "settings"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["params"], 8030261248);
}

}  // namespace
}  // namespace kvsim
