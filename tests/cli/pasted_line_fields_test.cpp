// Parts of a pasted `vllm serve` line that were accepted and then dropped: each is now modelled,
// accepted with a note that it moves no memory, or refused with the reason, as vLLM reads it.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::RunCli;

testing::CommandResult Pasted(const std::string& line, bool json = false) {
  std::vector<std::string> args = {"capacity", "--gpu", "h100"};
  if (json) args.insert(args.end(), {"--json", "-"});
  args.insert(args.end(), {"--vllm-cmd", line});
  return RunCli(args);
}

// vLLM's CompilationConfig is a pydantic dataclass with extra="forbid" (vllm/config/compilation.py):
// an unknown key stops vLLM, so kvsim refuses it, naming the key and the nearest field.
TEST(PastedLineFieldsTest, CompilationConfigUnknownKeysAreRefused) {
  const auto bogus = Pasted(R"(vllm serve meta-llama/Llama-3.1-8B-Instruct -cc '{"bogus_key":3}')");
  EXPECT_EQ(bogus.exit_code, 2) << bogus.err;
  EXPECT_NE(bogus.err.find("'bogus_key' is not a field of vLLM's CompilationConfig"), std::string::npos) << bogus.err;
  const auto typo = Pasted(R"(vllm serve meta-llama/Llama-3.1-8B-Instruct --compilation-config '{"cudagraph_mod":"FULL"}')");
  EXPECT_EQ(typo.exit_code, 2) << typo.err;
  EXPECT_NE(typo.err.find("(did you mean cudagraph_mode?)"), std::string::npos) << typo.err;
  // PassConfig forbids extras too, in the JSON and in the dotted spelling.
  const auto pass = Pasted(R"(vllm serve meta-llama/Llama-3.1-8B-Instruct -cc '{"pass_config":{"fuse_norm_qaunt":true}}')");
  EXPECT_EQ(pass.exit_code, 2) << pass.err;
  EXPECT_NE(pass.err.find("'pass_config.fuse_norm_qaunt' is not a field of vLLM's PassConfig (did you mean fuse_norm_quant?)"),
            std::string::npos) << pass.err;
  const auto dotted = Pasted("vllm serve meta-llama/Llama-3.1-8B-Instruct -cc.pass_config.bogus=true");
  EXPECT_EQ(dotted.exit_code, 2) << dotted.err;
  EXPECT_NE(dotted.err.find("'pass_config.bogus' is not a field of vLLM's PassConfig"), std::string::npos) << dotted.err;
  const auto not_object = Pasted(R"(vllm serve meta-llama/Llama-3.1-8B-Instruct -cc '{"pass_config":3}')");
  EXPECT_EQ(not_object.exit_code, 2) << not_object.err;
  // An older release's graph switch is refused with its replacement, not read as something else.
  const auto old = Pasted(R"(vllm serve meta-llama/Llama-3.1-8B-Instruct -cc '{"full_cuda_graph":true}')");
  EXPECT_EQ(old.exit_code, 2) << old.err;
  EXPECT_NE(old.err.find("replaced by cudagraph_mode"), std::string::npos) << old.err;
  // kvsim's own flag is checked the same way.
  const auto own = RunCli({"capacity", "--gpu", "h100", "--compilation-config", R"({"bogus_key":3})"});
  EXPECT_EQ(own.exit_code, 2) << own.err;
}

// Fields that choose kernels, fusions and caches are accepted and said to move no memory, in the
// text and in the JSON (in key order, as the JSON object keeps them); the plan equals the one without them.
TEST(PastedLineFieldsTest, CompilationConfigFieldsWithoutEffectAreNoted) {
  const std::string base = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192";
  const auto with = Pasted(base + R"( -cc '{"pass_config":{"fuse_norm_quant":true},"custom_ops":["+rms_norm"],"backend":"inductor","cache_dir":"/tmp/c"}')");
  ASSERT_EQ(with.exit_code, 0) << with.err;
  EXPECT_NE(with.out.find("accepted, no effect on memory: --compilation-config backend, cache_dir, custom_ops, "
                          "pass_config.fuse_norm_quant"),
            std::string::npos) << with.out;
  const auto json = Pasted(base + R"( -cc '{"splitting_ops":[],"compile_sizes":[1,2]}')", true);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_NE(j.at("notes").dump().find("accepted, no effect on memory: --compilation-config compile_sizes, splitting_ops"),
            std::string::npos) << j.at("notes").dump();
  const auto without = Pasted(base, true);
  ASSERT_EQ(without.exit_code, 0) << without.err;
  EXPECT_EQ(j.at("gpu_kv_cache_tokens"), nlohmann::json::parse(without.out).at("gpu_kv_cache_tokens"));
}

