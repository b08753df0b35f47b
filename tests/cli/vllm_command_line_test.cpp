// Real `vllm serve` command lines, pasted as published, get a capacity answer. Each
// line is quoted verbatim from its source (cited beside it); kvsim flags before `--` say which GPU,
// and, where the pasted command names a local path or a checkpoint without a preset, which config
// to read (kvsim's --model names the config of the pasted model).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::RunCli;

struct PastedCommand {
  const char* source;
  std::vector<std::string> kvsim_flags;  // before `--`
  const char* command;                   // as published (backslash continuations joined)
  bool fits = true;                      // false: the answer is "does not fit ... short by X GiB"
};

const PastedCommand kCommands[] = {
    {"vllm-project/vllm PR #16104 (Llama 4 support), 8xH100", {"--gpu", "h100"},
     "vllm serve meta-llama/Llama-4-Scout-17B-16E-Instruct --tensor-parallel-size 8 --max-model-len 1280000"},
    {"vllm-project/vllm PR #16104, 8xH200", {"--gpu", "h200"},
     "vllm serve meta-llama/Llama-4-Scout-17B-16E-Instruct --tensor-parallel-size 8 --max-model-len 3600000"},
    {"vllm-project/recipes Qwen/Qwen3.md (FP8, MI300X)", {"--gpu", "mi300x"},
     "HIP_VISIBLE_DEVICES=\"4,5,6,7\" VLLM_USE_V1=1 VLLM_ROCM_USE_AITER=1 VLLM_ROCM_USE_AITER_MHA=0 "
     "VLLM_V1_USE_PREFILL_DECODE_ATTENTION=1 VLLM_USE_TRITON_FLASH_ATTN=0 SAFETENSORS_FAST_GPU=1 "
     "vllm serve Qwen/Qwen3-235B-A22B-FP8 --trust-remote-code -tp 4 --disable-log-requests --swap-space 16 "
     "--distributed-executor-backend mp --max-num-batched-tokens 32768 --max-model-len 32768 "
     "--no-enable-prefix-caching --gpu-memory-utilization 0.8"},
    {"vllm-project/recipes OpenAI/GPT-OSS.md (A100)", {"--gpu", "a100-80gb"}, "vllm serve openai/gpt-oss-20b"},
    {"vllm-project/recipes OpenAI/GPT-OSS.md (A100)", {"--gpu", "a100-80gb"}, "vllm serve openai/gpt-oss-120b"},
    {"vllm-project/recipes OpenAI/GPT-OSS.md (A100)", {"--gpu", "a100-80gb"},
     "vllm serve openai/gpt-oss-120b --tensor-parallel-size 2"},
    {"vllm-project/recipes OpenAI/GPT-OSS.md (A100)", {"--gpu", "a100-80gb"},
     "vllm serve openai/gpt-oss-120b --tensor-parallel-size 4"},
    {"vllm-project/vllm issue #6689 (Llama 3.1 FAQ), 2xH100; the path is a local Llama-3.1-70B-Instruct",
     {"--gpu", "h100", "--model", "meta-llama/Llama-3.1-70B-Instruct"},
     "python -m vllm.entrypoints.openai.api_server --model "
     "/NS/llm-1/nobackup/shared/huggingface_cache/hub/models--meta-llama--Meta-Llama-3.1-70B-Instruct "
     "--tensor-parallel-size 2  --max-seq-len-to-capture 32000 --max-model-len 32000",
     // 2 x 65.7 GiB of bf16 weights leave ~3.5 GiB per GPU; one 32000-token request needs 32000 x 80 layers x
     // 2 (K,V) x 4 heads x 128 x 2 B = 4.9 GiB per GPU, so vLLM refuses to start (the user got no further).
     false},
    {"vllm-project/recipes Llama/Llama4-Scout.md (launch_server.sh, B200, FP8 checkpoint)",
     {"--gpu", "b200", "--model", "RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic"},
     "vllm serve nvidia/Llama-4-Scout-Instruct-FP8 --config {DATA}/serve_configs/Llama4_Hopper.yaml --tensor-parallel-size 1 "
     "--max-num-seqs 512 --max-model-len 10240"},
    {"vllm-project/recipes Llama/Llama3.3-70B.md (launch_server.sh, B200, FP8 checkpoint)",
     {"--gpu", "b200", "--model", "meta-llama/Llama-3.3-70B-Instruct", "--quantization", "fp8"},
     "vllm serve nvidia/Llama-3.3-70B-Instruct-FP8 --config {DATA}/serve_configs/Llama3.3_Hopper.yaml --tensor-parallel-size 1 "
     "--max-num-seqs 512 --max-model-len 10240"},
    {"vllm-project/recipes Qwen/Qwen3-VL.md flags (A100/H100 image inference) on the 30B-A3B preset, 1xH100",
     {"--gpu", "h100"},
     "vllm serve Qwen/Qwen3-VL-30B-A3B-Instruct --limit-mm-per-prompt.video 0 --mm-encoder-tp-mode data "
     "--mm-processor-cache-type shm --async-scheduling --gpu-memory-utilization 0.95 --max-model-len 128000"},
};

