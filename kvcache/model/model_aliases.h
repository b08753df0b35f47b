// Hugging Face ids that name an architecture kvsim already ships a preset for: a re-release with the
// same config.json (DeepSeek-R1-0528 is DeepSeek-R1's architecture), or a variant whose config differs
// only by a declared patch (an -FP8 checkpoint adds its quantization_config). The table is a data file,
// data/models/ALIASES.tsv, one row per alias with the source that says the shapes are the same.
#ifndef KVSIM_KVCACHE_MODEL_MODEL_ALIASES_H_
#define KVSIM_KVCACHE_MODEL_MODEL_ALIASES_H_

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvsim {

struct ModelAlias {
  std::string id;            // the alias, as Hugging Face spells it
  std::string preset;        // the preset id it resolves to
  nlohmann::json overrides;  // merged into the preset's config (an object; empty for a pure rename)
  std::string source;        // why the shapes are the same
};

// Every row of `data_dir`/models/ALIASES.tsv (none when the file is absent). Throws kvsim::Error naming
// the file, line and field for a malformed row.
std::vector<ModelAlias> ReadModelAliases(const std::string& data_dir);

// The row whose id equals `id` ignoring case, if any.
std::optional<ModelAlias> FindModelAlias(const std::string& id, const std::string& data_dir);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_MODEL_MODEL_ALIASES_H_