// `vllm serve [model_tag] [options]`: the positional is optional (vllm/entrypoints/cli/serve.py), and
// without it or --model vLLM serves ModelConfig.model's default, Qwen/Qwen3-0.6B. The plan is for that
// model and says so, never for kvsim's own default.
TEST(PastedLineFieldsTest, ALineWithoutAModelPlansVllmsDefaultModel) {
  const auto none = Pasted("vllm serve --gpu-memory-utilization 0.9", true);
  ASSERT_EQ(none.exit_code, 0) << none.err;
  const nlohmann::json j = nlohmann::json::parse(none.out);
  EXPECT_NE(j.dump().find("Qwen3-0.6B"), std::string::npos);
  EXPECT_EQ(j.dump().find("Llama-3.1-8B"), std::string::npos);
  EXPECT_NE(j.at("notes").dump().find("names no model: vLLM then serves its default model, Qwen/Qwen3-0.6B"), std::string::npos)
      << j.at("notes").dump();
  // Qwen3-0.6B (its config.json): 28 layers x 8 KV heads x 128 x 2 (K and V) x 2 B = 112 KiB a token.
  EXPECT_EQ(j.at("kv_bytes_per_token").get<int64_t>(), 28 * 8 * 128 * 2 * 2);
  // --model in place of the positional keeps working, and then no default is named.
  const auto flag = Pasted("vllm serve --model meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192", true);
  ASSERT_EQ(flag.exit_code, 0) << flag.err;
  EXPECT_EQ(flag.out.find("names no model"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(flag.out).at("kv_bytes_per_token").get<int64_t>(), 32 * 8 * 128 * 2 * 2);
  // The positional and --model naming two models is refused, naming both.
  const auto two = Pasted("vllm serve Qwen/Qwen3-8B --model meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_NE(two.err.find("names two models"), std::string::npos) << two.err;
  // vLLM's parser refuses a served name without a model, and a config file with no model on the line
  // or in the file (vllm/utils/argparse_utils.py); so does kvsim.
  const auto named = Pasted("vllm serve --served-model-name chat --port 8000");
  EXPECT_EQ(named.exit_code, 2);
  EXPECT_NE(named.err.find("--served-model-name but no model; vLLM refuses it"), std::string::npos) << named.err;
  testing::TempDir dir;
  std::ofstream(dir.path() + "/no_model.yaml") << "max-model-len: 4096\n";
  const auto config = Pasted("vllm serve --config " + dir.path() + "/no_model.yaml");
  EXPECT_EQ(config.exit_code, 2);
  EXPECT_NE(config.err.find("no model on the line or in the config file; vLLM refuses it"), std::string::npos) << config.err;
  std::ofstream(dir.path() + "/model.yaml") << "model: Qwen/Qwen3-8B\nmax-model-len: 4096\n";
  const auto in_file = Pasted("vllm serve --config " + dir.path() + "/model.yaml", true);
  ASSERT_EQ(in_file.exit_code, 0) << in_file.err;
  EXPECT_EQ(in_file.out.find("names no model"), std::string::npos);
  // A positional model on the line wins over the file's model: key, as vllm serve's model_tag does.
  const auto both = Pasted("vllm serve meta-llama/Llama-3.1-8B-Instruct --config " + dir.path() + "/model.yaml", true);
  ASSERT_EQ(both.exit_code, 0) << both.err;
  EXPECT_NE(both.out.find("model Qwen/Qwen3-8B is replaced by the line's positional model meta-llama/Llama-3.1-8B-Instruct"),
            std::string::npos) << both.out;
  EXPECT_EQ(nlohmann::json::parse(both.out).at("kv_bytes_per_token").get<int64_t>(), 32 * 8 * 128 * 2 * 2);
  // SGLang's launch_server requires --model-path.
  const auto sglang = Pasted("python3 -m sglang.launch_server --tp 1");
  EXPECT_EQ(sglang.exit_code, 2);
  EXPECT_NE(sglang.err.find("SGLang requires --model-path"), std::string::npos) << sglang.err;
}

// VLLM_USE_V2_MODEL_RUNNER picks the GPU model runner (vllm/envs.py: unset uses the config's default,
// read as bool(int(value))), whose profile differs: V1's sampler keeps fp32 logits, probabilities and
// log-probabilities (15 B a logit), V2's one fp32 copy beside the model-dtype logits (6 B)
// (kvcache/budget/model_runner.h). Llama-3.1-8B, 256 sequences, a 128,256-entry vocabulary (a
// multiple of 64): the sampler peaks differ by 256 x 128,256 x 9 B = 0.2752 GiB.
TEST(PastedLineFieldsTest, TheV2ModelRunnerVariablePicksTheRunner) {
  auto sampler_gib = [](const std::string& value) {
    const auto r = Pasted("VLLM_USE_V2_MODEL_RUNNER=" + value +
                              " vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 --max-num-seqs 256",
                          true);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("not modelled"), std::string::npos) << r.err;
    return r.exit_code == 0 ? nlohmann::json::parse(r.out).at("stages").at(0).at("sampler_peak_gib").get<double>() : 0.0;
  };
  EXPECT_NEAR(sampler_gib("0") - sampler_gib("1"), 256.0 * 128256 * 9 / (1 << 30), 2e-4);
  const auto word = Pasted("VLLM_USE_V2_MODEL_RUNNER=true vllm serve meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(word.exit_code, 2);
  EXPECT_NE(word.err.find("reads VLLM_USE_V2_MODEL_RUNNER as an integer"), std::string::npos) << word.err;
}

// The environment of a pasted line is classified as vllm/envs.py and the libraries describe each
// variable: process plumbing has no effect; kernel choices allocate nothing kvsim counts; what changes
// memory is said with why; a variable kvsim has no entry for is named as such, never called a memory change.
TEST(PastedLineFieldsTest, EnvironmentVariablesAreClassifiedAsTheyAct) {
  const auto r = Pasted("MASTER_PORT=29500 TP_SOCKET_IFNAME=eth0 VLLM_USE_DEEP_GEMM=1 VLLM_DISABLE_COMPILE_CACHE=1 HEAD_IP=10.0.0.1 "
                        "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string all = r.out + r.err;
  EXPECT_NE(all.find("accepted, no effect on memory: MASTER_PORT, TP_SOCKET_IFNAME"), std::string::npos) << all;
  EXPECT_NE(all.find("kernel choices, no effect on memory; kvsim's step times do not tell kernels apart: VLLM_USE_DEEP_GEMM"),
            std::string::npos) << all;
  EXPECT_NE(all.find("not modelled (they change memory): VLLM_DISABLE_COMPILE_CACHE (every start compiles without the cache"),
            std::string::npos) << all;
  EXPECT_NE(all.find("kvsim has no entry for, so not modelled (they may change memory or time): HEAD_IP"), std::string::npos) << all;
  EXPECT_EQ(all.find("change memory): HEAD_IP"), std::string::npos) << all;
}

// vLLM's FlexibleArgumentParser.load_config_file (vllm/utils/argparse_utils.py) turns each YAML value
// into argv: true -> --KEY; false -> --no-KEY where the parser has it (BooleanOptionalAction, PR #51573),
// else nothing; a list -> --KEY and str() of each item; any other scalar -> --KEY and str(value). A
// switch followed by a word ("1", "true", "True") leaves that word to argparse, which refuses it.
TEST(PastedLineFieldsTest, ConfigYamlValuesAreTheArgvVllmMakesOfThem) {
  testing::TempDir dir;
  auto run = [&](const std::string& name, const std::string& yaml) {
    const std::string path = dir.path() + "/" + name + ".yaml";
    std::ofstream(path) << yaml;
    return RunCli({"capacity", "--gpu", "h100", "--json", "-", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct",
                   "--max-model-len", "8192", "--config", path});
  };
  auto graphs = [](const testing::CommandResult& r) { return nlohmann::json::parse(r.out).contains("cuda_graph_gib"); };
  const auto on = run("on", "enforce-eager: true\n");
  ASSERT_EQ(on.exit_code, 0) << on.err;
  EXPECT_FALSE(graphs(on));  // eager: no graphs captured
  const auto off = run("off", "enforce-eager: false\n");
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_TRUE(graphs(off));
  for (const auto& [name, yaml, word] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"int1", "enforce-eager: 1\n", "1"}, {"int0", "enforce-eager: 0\n", "0"},
           {"string", "enforce-eager: \"true\"\n", "true"}, {"list", "enforce-eager: [true]\n", "True"},
           {"optional", "enable-prefix-caching: 1\n", "1"}}) {
    const auto r = run(name, yaml);
    EXPECT_EQ(r.exit_code, 2) << name << ": " << r.out;
    EXPECT_NE(r.err.find(name + ".yaml:1: key '"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("argparse refuses the stray '" + word + "'"), std::string::npos) << r.err;
  }
  const auto null = run("null", "enforce-eager: null\n");
  EXPECT_EQ(null.exit_code, 2);
  EXPECT_NE(null.err.find("has no value (vLLM would pass the text 'None'"), std::string::npos) << null.err;
  // A BooleanOptionalAction switch set false is its --no- form; a key whose --no- form the parser lacks
  // as written (underscores, a value flag) is dropped by vLLM, and the answer says so.
  const auto cache_off = run("cache_off", "enable-prefix-caching: false\n");
  ASSERT_EQ(cache_off.exit_code, 0) << cache_off.err;
  EXPECT_FALSE(nlohmann::json::parse(cache_off.out).at("settings").at("enable_prefix_caching").get<bool>());
  const auto underscored = run("underscored", "enable_prefix_caching: false\n");
  ASSERT_EQ(underscored.exit_code, 0) << underscored.err;
  EXPECT_TRUE(nlohmann::json::parse(underscored.out).at("settings").at("enable_prefix_caching").get<bool>());
  EXPECT_NE(underscored.out.find("enable_prefix_caching is false, which vLLM's config reader drops"), std::string::npos)
      << underscored.out;
  const auto two = run("two", "max-model-len: [1024, 2048]\n");
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_NE(two.err.find("'2048' is left over"), std::string::npos) << two.err;
}

// Values vLLM's parser refuses are refused: a decimal with a binary suffix (human_readable_int in
// vllm/utils/argparse_utils.py: 25.6k is 25,600, 1.5K is an error) and a block size outside
// CacheConfig's BlockSize (vllm/config/cache.py: 1, 8, 16, 32, 64, 128, 256).
TEST(PastedLineFieldsTest, ValuesVllmsParserRefusesAreRefused) {
  const auto binary = Pasted("vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 1.5K");
  EXPECT_EQ(binary.exit_code, 2);
  EXPECT_NE(binary.err.find("a decimal with a binary suffix (K), which vLLM refuses; did you mean 1.5k?"), std::string::npos)
      << binary.err;
  const auto decimal = Pasted("vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 25.6k", true);
  ASSERT_EQ(decimal.exit_code, 0) << decimal.err;
  EXPECT_EQ(nlohmann::json::parse(decimal.out).at("settings").at("max_model_len").get<int64_t>(), 25600);
  const auto block = Pasted("vllm serve meta-llama/Llama-3.1-8B-Instruct --block-size=7");
  EXPECT_EQ(block.exit_code, 2);
  EXPECT_NE(block.err.find("--block-size 7: vLLM's --block-size is one of 1, 8, 16, 32, 64, 128, 256"), std::string::npos)
      << block.err;
  EXPECT_EQ(Pasted("vllm serve meta-llama/Llama-3.1-8B-Instruct --block-size 32").exit_code, 0);
}

// --kv-cache-memory-bytes is a human_readable_int to vLLM (EngineArgs, with max_model_len): 8GiB and 1e10 were
// planned (kvsim's own --kv-cache-memory takes both) where vLLM's argparse refuses them. 8g is 8 x 10^9 B =
// 7.4506 GiB, 8G is 8 x 2^30 B = 8 GiB.
TEST(PastedLineFieldsTest, KvCacheMemoryBytesIsReadAsVllmReadsIt) {
  const std::string serve = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 4096 --kv-cache-memory-bytes ";
  for (const char* refused : {"8GiB", "1e10", "8GB", "1.5G"}) {
    const auto r = Pasted(serve + refused);
    EXPECT_EQ(r.exit_code, 2) << refused;
    EXPECT_NE(r.err.find(std::string("--kv-cache-memory-bytes: '") + refused + "'"), std::string::npos) << r.err;
  }
  auto kv_gib = [&](const std::string& value) {
    const auto r = Pasted(serve + value, true);
    EXPECT_EQ(r.exit_code, 0) << value << ": " << r.err;
    return r.exit_code == 0 ? nlohmann::json::parse(r.out).at("kv_cache_gib").get<double>() : 0.0;
  };
  EXPECT_NEAR(kv_gib("8g"), 8e9 / (1u << 30), 1e-4);
  EXPECT_NEAR(kv_gib("8G"), 8.0, 1e-4);
  EXPECT_NEAR(kv_gib("8589934592"), 8.0, 1e-4);
}

// max_num_seqs, num_gpu_blocks_override and the parallel sizes are argparse type=int in vLLM (only max_model_len,
// max_num_batched_tokens and kv_cache_memory_bytes are human_readable_int): --max-num-seqs 1k was planned as 1000
// and 256.0 as 256 where int() refuses both; int() reads 1_024 as 1024 and ' 8 ' as 8, which kvsim refused.
TEST(PastedLineFieldsTest, IntegerFlagsAreReadAsPythonsIntReadsThem) {
  const std::string serve = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 4096 ";
  for (const char* refused : {"--max-num-seqs 1k", "--max-num-seqs 256.0", "--num-gpu-blocks-override 2K", "-tp 2e0"}) {
    const auto r = Pasted(serve + refused);
    EXPECT_EQ(r.exit_code, 2) << refused;
    EXPECT_NE(r.err.find("is not an integer to vLLM, whose argparse reads it with int()"), std::string::npos) << r.err;
  }
  auto seqs = [&](const std::string& value) {
    const auto r = Pasted(serve + "--max-num-seqs " + value, true);
    EXPECT_EQ(r.exit_code, 0) << value << ": " << r.err;
    return r.exit_code == 0 ? nlohmann::json::parse(r.out).at("settings").at("max_num_seqs").get<int64_t>() : 0;
  };
  EXPECT_EQ(seqs("1_024"), 1024);
  EXPECT_EQ(seqs("' 8 '"), 8);
  EXPECT_EQ(seqs("+64"), 64);
}

// --gpu-memory-utilization is argparse type=float: float() reads ' 0.9 ' and 0.9_5 (0.95), which were refused.
TEST(PastedLineFieldsTest, FloatFlagsAreReadAsPythonsFloatReadsThem) {
  auto utilization = [](const std::string& value) {
    const auto r = Pasted("vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 4096 --gpu-memory-utilization " + value, true);
    EXPECT_EQ(r.exit_code, 0) << value << ": " << r.err;
    return r.exit_code == 0 ? nlohmann::json::parse(r.out).at("settings").at("gpu_memory_utilization").get<double>() : 0.0;
  };
  EXPECT_DOUBLE_EQ(utilization("' 0.9 '"), 0.9);
  EXPECT_DOUBLE_EQ(utilization("0.9_5"), 0.95);
  EXPECT_EQ(Pasted("vllm serve meta-llama/Llama-3.1-8B-Instruct --gpu-memory-utilization 0._9").exit_code, 2);
}

// vLLM's parser takes a list key one item at a time with a trailing '+' (`-cc.cudagraph_capture_sizes+ 1`,
// items split at commas and appended; vllm/utils/argparse_utils.py); it was refused as an unknown key.
// Sizes [1, 2, 4] under FULL_AND_PIECEWISE: three piecewise and three full graphs.
TEST(PastedLineFieldsTest, DottedListAppendsAreOneList) {
  const auto r = Pasted("vllm serve meta-llama/Llama-3.1-8B-Instruct -cc.cudagraph_capture_sizes+ 1 "
                        "-cc.cudagraph_capture_sizes+=2,4", true);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).at("cuda_graphs_captured").get<int64_t>(), 6);
  const auto bad = Pasted("vllm serve meta-llama/Llama-3.1-8B-Instruct -cc.cudagraph_capture_sizes+ 1,x");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("cudagraph_capture_sizes holds '\"x\"'"), std::string::npos) << bad.err;
}