TEST(VllmCommandLineTest, TenRealServeCommandsGetACapacityAnswer) {
  ASSERT_GE(std::size(kCommands), 10u);
  for (const PastedCommand& c : kCommands) {
    std::vector<std::string> args = {"capacity"};
    args.insert(args.end(), c.kvsim_flags.begin(), c.kvsim_flags.end());
    args.push_back("--");
    // Split as a shell would (the sources quote nothing kvsim needs to keep together).
    std::string word, command = c.command;
    // The recipes' --config files are test data here (tests/data/serve_configs cites each).
    if (const size_t at = command.find("{DATA}"); at != std::string::npos) command.replace(at, 6, KVSIM_TEST_DATA_DIR);
    for (const char ch : command + " ") {
      if (ch == ' ') {
        if (!word.empty()) args.push_back(word);
        word.clear();
      } else if (ch != '"') {
        word += ch;
      }
    }
    const auto r = RunCli(args);
    if (!c.fits) {
      EXPECT_EQ(r.exit_code, 2) << c.source;
      EXPECT_NE(r.err.find("does not fit: "), std::string::npos) << c.source << "\n" << r.err;
      continue;
    }
    EXPECT_EQ(r.exit_code, 0) << c.source << "\n" << r.err;
    EXPECT_NE(r.out.find("GPU KV cache size (tokens)"), std::string::npos) << c.source << "\n" << r.out;
  }
}

