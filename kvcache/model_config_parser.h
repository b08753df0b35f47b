// Reads a Hugging Face config.json into a ModelSpec.
//
// Supported families (by model_type): llama (Llama 2/3/3.1/3.3, CodeLlama, Yi), llama4, mistral,
// mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, gemma, gemma2, gemma3, phi (Phi-2), phi3 (Phi-3/4),
// gpt_oss, deepseek_v2, deepseek_v3, deepseek_v32, opt, and multimodal wrappers that carry a
// text_config (llava, llama4, qwen3_vl*, mistral3, gemma3). Anything else goes through a generic
// decoder reading the usual field names; if a needed field is missing the error lists every one.
#ifndef KVSIM_KVCACHE_MODEL_CONFIG_PARSER_H_
#define KVSIM_KVCACHE_MODEL_CONFIG_PARSER_H_

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "kvcache/model_spec.h"

namespace kvsim {

// `source` names the file in error messages. Throws kvsim::Error (one line: source, field, problem).
ModelSpec ParseModelConfig(const nlohmann::json& config, const std::string& source);

// Reads and parses a config.json file, or `<dir>/config.json` when `path` is a directory.
// Throws kvsim::Error for a missing file, malformed JSON (with line and column) or bad fields.
ModelSpec LoadModelConfigFile(const std::string& path);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_MODEL_CONFIG_PARSER_H_
