// Reads a Hugging Face config.json into a ModelSpec: unwraps multimodal text_configs (llava,
// llama4, qwen3_vl*, mistral3, gemma3, kimi_vl), reads the common shape fields under their usual
// names, and leaves what each family implies to model_families.h (which lists the families).
#ifndef KVSIM_KVCACHE_MODEL_MODEL_CONFIG_PARSER_H_
#define KVSIM_KVCACHE_MODEL_MODEL_CONFIG_PARSER_H_

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "kvcache/model/model_spec.h"

namespace kvsim {

// `source` names the file in error messages. Throws kvsim::Error (one line: source, field, problem).
ModelSpec ParseModelConfig(const nlohmann::json& config, const std::string& source);

// Reads and parses a config.json file, or `<dir>/config.json` when `path` is a directory.
// Throws kvsim::Error for a missing file, malformed JSON (with line and column) or bad fields.
ModelSpec LoadModelConfigFile(const std::string& path);
// The same with `overrides` merged into the config first, key by key and into nested objects, as
// vLLM applies --hf-overrides to the Hugging Face config before it derives anything from it.
ModelSpec LoadModelConfigFile(const std::string& path, const nlohmann::json& overrides);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_MODEL_MODEL_CONFIG_PARSER_H_
