// Options that contradict each other, or that another option makes moot, are refused naming both
// (exit 2) instead of being taken and ignored; a pasted vLLM line keeps argparse's "last one wins".
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::ExpectOneLineError;
using testing::RunCli;

TEST(OptionRulesTest, OnAndOffOfOneSettingAreRefused) {
  ExpectOneLineError(RunCli({"capacity", "--enable-prefix-caching", "--no-enable-prefix-caching"}),
                     "--enable-prefix-caching and --no-enable-prefix-caching cannot be given together");
  ExpectOneLineError(RunCli({"replay", "--synthetic", "10", "--rate", "5", "--enable-chunked-prefill",
                             "--no-enable-chunked-prefill", "--quiet"}),
                     "--enable-chunked-prefill and --no-enable-chunked-prefill cannot be given together");
  ExpectOneLineError(RunCli({"replay", "--synthetic", "10", "--rate", "5", "--async-scheduling", "--no-async-scheduling",
                             "--quiet"}),
                     "--async-scheduling and --no-async-scheduling cannot be given together");
}

TEST(OptionRulesTest, TraceReadingOptionsWithASyntheticWorkloadAreRefused) {
  for (const char* option : {"--trace-format", "--time-unit", "--arrival-column", "--model-filter", "--delimiter"}) {
    const std::string value = std::string(option) == "--trace-format" ? "mooncake"
                              : std::string(option) == "--time-unit" ? "ms"
                              : std::string(option) == "--delimiter" ? "tab"
                                                                      : "x";
    ExpectOneLineError(RunCli({"replay", "--synthetic", "10", "--rate", "5", option, value, "--quiet"}),
                       std::string("--synthetic and ") + option + " cannot be given together");
  }
}

TEST(OptionRulesTest, StepModelTuningBesideAFixedStepTimeIsRefused) {
  ExpectOneLineError(RunCli({"replay", "--synthetic", "10", "--rate", "5", "--step-time-ms", "5",
                             "--compute-efficiency", "0.5", "--quiet"}),
                     "--step-time-ms and --compute-efficiency cannot be given together");
  ExpectOneLineError(RunCli({"sweep", "--synthetic", "10", "--rate", "5", "--step-time-ms", "5", "--step-overhead-ms",
                             "1", "--sweep", "max-num-seqs=8,16", "--quiet"}),
                     "--step-time-ms and --step-overhead-ms cannot be given together");
}

TEST(OptionRulesTest, AnOptionForAnotherModeIsRefusedNamingTheMode) {
  ExpectOneLineError(RunCli({"replay", "--synthetic", "10", "--rate", "5", "--placement", "best-fit", "--quiet"}),
                     "--placement applies only with --allocator contiguous (here --allocator paged)");
  ExpectOneLineError(RunCli({"replay", "--synthetic", "10", "--rate", "5", "--cv", "3", "--quiet"}),
                     "--cv applies only with --arrival gamma (here --arrival poisson)");
  ExpectOneLineError(RunCli({"replay", "--synthetic", "10", "--rate", "5", "--scheduler", "vllm-v0",
                             "--no-async-scheduling", "--quiet"}),
                     "--no-async-scheduling applies only with --scheduler vllm");
  ExpectOneLineError(RunCli({"replay", "--synthetic", "10", "--rate", "5", "--scheduler-recv-interval", "10", "--quiet"}),
                     "--scheduler-recv-interval applies only with --engine sglang (here --engine vllm)");
  ExpectOneLineError(RunCli({"replay", "--synthetic", "10", "--rate", "5", "--engine", "sglang", "--scheduler-recv-interval",
                             "1001", "--quiet"}),
                     "--scheduler-recv-interval: 1001 is outside the accepted range [0, 1000]");
  ExpectOneLineError(RunCli({"replay", "--synthetic", "10", "--rate", "5", "--sample-interval", "1", "--quiet"}),
                     "--sample-interval needs --timeseries");
  // Generated arrivals belong to --synthetic and lengths files: a timestamped trace has its own.
  ExpectOneLineError(RunCli({"replay", "--arrival", "gamma", "--max-requests", "10", "--quiet"}), "--arrival: the trace");
  // The same options in the mode they belong to run.
  const auto r = RunCli({"replay", "--synthetic", "10", "--rate", "5", "--arrival", "gamma", "--cv", "3", "--allocator",
                         "contiguous", "--placement", "best-fit", "--quiet"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// vLLM ignores gpu_memory_utilization when kv_cache_memory_bytes is set (the worker skips the
// profile): kvsim plans the fixed cache and says the utilization did not size it.
TEST(OptionRulesTest, UtilizationBesideAFixedKvCacheIsNotedNotSilentlyDropped) {
  const auto r = RunCli({"capacity", "--gpu", "h100", "--kv-cache-memory", "20GiB", "--gpu-memory-utilization", "0.5",
                         "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j.at("kv_cache_gib").get<double>(), 20.0, 1e-9);
  EXPECT_NE(j.at("notes").dump().find("--gpu-memory-utilization does not size the KV cache"), std::string::npos);
}

// argparse keeps the last of a repeated flag: `--enable-prefix-caching ... --no-enable-prefix-caching`
// in a pasted line serves without prefix caching, and kvsim names what the later flag replaced.
TEST(OptionRulesTest, APastedLineKeepsTheLastOfARepeatedSettingAsVllmDoes) {
  const auto r = RunCli({"capacity", "--json", "-", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct",
                         "--enable-prefix-caching", "--max-model-len", "8192", "--no-enable-prefix-caching",
                         "--max-model-len", "4096"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("settings").at("max_model_len").get<int64_t>(), 4096);
  EXPECT_FALSE(j.at("settings").at("enable_prefix_caching").get<bool>());
  const std::string warnings = j.at("notes").dump();
  EXPECT_NE(warnings.find("given again later in the pasted line"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("--max-model-len"), std::string::npos) << warnings;
  // kvsim's own flag before `--` replaces the pasted one, negation included, instead of clashing with it.
  const auto own = RunCli({"capacity", "--json", "-", "--enable-prefix-caching", "--", "vllm", "serve",
                           "meta-llama/Llama-3.1-8B-Instruct", "--no-enable-prefix-caching"});
  ASSERT_EQ(own.exit_code, 0) << own.err;
  EXPECT_TRUE(nlohmann::json::parse(own.out).at("settings").at("enable_prefix_caching").get<bool>());
}

}  // namespace
}  // namespace kvsim

namespace kvsim {
namespace {

using testing::ExpectOneLineError;
using testing::RunCli;

// Adapters per request mean something only when vLLM serves LoRA.
TEST(OptionRulesTest, AdapterOptionsNeedLora) {
  ExpectOneLineError(RunCli({"replay", "--synthetic", "10", "--rate", "5", "--adapters", "4", "--quiet"}),
                     "--adapters needs --enable-lora");
  ExpectOneLineError(RunCli({"replay", "--adapter-column", "lora", "--quiet"}), "--adapter-column needs --enable-lora");
  ExpectOneLineError(RunCli({"replay", "--synthetic", "10", "--rate", "5", "--enable-lora", "--adapter-popularity",
                             "zipf:1.1", "--quiet"}),
                     "--adapter-popularity needs --adapters");
  ExpectOneLineError(RunCli({"replay", "--enable-lora", "--adapters", "4", "--adapter-column", "lora", "--quiet"}),
                     "--adapters and --adapter-column cannot be given together");
}

}  // namespace
}  // namespace kvsim