// Two JSON values that were answered as something else: a --kv-transfer-config that is not an object
// (vLLM builds KVTransferConfig from an object) was "accepted but not modelled", and an empty
// cudagraph_capture_sizes was planned as vLLM's default pattern of sizes.
TEST(PastedLineFieldsTest, JsonValuesOfTheWrongShapeAreRefused) {
  const auto text = Pasted(R"(vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-transfer-config '"NixlConnector"')");
  EXPECT_EQ(text.exit_code, 2);
  EXPECT_NE(text.err.find("--kv-transfer-config: '\"NixlConnector\"' is not a JSON object"), std::string::npos) << text.err;
  const auto empty = Pasted(R"(vllm serve meta-llama/Llama-3.1-8B-Instruct -cc '{"cudagraph_capture_sizes": []}')");
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("cudagraph_capture_sizes is an empty list"), std::string::npos) << empty.err;
}

// A pasted line is split as a shell splits it: outside quotes a backslash keeps the next character
// ({\"k\":3} is {"k":3}) and a backslash-newline (or CRLF) joins lines; a second positional word is
// refused as argparse refuses it, not read as a second model.
TEST(PastedLineFieldsTest, ShellQuotingIsReadAsAShellReadsIt) {
  const auto escaped = Pasted(R"(vllm serve meta-llama/Llama-3.1-8B-Instruct --speculative-config {\"method\":\"ngram\",\"num_speculative_tokens\":3,\"prompt_lookup_max\":4})",
                              true);
  ASSERT_EQ(escaped.exit_code, 0) << escaped.err;
  const auto quoted = Pasted(R"(vllm serve meta-llama/Llama-3.1-8B-Instruct --speculative-config '{"method":"ngram","num_speculative_tokens":3,"prompt_lookup_max":4}')",
                             true);
  ASSERT_EQ(quoted.exit_code, 0) << quoted.err;
  EXPECT_EQ(escaped.out, quoted.out);  // the same JSON word, so the same plan
  const auto crlf = Pasted("vllm serve meta-llama/Llama-3.1-8B-Instruct \\\r\n  --max-model-len 4096\r\n", true);
  ASSERT_EQ(crlf.exit_code, 0) << crlf.err;
  EXPECT_EQ(nlohmann::json::parse(crlf.out).at("settings").at("max_model_len").get<int64_t>(), 4096);
  const auto tabs = Pasted("vllm serve\tmeta-llama/Llama-3.1-8B-Instruct\t--max-model-len\t4096", true);
  ASSERT_EQ(tabs.exit_code, 0) << tabs.err;
  const auto stray = Pasted("vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 4096 extra");
  EXPECT_EQ(stray.exit_code, 2);
  EXPECT_NE(stray.err.find("'extra': vllm serve takes one positional argument, the model"), std::string::npos) << stray.err;
}

