// Preset aliases: Hugging Face ids whose config.json is a shipped preset's with at most a stated
// change -- an -FP8 twin that adds the quantization_config its card describes, an Instruct twin of a
// Thinking model with the same shapes. They live in data/models/ALIASES.tsv, one row each, with the
// public statement of the equivalence, so a variant is planned without a copy of its whole config.
#ifndef KVSIM_KVCACHE_MODEL_MODEL_ALIASES_H_
#define KVSIM_KVCACHE_MODEL_MODEL_ALIASES_H_

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvsim {

struct ModelAlias {
  std::string id;          // the Hugging Face id the alias answers to
  std::string preset;      // the shipped preset whose config.json it reuses
  nlohmann::json patch;    // a JSON merge patch (RFC 7396) applied to that config.json; {} for none
  std::string source;      // where the equivalence is published (card, config, release note)
};

// Rows of `data_dir`/models/ALIASES.tsv (tab-separated: alias, preset, patch, source; '#' starts a
// comment line); none when the file is absent. Throws kvsim::Error naming the file, line and field of
// a malformed row, a patch that is not a JSON object, or an alias listed twice.
std::vector<ModelAlias> LoadModelAliases(const std::string& data_dir);

// The alias whose id equals `id` ignoring case, if any.
std::optional<ModelAlias> FindModelAlias(const std::vector<ModelAlias>& aliases, const std::string& id);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_MODEL_MODEL_ALIASES_H_
