// Decode context parallelism (-dcp): each request's tokens spread over dcp of the TP ranks, as vLLM
// shards them (token i on rank i % dcp; a block of the table spans block_size x dcp tokens). Figures
// derived by hand from vLLM's rules: AttentionSpec.max_memory_usage_bytes keeps cdiv(max_model_len, dcp)
// tokens a request on each rank, _report_kv_cache_config multiplies one rank's tokens by dcp.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::RunCli;

nlohmann::json Json(const testing::CommandResult& r) {
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

// DeepSeek-V2-Lite at TP 2, DCP 2, 4,097 blocks of 16 tokens on each rank, --max-model-len 32,768: a
// request needs cdiv(32,768 / 2, 16) = 1,024 blocks on each rank, so the pool holds 4,097 / 1,024 =
// 4.001 of them and reports 4,097 x 16 x 2 = 131,104 tokens (4,097 x 16 = 65,552 without DCP).
TEST(DecodeContextParallelCliTest, EachRankHoldsEveryDcpthToken) {
  const std::vector<std::string> base = {"capacity", "--model", "deepseek-ai/DeepSeek-V2-Lite", "--gpu", "h100", "-tp", "2",
                                         "--max-model-len", "32768", "--num-gpu-blocks-override", "4097", "--json", "-"};
  std::vector<std::string> dcp = base;
  dcp.insert(dcp.end() - 2, {"-dcp", "2"});
  const nlohmann::json with = Json(RunCli(dcp));
  EXPECT_EQ(with.at("gpu_kv_cache_tokens").get<int64_t>(), 131104);
  EXPECT_NEAR(with.at("max_concurrency").get<double>(), 4097.0 / 1024, 0.001);
  EXPECT_EQ(with.at("settings").at("decode_context_parallel_size").get<int>(), 2);
  const nlohmann::json without = Json(RunCli(base));
  EXPECT_EQ(without.at("gpu_kv_cache_tokens").get<int64_t>(), 65552);
}

// The same line pasted as vLLM's blog gives it is planned, not refused.
TEST(DecodeContextParallelCliTest, APastedServeLineIsPlanned) {
  const auto r = RunCli({"capacity", "--gpu", "h200", "--", "vllm", "serve", "deepseek-ai/DeepSeek-R1", "--tensor-parallel-size",
                         "8", "--decode-context-parallel-size", "8"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("decode-context-parallel-size 8"), std::string::npos) << r.out;
}

// vLLM's constraints (vllm/config/parallel.py, ModelConfig.verify_with_parallel_config).
TEST(DecodeContextParallelCliTest, WhatVllmRefusesIsRefused) {
  testing::ExpectOneLineError(RunCli({"capacity", "--model", "Qwen/Qwen3-235B-A22B", "--gpu", "h200", "-tp", "8", "-dcp", "3"}),
                              "vLLM requires --tensor-parallel-size (8) to be a multiple of it");
  // Qwen3-235B has 4 KV heads: TP 8 makes two copies of each, so DCP 2 splits them and DCP 4 cannot.
  testing::ExpectOneLineError(RunCli({"capacity", "--model", "Qwen/Qwen3-235B-A22B", "--gpu", "h200", "-tp", "8", "-dcp", "4"}),
                              "TP / KV heads (8 / 4 = 2) to be a multiple of it");
  EXPECT_EQ(RunCli({"capacity", "--model", "Qwen/Qwen3-235B-A22B", "--gpu", "h200", "-tp", "8", "-dcp", "2"}).exit_code, 0);
  testing::ExpectOneLineError(RunCli({"capacity", "--gpu", "h200", "--", "vllm", "serve", "meta-llama/Llama-3.1-70B-Instruct",
                                      "-tp", "8", "-dcp", "8"}),
                              "TP 8 is not greater than the model's 8 KV heads");
  testing::ExpectOneLineError(RunCli({"capacity", "--model", "Qwen/Qwen3-Next-80B-A3B-Thinking", "--gpu", "h200", "-tp", "8", "-dcp", "4"}),
                              "kvsim models DCP for full-attention models");
  testing::ExpectOneLineError(RunCli({"capacity", "--model", "deepseek-ai/DeepSeek-V3.2", "--gpu", "h200", "-tp", "8", "-dcp", "8"}),
                              "indexer key cache");
  testing::ExpectOneLineError(RunCli({"capacity", "--model", "deepseek-ai/DeepSeek-V2-Lite", "--gpu", "h100", "-tp", "2", "-dcp",
                                      "2", "--engine", "sglang"}),
                              "kvsim models vLLM's decode context parallelism only");
}

// Replay: a block of the table spans 16 x 2 tokens. A 1,000-token prompt and 10 output tokens hold
// between 1,000 and 1,009 slots at their peak: 32 blocks of 32 tokens (63 or 64 of 16 without DCP).
TEST(DecodeContextParallelCliTest, ReplayBlocksSpanBlockSizeTimesDcp) {
  const nlohmann::json j = testing::ReplayJson({"--model", "deepseek-ai/DeepSeek-V2-Lite", "--gpu", "h100", "-tp", "2", "-dcp", "2",
                                                "--synthetic", "1", "--rate", "1", "--prompt-len", "fixed:1000",
                                                "--output-len", "fixed:10"});
  ASSERT_FALSE(j.empty());
  EXPECT_EQ(j.at("kv").at("block_size").get<int64_t>(), 32);
  EXPECT_EQ(j.at("kv").at("peak_used_blocks").get<int64_t>(), 32);
}

// A decode step at TP 2, DCP 2: each rank reads half of every context's latent KV, and each attention
// layer gathers the queries and scatters the outputs over the group. DeepSeek-V2-Lite's rank holds 8 of
// the 16 heads: queries of 8 x (128 + 64) = 1,536 and outputs of 8 x 128 = 1,024 values, in bf16; 64
// sequences over 27 layers move (2 - 1) x 64 x 2,560 x 2 B x 27 = 8,847,360 B.
TEST(DecodeContextParallelCliTest, StepGathersQueriesAndHalvesKvReads) {
  auto step = [](const char* dcp) {
    return Json(RunCli({"step", "--model", "deepseek-ai/DeepSeek-V2-Lite", "--gpu", "h100", "-tp", "2", "-dcp", dcp,
                        "--decode-seqs", "64", "--decode-context", "32768", "--json", "-"}));
  };
  auto op = [](const nlohmann::json& j, const std::string& name) {
    for (const nlohmann::json& o : j.at("operators"))
      if (o.at("name") == name) return o;
    return nlohmann::json::object();
  };
  const nlohmann::json one = step("1"), two = step("2");
  ASSERT_FALSE(op(two, "dcp_gather_scatter").empty());
  EXPECT_DOUBLE_EQ(op(two, "dcp_gather_scatter").at("bytes").get<double>(), 8847360.0);
  EXPECT_TRUE(op(one, "dcp_gather_scatter").empty());
  // The latent reads halve (64 x 32,768 tokens x 576 B over 27 layers each way); the gathered queries
  // are a rounding error beside them.
  EXPECT_NEAR(op(two, "attention").at("bytes").get<double>() / op(one, "attention").at("bytes").get<double>(), 0.5, 0.01);
}

}  // namespace
}  // namespace kvsim
