#include "kvcache/model/model_catalog.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string_view>
#include <utility>

#include "kvcache/base/check.h"
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

namespace {

// The preset or alias named `id` (case-insensitive), or nothing.
std::optional<ModelSpec> FindPresetOrAlias(const std::string& id, const std::string& data_dir, const std::string& option,
                                           const std::vector<std::string>& presets,
                                           const std::vector<ModelAlias>& aliases, const nlohmann::json& overrides) {
  std::error_code ec;
  for (const auto& preset : presets) {
    if (Lower(preset) == Lower(id)) {
      ModelSpec spec = LoadModelConfigFile((fs::path(data_dir) / "models" / (preset + ".json")).string(), overrides);
      spec.name = preset;
      return spec;
    }
  }
  // A variant whose config is a preset's with a stated change (ALIASES.tsv): the preset's file, the
  // alias's patch, then the user's overrides, in that order, as if the variant's own file were read.
  const auto alias = FindModelAlias(aliases, id);
  if (!alias) return std::nullopt;
  const fs::path base = fs::path(data_dir) / "models" / (alias->preset + ".json");
  if (!fs::is_regular_file(base, ec))
    throw Error(option + ": '" + id + "' is an alias of preset '" + alias->preset + "', which is not in " +
                (fs::path(data_dir) / "models").string());
  nlohmann::json root = ReadJsonFile(base.string(), "the model config", InfinityTokens::kReadAsLargestDouble);
  root.merge_patch(alias->patch);
  if (!overrides.empty()) root.merge_patch(overrides);
  ModelSpec spec = ParseModelConfig(root, base.string() + " (as " + alias->id + ")" +
                                              (overrides.empty() ? "" : " with --hf-overrides"));
  spec.name = alias->id;
  spec.notes.push_back("planned with preset " + alias->preset + " (data/models/ALIASES.tsv: " + alias->source + ")");
  return spec;
}

// A local checkpoint path that is not on this machine, as pasted serve lines give them, named after
// the repository it holds: the Hugging Face cache's models--ORG--NAME folder (its snapshots/REV
// below it), else the path's last two parts as ORG/NAME, else its last part as the NAME of exactly
// one preset or alias. Empty when the path names none; throws when its last part fits several.
std::string PresetNamedByPath(const fs::path& path, const std::vector<std::string>& ids, const std::string& option) {
  std::vector<std::string> parts;
  for (const fs::path& part : path)
    if (!part.empty() && part != "/" && part != "." && part != "..") parts.push_back(part.string());
  const auto known = [&](const std::string& id) {
    return std::any_of(ids.begin(), ids.end(), [&](const std::string& k) { return Lower(k) == Lower(id); });
  };
  for (const std::string& part : parts) {
    const std::string prefix = "models--";
    const size_t sep = part.find("--", prefix.size());
    if (part.rfind(prefix, 0) == 0 && sep != std::string::npos && sep + 2 < part.size()) {
      const std::string id = part.substr(prefix.size(), sep - prefix.size()) + "/" + part.substr(sep + 2);
      if (known(id)) return id;
    }
  }
  if (parts.empty()) return {};
  if (parts.size() >= 2 && known(parts[parts.size() - 2] + "/" + parts.back())) return parts[parts.size() - 2] + "/" + parts.back();
  std::vector<std::string> named;
  for (const std::string& id : ids) {
    const size_t slash = id.rfind('/');
    if (Lower(id.substr(slash == std::string::npos ? 0 : slash + 1)) == Lower(parts.back())) named.push_back(id);
  }
  if (named.size() > 1)
    throw Error(option + ": '" + path.string() + "' is not on this machine, and its name '" + parts.back() +
                "' is that of several presets (" + Join(named, ", ") + "): give the one it holds");
  return named.empty() ? std::string() : named.front();
}

// A path rather than a Hugging Face id: absolute, from ~ or a dot folder, or with more than one '/'.
bool LooksLikeLocalPath(const std::string& s) {
  if (s.empty()) return false;
  if (s[0] == '/' || s[0] == '~' || s.rfind("./", 0) == 0 || s.rfind("../", 0) == 0) return true;
  const size_t slash = s.find('/');
  return slash != std::string::npos && s.find('/', slash + 1) != std::string::npos &&
         s.find_first_not_of('/', s.find('/', slash + 1)) != std::string::npos;
}

// A quantized release named as its base model plus a format suffix (Qwen2.5-72B-Instruct-AWQ), the
// way quantizers name them: the base preset it strips to, and the --quantization value that plans
// that format ("" where no value does). For the look-up error's hint only: the release's own
// quantization_config (group size, which modules stay 16-bit) is what vLLM plans.
struct QuantizedRelease {
  std::string base, quantization;
};

std::optional<QuantizedRelease> QuantizedReleaseOf(const std::string& name, const std::vector<std::string>& ids) {
  static constexpr std::pair<const char*, const char*> kSuffixes[] = {
      {"-awq-int4", "awq"}, {"-awq", "awq"},   {"-gptq-int4", "gptq"}, {"-gptq-int8", "gptq"}, {"-gptq", "gptq"},
      {"-fp8-dynamic", "fp8"}, {"-fp8", "fp8"}, {"-mxfp4", "mxfp4"},   {"-bnb-4bit", "bitsandbytes"},
      {"-w4a16", "int4"}, {"-w8a8", "int8"},   {"-int4", "int4"},      {"-int8", "int8"},          {"-nvfp4", ""}};
  const std::string lower = Lower(name);
  for (const auto& [suffix, quantization] : kSuffixes) {
    const std::string_view s(suffix);
    if (lower.size() <= s.size() || lower.compare(lower.size() - s.size(), s.size(), s) != 0) continue;
    const std::string stripped = lower.substr(0, lower.size() - s.size());
    const size_t slash = stripped.rfind('/');
    const std::string stripped_name = stripped.substr(slash == std::string::npos ? 0 : slash + 1);
    std::vector<std::string> bases;
    for (const std::string& id : ids) {
      const size_t id_slash = id.rfind('/');
      if (Lower(id) == stripped || Lower(id.substr(id_slash == std::string::npos ? 0 : id_slash + 1)) == stripped_name)
        bases.push_back(id);
    }
    if (bases.size() == 1) return QuantizedRelease{bases.front(), quantization};
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

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
  const std::vector<ModelAlias> aliases = LoadModelAliases(data_dir);
  if (auto spec = FindPresetOrAlias(name_or_path, data_dir, option, presets, aliases, overrides)) return *std::move(spec);
  std::vector<std::string> candidates = presets;
  for (const ModelAlias& a : aliases) candidates.push_back(a.id);
  if (LooksLikeLocalPath(name_or_path)) {
    const std::string id = PresetNamedByPath(as_path, candidates, option);
    if (!id.empty()) {
      std::optional<ModelSpec> spec = FindPresetOrAlias(id, data_dir, option, presets, aliases, overrides);
      KVSIM_CHECK(spec.has_value(), "a path's preset resolves");
      spec->notes.insert(spec->notes.begin(), "'" + name_or_path + "' is not on this machine: planned as " + spec->name +
                                                  ", the model its path names (pass the checkpoint's config.json to "
                                                  "plan its own shapes and quantization)");
      return *std::move(spec);
    }
  }
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
  std::string release;
  if (const auto q = QuantizedReleaseOf(name_or_path, candidates))
    release = "; it looks like a quantized release of preset " + q->base +
              (q->quantization.empty() ? ", in a format --quantization cannot give: pass its own config.json"
                                       : ": --model " + q->base + " --quantization " + q->quantization +
                                             " plans that format at its defaults (its own config.json, exactly)");
  throw Error(option + ": '" + name_or_path + "' is neither a config.json path nor a preset" +
              (hint.empty() ? std::string() : "; closest presets: " + hint) + " (kvsim models lists them)" + release + fetch);
}

}  // namespace kvsim
