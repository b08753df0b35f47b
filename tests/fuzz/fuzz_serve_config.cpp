// libFuzzer target: a `vllm serve --config FILE.yaml` file's text, read as vLLM reads it
// (cli/yaml_config.h), then its flags translated as a pasted server command line would be. Every
// failure must be a kvsim::Error naming the file; any other exception (a YAML parser exception that
// escaped, a JSON type error) or a crash is a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/vllm_command_line.h"
#include "cli/yaml_config.h"
#include "kvcache/base/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const kvsim::ServeConfigFile file = kvsim::ParseServeConfigYaml(text, "fuzz.yaml");
    std::vector<std::string> tokens = {"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"};
    for (const kvsim::ConfigToken& t : file.tokens) tokens.push_back(t.text);
    (void)kvsim::TranslateServeCommand(tokens);
  } catch (const kvsim::Error&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "untranslated exception for a fuzzed config file: %s\n", e.what());
    std::abort();
  }
  return 0;
}