TEST(VllmCommandLineTest, VllmCmdStringAndDashDashAgree) {
  const auto a = RunCli({"capacity", "--gpu", "h100", "--", "vllm", "serve", "meta-llama/Llama-3.1-70B-Instruct", "-tp", "4",
                         "--max-model-len", "32768"});
  const auto b = RunCli({"capacity", "--gpu", "h100", "--vllm-cmd",
                         "vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor_parallel_size=4 --max-model-len 32768"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out.find("Llama-3.1-70B-Instruct"), std::string::npos);
  EXPECT_NE(a.out.find("TP 4"), std::string::npos);
}

TEST(VllmCommandLineTest, NoEffectFlagsAreListedOnce) {
  const auto r = RunCli({"capacity", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--host", "0.0.0.0",
                         "--port", "8000", "--served-model-name", "a", "b", "--enable-chunked-prefill", "--swap-space", "4",
                         "--max-num-partial-prefills", "2", "--port", "8001"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("accepted, no effect on memory: --host, --port, --served-model-name, "
                       "--swap-space, --max-num-partial-prefills\n"),
            std::string::npos)
      << r.err;
}

// A pasted --speculative-config reaches the JSON: EAGLE-3 with k = 3 holds 3 drafts + 3 lookahead
// slots per decoding request (vllm/v1/core/sched/scheduler.py, v0.11); the null block leaves one block out.
TEST(VllmCommandLineTest, PastedSpeculativeConfigShowsItsSlots) {
  const auto r = RunCli({"capacity", "--json", "-", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct",
                         "--max-model-len", "8192", "--speculative-config",
                         R"({"method": "eagle3", "num_speculative_tokens": 3})"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["spec_decode_slots"], 6);
  EXPECT_EQ(j["usable_gpu_blocks"].get<int64_t>(), j["num_gpu_blocks"].get<int64_t>() - 1);
}

TEST(VllmCommandLineTest, UnusedPositionalArgumentsAreAnError) {
  const auto r = RunCli({"capacity", "meta-llama/Llama-3.1-70B-Instruct", "-tp", "4"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unexpected argument 'meta-llama/Llama-3.1-70B-Instruct'"), std::string::npos) << r.err;
  const auto replay = RunCli({"replay", "stray"});
  EXPECT_EQ(replay.exit_code, 2);
}

TEST(VllmCommandLineTest, UnknownServeFlagIsAnErrorNamingIt) {
  const auto r = RunCli({"capacity", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-modle-len", "4096"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'--max-modle-len' is not a flag of vllm serve"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--max-model-len"), std::string::npos) << r.err;
}

TEST(VllmCommandLineTest, SglangLaunchServerSelectsTheSglangRule) {
  const auto r = RunCli({"capacity", "--gpu", "h100", "--", "python3", "-m", "sglang.launch_server", "--model-path",
                         "meta-llama/Llama-3.1-8B-Instruct", "--tp", "1", "--mem-fraction-static", "0.8", "--context-length",
                         "8192", "--host", "0.0.0.0", "--port", "30000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("engine sglang"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("max-model-len 8192"), std::string::npos) << r.out;
}

// SGLang's server_args.py takes the parallel sizes under their long names as well (InferenceX's
// DeepSeek-R1 launch scripts write --tensor-parallel-size=8).
TEST(VllmCommandLineTest, SglangLongParallelNamesAreItsOwn) {
  const auto r = RunCli({"capacity", "--gpu", "h100", "--json", "-", "--", "python3", "-m", "sglang.launch_server",
                         "--model-path", "meta-llama/Llama-3.1-70B-Instruct", "--tensor-parallel-size=4",
                         "--decode-log-interval", "40", "--context-length", "8192"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).at("settings").at("tensor_parallel_size").get<int64_t>(), 4);
}

// SGLang's --scheduler-recv-interval (InferenceX's B200 DeepSeek-R1 scripts give 10 and 30) times the
// replay's arrivals (sim/engine/recv_polling.h); capacity answers memory, which it does not change.
TEST(VllmCommandLineTest, SglangRecvIntervalIsTheReplaysAndNoEffectOnMemory) {
  const std::vector<std::string> line = {"--", "python3", "-m", "sglang.launch_server", "--model-path",
                                         "meta-llama/Llama-3.1-8B-Instruct", "--scheduler-recv-interval", "30"};
  std::vector<std::string> capacity = {"capacity", "--gpu", "h100"};
  capacity.insert(capacity.end(), line.begin(), line.end());
  const auto c = RunCli(capacity);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_NE(c.err.find("accepted, no effect on memory: --scheduler-recv-interval"), std::string::npos) << c.err;
  std::vector<std::string> replay = {"replay", "--gpu", "h100", "--synthetic", "4", "--rate", "1", "--quiet"};
  replay.insert(replay.end(), line.begin(), line.end());
  const auto r = RunCli(replay);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("no effect"), std::string::npos) << r.err;
}

// `--config FILE.yaml` is read as vLLM's FlexibleArgumentParser reads it: the recipe's Hopper file sets
// fp8 KV, prefix caching off and 8,192 batched tokens, and a flag on the line wins over the file's (the
// config's flags go first, argparse keeps the last).
TEST(VllmCommandLineTest, ConfigYamlFlagsApplyAndTheLineWins) {
  const std::string hopper = testing::TestDataPath("serve_configs/Llama4_Hopper.yaml");
  const auto r = RunCli({"capacity", "--gpu", "h100", "--json", "-", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct",
                         "--config", hopper, "--max-num-batched-tokens", "4096"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json s = nlohmann::json::parse(r.out).at("settings");
  EXPECT_EQ(s.at("max_num_batched_tokens").get<int64_t>(), 4096);
  EXPECT_EQ(s.at("kv_cache_dtype").get<std::string>(), "fp8");
  EXPECT_FALSE(s.at("enable_prefix_caching").get<bool>());
  EXPECT_NE(r.out.find("so vLLM uses the later value: --max-num-batched-tokens"), std::string::npos) << r.out;
}

// A nested speculative-config mapping is the flag's JSON: EAGLE-3, k = 3 gives 3 drafts + 3 lookahead
// slots (as PastedSpeculativeConfigShowsItsSlots). `enable-prefix-caching: false` is
// --no-enable-prefix-caching from 0.29 (load_config_file, PR #51573); before, vLLM's reader appended a
// flag only for true and dropped it, which the line says.
TEST(VllmCommandLineTest, ConfigYamlNestedMappingIsTheFlagsJson) {
  const auto r = RunCli({"capacity", "--json", "-", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--config",
                         testing::TestDataPath("serve_configs/nested_speculative.yaml")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["spec_decode_slots"], 6);
  EXPECT_FALSE(nlohmann::json::parse(r.out).at("settings").at("enable_prefix_caching").get<bool>());
  const auto old = RunCli({"capacity", "--vllm-version", "0.27", "--json", "-", "--", "vllm", "serve",
                           "meta-llama/Llama-3.1-8B-Instruct", "--config",
                           testing::TestDataPath("serve_configs/nested_speculative.yaml")});
  ASSERT_EQ(old.exit_code, 0) << old.err;
  EXPECT_TRUE(nlohmann::json::parse(old.out).at("settings").at("enable_prefix_caching").get<bool>());
  EXPECT_NE(nlohmann::json::parse(old.out).at("notes").dump().find(
                "nested_speculative.yaml:6: enable-prefix-caching is false, which vLLM's config reader drops"),
            std::string::npos) << old.out;
}

TEST(VllmCommandLineTest, ConfigYamlErrorsNameFileLineAndKey) {
  testing::TempDir dir;
  auto run = [&](const std::string& name, const std::string& text) {
    const std::string path = dir.path() + "/" + name;
    std::ofstream(path) << text;
    return std::pair{RunCli({"capacity", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--config", path}), path};
  };
  auto [unknown, p1] = run("a.yaml", "max-model-len: 4096\nmax-modle-len: 8192\n");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find(p1 + ":2: key 'max-modle-len': '--max-modle-len' is not a flag of vllm serve"), std::string::npos)
      << unknown.err;
  auto [malformed, p2] = run("b.yaml", "max-model-len: 4096\nspeculative-config: {method: ngram\n");
  EXPECT_EQ(malformed.exit_code, 2);
  EXPECT_NE(malformed.err.find(p2 + ":"), std::string::npos) << malformed.err;
  EXPECT_NE(malformed.err.find("malformed YAML"), std::string::npos) << malformed.err;
  auto [empty_value, p3] = run("c.yaml", "max-model-len:\n");
  EXPECT_EQ(empty_value.exit_code, 2);
  EXPECT_NE(empty_value.err.find(p3 + ":1: key 'max-model-len': has no value"), std::string::npos) << empty_value.err;
  auto [not_map, p4] = run("d.yaml", "- max-model-len\n");
  EXPECT_EQ(not_map.exit_code, 2);
  EXPECT_NE(not_map.err.find("a vLLM config file is a mapping"), std::string::npos) << not_map.err;
  auto [json_ext, p5] = run("e.json", "{}\n");
  EXPECT_EQ(json_ext.exit_code, 2);
  EXPECT_NE(json_ext.err.find("--config takes a .yaml or .yml file"), std::string::npos) << json_ext.err;
  const auto missing = RunCli({"capacity", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--config",
                               dir.path() + "/none.yaml"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("none.yaml"), std::string::npos) << missing.err;
}

// -cc.a.b nests as vLLM nests it, and merges with the whole JSON of the same flag; one key given two
// different values (JSON and dotted) is refused naming both.
TEST(VllmCommandLineTest, DottedKeysMergeWithTheJsonAndConflictsAreRefused) {
  const auto merged = RunCli({"capacity", "--json", "-", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct",
                              "--speculative-config", R"({"method": "eagle3"})", "--speculative-config.num_speculative_tokens=3"});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(nlohmann::json::parse(merged.out)["spec_decode_slots"], 6);
  const auto dotted_only = RunCli({"capacity", "--json", "-", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct",
                                   "--speculative-config.method", "ngram", "--speculative-config.num_speculative_tokens", "3",
                                   "--speculative-config.prompt_lookup_max", "4"});
  ASSERT_EQ(dotted_only.exit_code, 0) << dotted_only.err;
  const auto conflict = RunCli({"capacity", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--speculative-config",
                                R"({"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4})",
                                "--speculative-config.num_speculative_tokens=5"});
  EXPECT_EQ(conflict.exit_code, 2);
  EXPECT_NE(conflict.err.find("--speculative-config.num_speculative_tokens 5 and the JSON of --speculative-config"),
            std::string::npos) << conflict.err;
  EXPECT_NE(conflict.err.find("num_speculative_tokens: 3"), std::string::npos) << conflict.err;
}

// Decode context parallelism is planned (decode_context_parallel_cli_test.cpp); prefill context
// parallelism, which shards each request's KV over GPUs of its own, is refused with the reason; 1 is
// the default and has no effect.
TEST(VllmCommandLineTest, PrefillContextParallelIsRefusedWithTheReason) {
  const auto r = RunCli({"capacity", "--gpu", "h200", "--", "vllm", "serve", "meta-llama/Llama-3.1-70B-Instruct", "-tp", "8",
                         "--prefill-context-parallel-size", "2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("prefill context parallelism is not modelled"), std::string::npos) << r.err;
  const auto one = RunCli({"capacity", "--gpu", "h200", "--", "vllm", "serve", "meta-llama/Llama-3.1-70B-Instruct", "-tp", "8",
                           "--decode-context-parallel-size=1"});
  EXPECT_EQ(one.exit_code, 0) << one.err;
}

// Two ways to size the one KV tier below the GPU: refused, naming both, rather than one dropped.
TEST(VllmCommandLineTest, TwoSizesOfTheOffloadTierAreRefused) {
  const auto r = RunCli({"capacity", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--kv-offloading-size", "10",
                         "--kv-transfer-config",
                         R"({"kv_connector": "OffloadingConnector", "kv_role": "kv_both", "kv_connector_extra_config": {"num_cpu_blocks": 1000}})"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--kv-offloading-size and --kv-transfer-config (an offloading connector) both size the KV tier"),
            std::string::npos) << r.err;
}

// Two spellings of one setting with different values: vLLM's argparse keeps the last, and the line
// says which it dropped.
TEST(VllmCommandLineTest, TwoSpellingsOfOneSettingKeepTheLastAndSaySo) {
  const auto r = RunCli({"capacity", "--json", "-", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "-tp", "2",
                         "--tensor-parallel-size", "4"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).at("settings").at("tensor_parallel_size").get<int64_t>(), 4);
  EXPECT_NE(r.out.find("so vLLM uses the later value: --tensor-parallel-size"), std::string::npos) << r.out;
}

// Prefill context parallelism interleaves each request's KV cache across its ranks as DCP does: 1 has
// no effect, more is refused with the reason (not answered that many times too small).
TEST(VllmCommandLineTest, PrefillContextParallelAboveOneIsRefused) {
  const auto one = RunCli({"capacity", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "-pcp", "1"});
  EXPECT_EQ(one.exit_code, 0) << one.err;
  const auto two = RunCli({"capacity", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "-tp", "2", "-pcp", "2"});
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_NE(two.err.find("--prefill-context-parallel-size (-pcp) 2: prefill context parallelism is not modelled"),
            std::string::npos) << two.err;
}

// --spec-method/--spec-model/--spec-tokens are keys of --speculative-config (EngineArgs.spec_*): the same
// drafter either way (EAGLE-3, k = 3: 3 drafts + 3 lookahead slots).
TEST(VllmCommandLineTest, SpeculativeShorthandsAreTheConfigsKeys) {
  const auto r = RunCli({"capacity", "--json", "-", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len",
                         "8192", "--spec-method", "eagle3", "--spec-tokens", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["spec_decode_slots"], 6);
}

// A recipe's container line (vllm-project/recipes models/Qwen/Qwen3-8B.yaml @ 8959cf6, line 102) is the
// same server: vLLM's images run `vllm serve` as their ENTRYPOINT, so what follows the image is its arguments,
// and -e VAR=value is the server's environment. The image's tag names a release, said beside the one planned.
TEST(VllmCommandLineTest, ADockerRunOfVllmsImageIsItsServeLine) {
  const std::string docker =
      "docker run -itd --name qwen3-8b-cpu --network host --shm-size 16g -v ~/.cache/huggingface:/root/.cache/huggingface "
      "vllm/vllm-openai-cpu:latest-x86_64 --model Qwen/Qwen3-8B --max-num-batched-tokens 16384 --gpu-memory-utilization 0.8 "
      "--host 0.0.0.0 --port 8000";
  const std::string serve = "vllm serve Qwen/Qwen3-8B --max-num-batched-tokens 16384 --gpu-memory-utilization 0.8";
  const auto a = RunCli({"capacity", "--gpu", "h200", "--json", "-", "--vllm-cmd", docker});
  const auto b = RunCli({"capacity", "--gpu", "h200", "--json", "-", "--vllm-cmd", serve});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(nlohmann::json::parse(a.out).at("settings"), nlohmann::json::parse(b.out).at("settings"));
  // -e VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 reaches the server as the variable before `vllm serve` does.
  const auto env = RunCli({"capacity", "--gpu", "h200", "--vllm-cmd",
                           "docker run --gpus all -e VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm/vllm-openai:v0.25.0 "
                           "Qwen/Qwen3-0.6B --max-model-len 65536"});
  EXPECT_EQ(env.exit_code, 0) << env.err;
  EXPECT_NE(env.out.find("note: image vllm/vllm-openai:v0.25.0 runs vLLM 0.25; this plan models 0.30 (--vllm-version 0.25 "
                         "plans the image's release)"),
            std::string::npos) << env.out;
  // --entrypoint "" runs the command typed after the image (the recipe's DGX Spark form).
  const auto entry = RunCli({"capacity", "--gpu", "h200", "--vllm-cmd",
                             "docker run --rm --entrypoint=\"\" -e NCCL_IB_DISABLE=0 \"$IMAGE\" vllm serve Qwen/Qwen3-8B -tp 1"});
  EXPECT_EQ(entry.exit_code, 0) << entry.err;
  // vllm serve typed again after vLLM's image: vLLM takes 'vllm' for the model and refuses 'serve'.
  const auto twice = RunCli({"capacity", "--gpu", "h200", "--vllm-cmd", "docker run vllm/vllm-openai:latest vllm serve Qwen/Qwen3-8B"});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("runs `vllm serve` itself (its ENTRYPOINT)"), std::string::npos) << twice.err;
  // Another image's entrypoint is not known: refused, not guessed.
  const auto other = RunCli({"capacity", "--gpu", "h200", "--vllm-cmd", "docker run myorg/server:1 --model Qwen/Qwen3-8B"});
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("image myorg/server:1 is not vLLM's"), std::string::npos) << other.err;
}

// Lines pasted from issues carry the shell around the command: `nohup`, a redirection to a log and a pipe
// (vllm-project/vllm#26897: `vllm serve ... 2>&1 | tee -a server.log && tail -f server.log`). The server
// never sees them: the plan is the command's, and what the shell does after it is said, not read as arguments.
TEST(VllmCommandLineTest, TheShellAroundAPastedCommandIsNotTheServers) {
  const auto plain = RunCli({"capacity", "--gpu", "h200", "--json", "-", "--vllm-cmd", "vllm serve Qwen/Qwen3-8B -tp 1"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  for (const std::string& line :
       {std::string("nohup vllm serve Qwen/Qwen3-8B -tp 1 > vllm.log 2>&1 &"),
        std::string("CUDA_VISIBLE_DEVICES=0 nohup vllm serve Qwen/Qwen3-8B -tp 1 >>vllm.log"),
        std::string("vllm serve Qwen/Qwen3-8B -tp 1 2>&1 | tee -a /vllm-workspace/server.log && tail -f /vllm-workspace/server.log")}) {
    const auto r = RunCli({"capacity", "--gpu", "h200", "--json", "-", "--vllm-cmd", line});
    ASSERT_EQ(r.exit_code, 0) << line << ": " << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("settings"), nlohmann::json::parse(plain.out).at("settings")) << line;
    bool said = false;
    for (const auto& note : j.at("notes")) said |= note.get<std::string>().find("is the shell's, not the server's") != std::string::npos;
    EXPECT_TRUE(said) << line << ": " << j.at("notes").dump();
  }
}

TEST(VllmCommandLineTest, UnknownModelIdSaysHowToFetchItsConfig) {
  const auto r = RunCli({"capacity", "--", "vllm", "serve", "someorg/NoSuchModel-7B"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("huggingface.co/someorg/NoSuchModel-7B/resolve/main/config.json"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kvsim

namespace kvsim {
namespace {

TEST(CompareCliTest, ADeploymentThatDoesNotFitIsReportedAndTheRestCompared) {
  // 70B in bf16 is ~131 GiB of weights: it cannot start on one 24 GiB L4.
  const auto r = testing::RunCli({"compare", "--synthetic", "20", "--rate", "5", "--quiet",
                                  "--a", "--gpu l4 --model meta-llama/Llama-3.1-70B-Instruct",
                                  "--b", "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 --port 8000",
                                  "--c", "--gpu h100 --max-model-len 16384"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("deployment a: --gpu l4 --model meta-llama/Llama-3.1-70B-Instruct: does not fit: needs "),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GiB more"), std::string::npos) << r.out;
  // Full labels, not cut at 40 characters.
  EXPECT_NE(r.out.find("b: vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 --port 8000"), std::string::npos)
      << r.out;
}

// A deployment's own pasted line says what it does not model, in the text and in its JSON summary,
// as a line after `--` does for capacity and replay; a flag its modelled release lacks is noted too.
TEST(CompareCliTest, ADeploymentsPastedLineCarriesItsWarnings) {
  const auto r = testing::RunCli({"compare", "--synthetic", "10", "--rate", "5", "--quiet", "--vllm-version", "0.11",
                                  "--json", "-", "--a", "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192",
                                  "--b", "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 "
                                  "--kv-transfer-config {\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"} "
                                  "--optimization-level 2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string json_text = r.out.substr(r.out.find('['));
  const nlohmann::json j = nlohmann::json::parse(json_text);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_TRUE(j.at(0).at("summary").at("warnings").dump().find("pasted") == std::string::npos);
  const std::string b = j.at(1).at("summary").at("warnings").dump();
  EXPECT_NE(b.find("not modelled (they change memory): --kv-transfer-config"), std::string::npos) << b;
  EXPECT_NE(b.find("--optimization-level"), std::string::npos) << b;  // not in 0.11's parser
}

}  // namespace
}  // namespace kvsim
