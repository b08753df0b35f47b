// The vLLM serve settings beyond the basic budget: --max-model-len auto,
// --num-gpu-blocks-override, --cpu-offload-gb, data and expert parallelism, --disable-sliding-window,
// --speculative-config and the multimodal limits, read from their text (JSON for the config flags,
// as vLLM takes them) into DeploymentConfig.
#ifndef KVSIM_KVCACHE_BUDGET_SERVE_SETTINGS_H_
#define KVSIM_KVCACHE_BUDGET_SERVE_SETTINGS_H_

#include <string>

#include <nlohmann/json.hpp>

#include "kvcache/budget/deployment_settings.h"

namespace kvsim {

// True for vLLM's spellings of "the largest length that fits": auto, -1.
bool IsAutoMaxModelLen(const std::string& text);

// Throws kvsim::Error naming the flag for a value that does not parse.
void ReadServeSettings(const DeploymentOptions& options, DeploymentConfig& config);

// What --hf-overrides and --rope-scaling change in the model config (empty: nothing). Throws
// kvsim::Error naming the flag for JSON that is not an object.
nlohmann::json ConfigOverrides(const DeploymentOptions& options);

// --speculative-config's JSON, checked as speculative_config.h says; empty text: none. Throws
// kvsim::Error naming the flag.
SpeculativeSettings ReadSpeculative(const std::string& text);

// --enable-lora and the LoRAConfig flags, checked as vLLM's LoRAConfig checks them. Throws
// kvsim::Error naming the flag.
LoraSettings ReadLora(const DeploymentOptions& options);

// Loads the draft model a --speculative-config names (preset id or config.json path).
void ResolveDraftModel(DeploymentConfig& config, const std::string& data_dir);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_SERVE_SETTINGS_H_
