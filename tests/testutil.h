// Helpers shared by the kvsim tests.
#ifndef KVSIM_TESTS_TESTUTIL_H_
#define KVSIM_TESTS_TESTUTIL_H_

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "kvcache/model_config_parser.h"
#include "kvcache/model_spec.h"
#include "sim/cli/commands.h"

namespace kvsim::testing {

inline std::string SharedPath(const std::string& rel) { return std::string(KVSIM_SHARED_DIR) + "/" + rel; }

// Parses a config.json written inline in a test.
inline ModelSpec SpecFromJson(const std::string& text) {
  return ParseModelConfig(nlohmann::json::parse(text), "inline-config.json");
}

inline ModelSpec SharedModel(const std::string& file) { return LoadModelConfigFile(SharedPath("models/" + file)); }

// A Llama-style dense config: gated MLP, RMSNorm, untied embeddings unless told otherwise.
inline std::string LlamaConfig(int hidden, int inter, int layers, int heads, int kv_heads, int vocab,
                               bool tied = false, int max_pos = 4096) {
  std::ostringstream s;
  s << R"({"architectures":["LlamaForCausalLM"],"model_type":"llama","hidden_size":)" << hidden
    << R"(,"intermediate_size":)" << inter << R"(,"num_hidden_layers":)" << layers << R"(,"num_attention_heads":)"
    << heads << R"(,"num_key_value_heads":)" << kv_heads << R"(,"vocab_size":)" << vocab
    << R"(,"max_position_embeddings":)" << max_pos << R"(,"tie_word_embeddings":)" << (tied ? "true" : "false")
    << R"(,"torch_dtype":"float16"})";
  return s.str();
}

struct CommandResult {
  int exit_code;
  std::string out;
  std::string err;
};

// Runs `kvsim <args...>` in-process.
inline CommandResult RunCli(std::vector<std::string> args) {
  args.insert(args.begin(), "kvsim");
  std::ostringstream out, err;
  const int code = RunKvsim(args, out, err);
  return {code, out.str(), err.str()};
}

}  // namespace kvsim::testing

#endif  // KVSIM_TESTS_TESTUTIL_H_