// PyYAML reads 0x1000, 4_096 and 010 (octal) as integers, and vLLM's config reader passes str() of them:
// 4096, 4096 and 8. kvsim passed the text on, refusing 4_096 and (once hexadecimal was refused as typed)
// 0x1000; quoted, the text is a string and stays as written.
TEST(PastedLineFieldsTest, ConfigYamlIntegersAreTheDecimalsPyYamlMakesOfThem) {
  testing::TempDir dir;
  auto run = [&](const std::string& name, const std::string& yaml) {
    const std::string path = dir.path() + "/" + name + ".yaml";
    std::ofstream(path) << yaml;
    return RunCli({"capacity", "--gpu", "h100", "--json", "-", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct",
                   "--config", path});
  };
  for (const auto& [name, yaml] : std::vector<std::pair<std::string, std::string>>{
           {"hex", "max-model-len: 0x1000\nmax-num-seqs: 010\n"}, {"underscore", "max-model-len: 4_096\nmax-num-seqs: 0b1000\n"}}) {
    const auto r = run(name, yaml);
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    const nlohmann::json settings = nlohmann::json::parse(r.out).at("settings");
    EXPECT_EQ(settings.at("max_model_len").get<int64_t>(), 4096) << name;
    EXPECT_EQ(settings.at("max_num_seqs").get<int64_t>(), 8) << name;
  }
  const auto quoted = run("quoted", "max-model-len: '0x1000'\n");
  EXPECT_EQ(quoted.exit_code, 2);
  EXPECT_NE(quoted.err.find("'0x1000' is not a number"), std::string::npos) << quoted.err;
}

