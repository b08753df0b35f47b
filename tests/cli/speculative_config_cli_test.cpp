// --speculative-config as vLLM's SpeculativeConfig takes it (vllm/config/speculative.py,
// vllm-project/vllm @ 002e77c1): each input vLLM refuses, and each kvsim cannot model, is refused
// with exit 2 and one line saying why; before, every one of them ran (an unknown method as a free
// drafter, MTP on a model without MTP layers, unknown keys dropped).
#include <gtest/gtest.h>

#include <string>

#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::ExpectOneLineError;
using testing::RunCli;

void Refused(const std::string& config, const std::string& message, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"capacity", "--speculative-config", config};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = RunCli(args);
  EXPECT_EQ(r.exit_code, 2) << config;
  ExpectOneLineError(r, message);
}

TEST(SpeculativeConfigCliTest, AnUnknownMethodIsRefusedNotRunAsAFreeDrafter) {
  Refused(R"({"method": "eagle4", "num_speculative_tokens": 3})", "method 'eagle4' is not one vLLM knows");
  Refused(R"({"method": "egale3", "num_speculative_tokens": 3})", "did you mean eagle3");
  // Methods vLLM has and kvsim does not model are refused with what they are.
  Refused(R"({"method": "dflash", "model": "z-lab/Qwen3-8B-DFlash-b16", "num_speculative_tokens": 16})",
          "method \"dflash\" is a block-diffusion drafter");
}

TEST(SpeculativeConfigCliTest, MtpOnAModelWithoutMtpLayersIsRefusedNamingIt) {
  Refused(R"({"method": "mtp", "num_speculative_tokens": 1})",
          "meta-llama/Llama-3.1-8B-Instruct (llama) has none (num_nextn_predict_layers is 0 or absent");
  // The family spellings are vLLM's deprecated aliases of "mtp": the same check.
  Refused(R"({"method": "deepseek_mtp", "num_speculative_tokens": 1})", "has none", {"--model", "Qwen/Qwen3-8B"});
  // DeepSeek-V3 ships one MTP layer: accepted.
  const auto r = RunCli({"capacity", "--model", "deepseek-ai/DeepSeek-V3", "--gpu", "h200", "-tp", "8",
                         "--speculative-config", R"({"method": "mtp", "num_speculative_tokens": 1})"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(SpeculativeConfigCliTest, KeysBeyondMethodModelAndTokensAreModelledOrRefused) {
  Refused(R"({"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_maxx": 4})",
          "\"prompt_lookup_maxx\" is not a field of vLLM's SpeculativeConfig; did you mean prompt_lookup_max");
  Refused(R"({"method": "ngram", "num_speculative_tokens": 3, "tensor_parallel_size": 1})",
          "pass \"draft_tensor_parallel_size\" instead");
  Refused(R"({"method": "ngram", "num_speculative_tokens": 3, "quantization": "fp8"})",
          "\"quantization\" sets the drafter's weights, and method \"ngram\" has none");
  Refused(R"({"method": "ngram", "num_speculative_tokens": 3, "kv_cache_dtype": "fp8"})",
          "kvsim stores the drafter's KV layers in the target's pool");
  Refused(R"({"method": "ngram", "num_speculative_tokens": 3, "parallel_drafting": true})",
          "vLLM takes it with EAGLE and draft-model methods only");
  Refused(R"({"model": "Qwen/Qwen3-0.6B", "num_speculative_tokens": 4, "parallel_drafting": true})",
          "\"parallel_drafting\": true drafts all tokens in one pass", {"--model", "Qwen/Qwen3-8B"});
  // "enforce_eager" is modelled (the drafter's kernels launched from Python): a bool, nothing else.
  Refused(R"({"model": "Qwen/Qwen3-0.6B", "num_speculative_tokens": 4, "enforce_eager": 1})",
          "\"enforce_eager\" is 1; it takes true or false", {"--model", "Qwen/Qwen3-8B"});
  EXPECT_EQ(RunCli({"capacity", "--model", "Qwen/Qwen3-8B", "--speculative-config",
                    R"({"model": "Qwen/Qwen3-0.6B", "num_speculative_tokens": 4, "enforce_eager": true})"})
                .exit_code,
            0);
  Refused(R"({"model": "Qwen/Qwen3-0.6B", "num_speculative_tokens": 4, "disable_padded_drafter_batch": true})",
          "1 + accepted tokens per request instead of 1 + k", {"--model", "Qwen/Qwen3-8B"});
  Refused(R"({"method": "ngram", "num_speculative_tokens": 3, "draft_sample_method": "probabilistic"})",
          "keeps the drafter's full logits");
  Refused(R"({"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_min": 5, "prompt_lookup_max": 2})",
          "prompt_lookup_min 5 must be <= prompt_lookup_max 2");
  Refused(R"({"method": "mtp", "num_speculative_tokens": 1, "draft_tensor_parallel_size": 4})",
          "draft_tensor_parallel_size 4 must be 1 or the target's tensor parallel size 8",
          {"--model", "deepseek-ai/DeepSeek-V3", "--gpu", "h200", "-tp", "8"});
  Refused(R"({"method": "mtp", "num_speculative_tokens": 1, "quantization": "fp9"})",
          "--speculative-config: \"quantization\": --quantization: 'fp9' is not known",
          {"--model", "deepseek-ai/DeepSeek-V3", "--gpu", "h200", "-tp", "8"});
  // Keys that move nothing kvsim computes are taken (their values still checked).
  const auto r = RunCli({"capacity", "--speculative-config",
                         R"({"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4, "prompt_lookup_min": 2})"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(SpeculativeConfigCliTest, TheTokenCountIsWhatVllmAccepts) {
  Refused(R"({"method": "ngram", "num_speculative_tokens": 0})", "vLLM takes an integer >= 1");
  Refused(R"({"method": "ngram"})", "give \"num_speculative_tokens\"");
  Refused(R"({"method": "ngram", "num_speculative_tokens": 3.5})", "vLLM takes an integer >= 1");
  Refused(R"({"method": "ngram", "num_speculative_tokens": "3.5"})", "vLLM takes an integer >= 1");
  Refused(R"({"method": "ngram", "num_speculative_tokens": "three"})", "vLLM takes an integer >= 1");
  // pydantic's lax mode reads 3.0 and "3" as the integer 3: planned as the integer form plans them.
  const auto as_int = RunCli({"capacity", "--speculative-config", R"({"method": "ngram", "num_speculative_tokens": 3})"});
  ASSERT_EQ(as_int.exit_code, 0) << as_int.err;
  for (const char* lax : {R"({"method": "ngram", "num_speculative_tokens": 3.0})",
                          R"({"method": "ngram", "num_speculative_tokens": "3"})"}) {
    const auto r = RunCli({"capacity", "--speculative-config", lax});
    EXPECT_EQ(r.exit_code, 0) << lax << ": " << r.err;
    EXPECT_EQ(r.out, as_int.out) << lax;
  }
}

}  // namespace
}  // namespace kvsim
