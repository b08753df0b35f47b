#include "kvcache/model/model_catalog.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "kvcache/base/json_file.h"
#include "kvcache/model/model_aliases.h"
#include "kvcache/model/model_config_parser.h"

namespace kvsim {
namespace fs = std::filesystem;
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

std::string DataDirectory() {
  if (const char* env = std::getenv("KVSIM_DATA_DIR"); env && *env) return env;
  return KVSIM_DEFAULT_DATA_DIR;
}

std::vector<std::string> ListModelPresets(const std::string& data_dir) {
  std::vector<std::string> ids;
  const fs::path root = fs::path(data_dir) / "models";
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file() || it->path().extension() != ".json") continue;
    // The iterator's paths start with `root`, so the relative id is a lexical suffix; fs::relative
    // would resolve both paths on disk for every file (most of `kvsim capacity`'s model look-up).
    fs::path rel = it->path().lexically_relative(root);
    rel.replace_extension();
    ids.push_back(rel.generic_string());
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

ModelSpec ResolveModel(const std::string& name_or_path, const std::string& data_dir, const std::string& option,
                       const std::string& pass_as, const nlohmann::json& overrides) {
  std::error_code ec;
  const fs::path as_path(name_or_path);
  if (fs::exists(as_path, ec)) return LoadModelConfigFile(name_or_path, overrides);
  // A preset named exactly as its file is read without listing every preset.
  const fs::path exact = fs::path(data_dir) / "models" / (name_or_path + ".json");
  const bool plain_id = !name_or_path.empty() && !as_path.is_absolute() &&
                        std::none_of(as_path.begin(), as_path.end(), [](const fs::path& part) {
                          return part == "." || part == "..";
                        });
  if (plain_id && fs::is_regular_file(exact, ec)) {
    ModelSpec spec = LoadModelConfigFile(exact.string(), overrides);
    spec.name = name_or_path;
    return spec;
  }
  const auto presets = ListModelPresets(data_dir);
  for (const auto& id : presets) {
    if (Lower(id) == Lower(name_or_path)) {
      ModelSpec spec = LoadModelConfigFile((fs::path(data_dir) / "models" / (id + ".json")).string(), overrides);
      spec.name = id;
      return spec;
    }
  }
  // A variant whose config is a preset's with a stated change (ALIASES.tsv): the preset's file, the
  // alias's patch, then the user's overrides, in that order, as if the variant's own file were read.
  const std::vector<ModelAlias> aliases = LoadModelAliases(data_dir);
  if (const auto alias = FindModelAlias(aliases, name_or_path)) {
    const fs::path base = fs::path(data_dir) / "models" / (alias->preset + ".json");
    if (!fs::is_regular_file(base, ec))
      throw Error(option + ": '" + name_or_path + "' is an alias of preset '" + alias->preset +
                  "', which is not in " + (fs::path(data_dir) / "models").string());
    nlohmann::json root = ReadJsonFile(base.string(), "the model config", InfinityTokens::kReadAsLargestDouble);
    root.merge_patch(alias->patch);
    if (!overrides.empty()) root.merge_patch(overrides);
    ModelSpec spec = ParseModelConfig(root, base.string() + " (as " + alias->id + ")" +
                                                (overrides.empty() ? "" : " with --hf-overrides"));
    spec.name = alias->id;
    spec.notes.push_back("planned with preset " + alias->preset + " (data/models/ALIASES.tsv: " + alias->source + ")");
    return spec;
  }
  std::vector<std::string> candidates = presets;
  for (const ModelAlias& a : aliases) candidates.push_back(a.id);
  std::string hint;
  for (const auto& m : ClosestMatches(name_or_path, candidates)) hint += (hint.empty() ? "" : ", ") + m;
  // Say how to get the config of a Hugging Face id kvsim has no preset for.
  // org/name: one slash between two non-empty parts, not a path (./, ~/, /abs, a .json file).
  const size_t slash = name_or_path.find('/');
  const bool looks_like_id = slash != std::string::npos && slash > 0 && slash + 1 < name_or_path.size() &&
                             name_or_path.find('/', slash + 1) == std::string::npos && name_or_path[0] != '.' &&
                             name_or_path[0] != '~' && name_or_path.find(".json") == std::string::npos;
  const std::string fetch = looks_like_id
      ? "; fetch its config with: curl -LO https://huggingface.co/" + name_or_path +
            "/resolve/main/config.json (gated models: -H \"Authorization: Bearer $HF_TOKEN\") and pass " + pass_as
      : std::string();
  throw Error(option + ": '" + name_or_path + "' is neither a config.json path nor a preset" +
              (hint.empty() ? std::string() : "; closest presets: " + hint) + " (kvsim models lists them)" + fetch);
}

}  // namespace kvsim
