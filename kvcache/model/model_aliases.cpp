#include "kvcache/model/model_aliases.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kvcache/base/error.h"

namespace kvsim {
namespace {

bool SameIgnoringCase(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](unsigned char x, unsigned char y) {
           return std::tolower(x) == std::tolower(y);
         });
}

std::vector<std::string> SplitTabs(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, '\t')) fields.push_back(field);
  if (!line.empty() && line.back() == '\t') fields.emplace_back();
  return fields;
}

}  // namespace

std::vector<ModelAlias> LoadModelAliases(const std::string& data_dir) {
  const std::filesystem::path path = std::filesystem::path(data_dir) / "models" / "ALIASES.tsv";
  std::ifstream in(path);
  if (!in) return {};
  const std::string file = path.string();
  std::vector<ModelAlias> aliases;
  std::string line;
  bool header = true;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const std::string where = file + ":" + std::to_string(number) + ": ";
    const std::vector<std::string> f = SplitTabs(line);
    if (f.size() != 4)
      throw Error(where + "expected 4 tab-separated fields (alias, preset, patch, source), found " +
                  std::to_string(f.size()));
    if (header) {  // the first non-comment line names the columns
      header = false;
      if (f[0] != "alias" || f[1] != "preset" || f[2] != "patch" || f[3] != "source")
        throw Error(where + "the header must be: alias, preset, patch, source");
      continue;
    }
    ModelAlias a;
    a.id = f[0];
    a.preset = f[1];
    a.source = f[3];
    if (a.id.empty()) throw Error(where + "alias: empty");
    if (a.preset.empty()) throw Error(where + "preset: empty");
    // Every equivalence is cited: a row without its source is refused, not shipped.
    if (a.source.empty()) throw Error(where + "source: empty");
    try {
      a.patch = nlohmann::json::parse(f[2]);
    } catch (const nlohmann::json::exception& e) {
      throw Error(where + "patch: not JSON: " + e.what());
    }
    if (!a.patch.is_object()) throw Error(where + "patch: must be a JSON object (a merge patch), got " + f[2]);
    if (FindModelAlias(aliases, a.id)) throw Error(where + "alias: '" + a.id + "' is listed twice");
    aliases.push_back(std::move(a));
  }
  return aliases;
}

std::optional<ModelAlias> FindModelAlias(const std::vector<ModelAlias>& aliases, const std::string& id) {
  for (const ModelAlias& a : aliases)
    if (SameIgnoringCase(a.id, id)) return a;
  return std::nullopt;
}

}  // namespace kvsim