// VLLM_PP_LAYER_PARTITION=8,24 with -pp 2 (get_pp_indices, vllm/distributed/utils.py) gives stage 0 the
// layers [0, 8) and stage 1 [8, 32); it was noted as a variable kvsim has no entry for and planned with the
// even split (16, 16). Llama-3.1-8B by hand: a decoder layer holds 218,112,000 parameters (q and o 4096^2
// each, k and v 4096 x 1024 each, gate, up and down 4096 x 14336 each, two norms of 4096), the embedding
// and the LM head 128,256 x 4096 = 525,336,576 each, the final norm 4096. In bfloat16 stage 0 holds
// (8 x 218,112,000 + 525,336,576) x 2 B = 4.2287 GiB, stage 1 (24 x 218,112,000 + 4096 + 525,336,576) x 2 B
// = 10.7289 GiB, each beside a RoPE cache of 131,072 positions x 128 x 2 B = 0.03125 GiB. What vLLM
// refuses is refused: 31 layers for a model of 32, two stages for three, an empty value.
TEST(PastedLineFieldsTest, ThePipelineLayerPartitionSplitsTheStages) {
  const std::string serve = " vllm serve meta-llama/Llama-3.1-8B-Instruct -pp ";
  const auto r = RunCli({"capacity", "--gpu", "h100", "--json", "-", "--vllm-cmd", "VLLM_PP_LAYER_PARTITION=8,24" + serve + "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& stages = j.at("stages");
  ASSERT_EQ(stages.size(), 2u);
  EXPECT_EQ(stages[0].at("first_layer").get<int64_t>(), 0);
  EXPECT_EQ(stages[0].at("end_layer").get<int64_t>(), 8);
  EXPECT_EQ(stages[1].at("first_layer").get<int64_t>(), 8);
  EXPECT_EQ(stages[1].at("end_layer").get<int64_t>(), 32);
  EXPECT_NEAR(stages[0].at("weights_gib").get<double>(), 4.2287 + 0.03125, 0.006);
  EXPECT_NEAR(stages[1].at("weights_gib").get<double>(), 10.7289 + 0.03125, 0.006);
  EXPECT_EQ(j.at("notes").dump().find("VLLM_PP_LAYER_PARTITION"), std::string::npos) << j.at("notes").dump();
  auto refused = [&](const std::string& line, const std::string& why) {
    const auto bad = RunCli({"capacity", "--gpu", "h100", "--vllm-cmd", line});
    EXPECT_EQ(bad.exit_code, 2) << line;
    EXPECT_NE(bad.err.find(why), std::string::npos) << bad.err;
  };
  refused("VLLM_PP_LAYER_PARTITION=15,16" + serve + "2", "15,16 holds 31 layers, and the model has 32; vLLM refuses it");
  refused("VLLM_PP_LAYER_PARTITION=8,24" + serve + "3", "8,24 gives 2 stages for --pipeline-parallel-size 3");
  refused("VLLM_PP_LAYER_PARTITION=" + serve + "2", "Invalid partition string");
}

}  // namespace
}  // namespace kvsim
