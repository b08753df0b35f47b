#include "kvcache/model_catalog.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

#include "kvcache/error.h"
#include "kvcache/model_config_parser.h"

namespace kvsim {
namespace fs = std::filesystem;
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
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
    fs::path rel = fs::relative(it->path(), root);
    rel.replace_extension();
    ids.push_back(rel.generic_string());
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<std::string> ClosestMatches(const std::string& query, const std::vector<std::string>& candidates,
                                        size_t limit) {
  const std::string q = Lower(query);
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& c : candidates) {
    const std::string lc = Lower(c);
    size_t score = EditDistance(q, lc);
    if (!q.empty() && lc.find(q) != std::string::npos) score = 0;
    scored.emplace_back(score, c);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < limit; ++i) out.push_back(scored[i].second);
  return out;
}

ModelSpec ResolveModel(const std::string& name_or_path, const std::string& data_dir) {
  std::error_code ec;
  const fs::path as_path(name_or_path);
  if (fs::exists(as_path, ec)) return LoadModelConfigFile(name_or_path);
  const auto presets = ListModelPresets(data_dir);
  for (const auto& id : presets) {
    if (Lower(id) == Lower(name_or_path)) {
      ModelSpec spec = LoadModelConfigFile((fs::path(data_dir) / "models" / (id + ".json")).string());
      spec.name = id;
      return spec;
    }
  }
  std::string hint;
  for (const auto& m : ClosestMatches(name_or_path, presets)) hint += (hint.empty() ? "" : ", ") + m;
  throw Error("--model: '" + name_or_path + "' is neither a config.json path nor a preset" +
              (hint.empty() ? std::string() : "; closest presets: " + hint) + " (kvsim models lists them)");
}

}  // namespace kvsim
