// Which model runner vLLM profiles with, and what the V2 runner's profile holds, against byte counts
// derived by hand from vLLM's code and against a real 0.27.1 start-up log.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "kvcache/budget/model_runner.h"
#include "kvcache/budget/runtime_overhead.h"
#include "kvcache/model/model_config_parser.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

ModelSpec Preset(const std::string& id) {
  return LoadModelConfigFile(std::string(KVSIM_DATA_DIR_FOR_TESTS) + "/models/" + id + ".json");
}

// PR #44443 moved dense models to V2 (0.25), PR #42667 the Qwen and DeepSeek-V2 MoE families; PR #53183
// every family (0.29); n-gram drafting and the V0 engine stay on V1.
TEST(ModelRunnerTest, V2ForDenseModelsFrom025AndEveryModelFrom029) {
  const ModelSpec dense = Preset("meta-llama/Llama-3.1-8B-Instruct");
  const ModelSpec moe = Preset("mistralai/Mixtral-8x7B-v0.1");
  const ModelSpec qwen_moe = Preset("Qwen/Qwen3-30B-A3B");
  const ModelSpec hybrid = Preset("Qwen/Qwen3-Next-80B-A3B-Thinking");
  EXPECT_EQ(SelectModelRunner(ParseVllmVersion("0.24"), dense, ""), ModelRunner::kV1);
  EXPECT_EQ(SelectModelRunner(ParseVllmVersion("0.25.1"), dense, ""), ModelRunner::kV2);
  EXPECT_EQ(SelectModelRunner(ParseVllmVersion("0.27.1"), moe, ""), ModelRunner::kV1);
  EXPECT_EQ(SelectModelRunner(ParseVllmVersion("0.27.1"), qwen_moe, ""), ModelRunner::kV2);  // PR #42667
  EXPECT_EQ(SelectModelRunner(ParseVllmVersion("0.27.1"), hybrid, ""), ModelRunner::kV1);
  EXPECT_EQ(SelectModelRunner(ParseVllmVersion("0.29"), moe, ""), ModelRunner::kV2);
  EXPECT_EQ(SelectModelRunner(ParseVllmVersion("0.29"), hybrid, ""), ModelRunner::kV2);
  EXPECT_EQ(SelectModelRunner(ParseVllmVersion("0.30"), dense, "ngram"), ModelRunner::kV1);
  EXPECT_EQ(SelectModelRunner(ParseVllmVersion("v0"), dense, ""), ModelRunner::kV1);
  // V2's profile_cudagraph_memory() returned 0 until PR #53306 (0.28).
  EXPECT_FALSE(RunnerProfilesCudaGraphs(ModelRunner::kV2, ParseVllmVersion("0.27.1")));
  EXPECT_TRUE(RunnerProfilesCudaGraphs(ModelRunner::kV2, ParseVllmVersion("0.28")));
  EXPECT_TRUE(RunnerProfilesCudaGraphs(ModelRunner::kV1, ParseVllmVersion("0.27.1")));
}

// Qwen3-32B (h 5,120, intermediate 25,600, vocab 151,936 = 2,374 x 64, bf16) at TP 2 with the API
// server's defaults on a GPU over 70 GiB: 8,192 batched tokens, 1,024 sequences. Under V2:
//   sampler   Sampler.sample: the bf16 logits (2) and one fp32 copy (4), in place up to the fused
//             Gumbel-max kernel: 1,024 x 151,936 x 6 + 8,192 x 5,120 x 2 (the hidden states)
//             = 933,494,784 + 83,886,080 = 1,017,380,864 B
//   state     PenaltiesState: int32 output_bin_counts (4) and prompt_bin_mask (4 per 32 entries)
//             for every slot: 1,024 x 151,936 x 4.125 = 641,777,664 B
//   forward   8,192 x (3 x 25,600 / 2 + 3 x 5,120) x 2 = 880,803,840 B, freed before the sampler runs
// Under V1 the same sampler holds 15 B per logit: 1,024 x 151,936 x 15 + 83,886,080 = 2,417,623,040 B.
TEST(ModelRunnerTest, V2SamplerHoldsOneFp32CopyAndThePenaltyCounts) {
  const ModelSpec spec = Preset("Qwen/Qwen3-32B");
  ProfileSettings s;
  s.max_num_batched_tokens = 8192;
  s.max_num_seqs = 1024;
  s.tp = 2;
  s.interconnect = Interconnect::kPcie;
  s.version = ParseVllmVersion("0.27.1");
  s.runner = ModelRunner::kV2;
  const RuntimeOverhead v2 = EstimateRuntimeOverhead(spec, s);
  EXPECT_DOUBLE_EQ(v2.forward_peak_bytes, 880803840.0);
  EXPECT_DOUBLE_EQ(v2.sampler_peak_bytes, 1017380864.0);
  EXPECT_DOUBLE_EQ(v2.sampler_state_bytes, 641777664.0);
  EXPECT_DOUBLE_EQ(v2.activation_peak_bytes, 1017380864.0 + 641777664.0);
  s.runner = ModelRunner::kV1;
  const RuntimeOverhead v1 = EstimateRuntimeOverhead(spec, s);
  EXPECT_DOUBLE_EQ(v1.sampler_peak_bytes, 2417623040.0);
  EXPECT_DOUBLE_EQ(v1.sampler_state_bytes, 0.0);
}

// The kubesimplify blog's start-up (row R150; code-search index id 57905766703): vLLM 0.27.1,
// Qwen3-32B, TP 2 on two RTX PRO 6000 Blackwell Server (95.01 GiB), --gpu-memory-utilization 0.426
// --max-model-len 32768. Worker_TP0 logged "Model loading took 30.59 GiB" and "Available KV cache
// memory: 8.22 GiB"; the engine "GPU KV cache size: 67,296 tokens". With V1's sampler and a charged
// CUDA-graph estimate kvsim left 5.77 GiB (-30%).
TEST(ModelRunnerTest, Qwen3_32bTp2On027MatchesTheLoggedKvCache) {
  const auto r = testing::RunCli({"capacity", "--model", "Qwen/Qwen3-32B", "--gpu", "rtx-pro-6000", "--gpu-memory-gib",
                                  "95.01", "--tensor-parallel-size", "2", "--gpu-memory-utilization", "0.426",
                                  "--max-model-len", "32768", "--vllm-version", "0.27.1", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j.at("kv_cache_gib").get<double>() / 8.22, 1.0, 0.05) << r.out;
  EXPECT_NEAR(j.at("gpu_kv_cache_tokens").get<double>() / 67296.0, 1.0, 0.05) << r.out;
}

}  // namespace
}  // namespace kvsim
