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

std::vector<ModelAlias> ReadModelAliases(const std::string& data_dir) {
  const std::filesystem::path file = std::filesystem::path(data_dir) / "models" / "ALIASES.tsv";
  std::ifstream in(file);
  std::vector<ModelAlias> aliases;
  if (!in) return aliases;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const std::string where = file.string() + ":" + std::to_string(number) + ": ";
    const std::vector<std::string> f = SplitTabs(line);
    if (f.size() != 4)
      throw Error(where + "expected 4 tab-separated fields (alias, preset, overrides, source), found " +
                  std::to_string(f.size()));
    ModelAlias a{f[0], f[1], nlohmann::json::object(), f[3]};
    if (a.id.empty() || a.preset.empty()) throw Error(where + "alias and preset must not be empty");
    if (a.source.empty()) throw Error(where + "source: every alias names the source that says the shapes are the same");
    if (f[2] != "-") {
      try {
        a.overrides = nlohmann::json::parse(f[2]);
      } catch (const nlohmann::json::exception& e) {
        throw Error(where + "overrides: not JSON: " + e.what());
      }
      if (!a.overrides.is_object()) throw Error(where + "overrides: expected a JSON object or '-'");
    }
    for (const ModelAlias& seen : aliases)
      if (SameIgnoringCase(seen.id, a.id)) throw Error(where + "alias '" + a.id + "' is listed twice");
    aliases.push_back(std::move(a));
  }
  return aliases;
}

std::optional<ModelAlias> FindModelAlias(const std::string& id, const std::string& data_dir) {
  for (ModelAlias& a : ReadModelAliases(data_dir))
    if (SameIgnoringCase(a.id, id)) return std::move(a);
  return std::nullopt;
}

}  // namespace kvsim
