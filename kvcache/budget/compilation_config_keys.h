// The keys of --compilation-config (-cc) checked as vLLM checks them. vLLM's CompilationConfig, and the
// PassConfig and DynamicShapesConfig nested in it, are pydantic dataclasses declared with
// ConfigDict(extra="forbid") (vllm/config/compilation.py), so a key that is not a field stops vLLM at
// start-up; kvsim refuses it the same way, naming the nearest field. Of the fields, the graph-capture
// ones are modelled (serve_settings.cpp reads them); the others steer compilation, fusion and caching,
// which change kernels and start-up time, not memory, and are accepted with a note saying so.
#ifndef KVSIM_KVCACHE_BUDGET_COMPILATION_CONFIG_KEYS_H_
#define KVSIM_KVCACHE_BUDGET_COMPILATION_CONFIG_KEYS_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvsim {

// What the keys of one --compilation-config object are, beyond the modelled graph-capture ones.
struct CompilationKeyReport {
  std::vector<std::string> without_effect;  // fields that move neither memory nor time ("pass_config.enable_sp")
  std::vector<std::string> not_modelled;    // fields that can move memory in a way kvsim does not model, with why
};

// Throws kvsim::Error naming `flag` and the key for a key vLLM refuses (with the nearest field), a
// nested config that is not an object, or a key of an older release that vLLM replaced and that would
// change the graphs (naming its replacement).
CompilationKeyReport CheckCompilationConfigKeys(const nlohmann::json& config, const std::string& flag);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_COMPILATION_CONFIG_KEYS_H_
