// Parts of a pasted `vllm serve` line that were accepted and then dropped: each is now modelled,
// accepted with a note that it moves no memory, or refused with the reason, as vLLM reads it.
#include <gtest/gtest.h>

#include <string>
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

}  // namespace
}  // namespace kvsim
