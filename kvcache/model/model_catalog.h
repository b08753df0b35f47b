// Model presets shipped in data/models/<org>/<name>.json, named by their Hugging Face ids.
#ifndef KVSIM_KVCACHE_MODEL_MODEL_CATALOG_H_
#define KVSIM_KVCACHE_MODEL_MODEL_CATALOG_H_

#include <string>

#include <nlohmann/json.hpp>
#include <vector>

#include "kvcache/model/model_spec.h"

namespace kvsim {

// The data directory: $KVSIM_DATA_DIR if set, else the one the build was configured with.
std::string DataDirectory();

// Preset ids ("meta-llama/Llama-3.1-8B-Instruct", ...) found under `data_dir`/models, sorted.
std::vector<std::string> ListModelPresets(const std::string& data_dir);

// `name_or_path`: a config.json, a directory holding one, a preset id, or an alias of one in
// models/ALIASES.tsv (ids case-insensitive; an alias is its preset's config with the row's patch, then
// `overrides`). Throws kvsim::Error naming the closest presets and aliases when nothing matches.
// `option` names where the model was given, in errors ("--model", or the draft of --speculative-config)
// and `pass_as` how to give a fetched config there ("--model ./config.json").
ModelSpec ResolveModel(const std::string& name_or_path, const std::string& data_dir, const std::string& option = "--model",
                       const std::string& pass_as = "--model ./config.json",
                       const nlohmann::json& overrides = nlohmann::json::object());


}  // namespace kvsim

#endif  // KVSIM_KVCACHE_MODEL_MODEL_CATALOG_H_
