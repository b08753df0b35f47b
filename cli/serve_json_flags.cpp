#include "cli/serve_json_flags.h"

#include <set>

#include "kvcache/base/error.h"

namespace kvsim {
namespace {

void MergeDotted(nlohmann::json& whole, const nlohmann::json& dotted, const std::string& path, const std::string& flag,
                 const std::string& whole_as_given) {
  for (auto it = dotted.begin(); it != dotted.end(); ++it) {
    const std::string key_path = path.empty() ? it.key() : path + "." + it.key();
    if (!whole.contains(it.key())) {
      whole[it.key()] = it.value();
    } else if (whole[it.key()].is_object() && it.value().is_object()) {
      MergeDotted(whole[it.key()], it.value(), key_path, flag, whole_as_given);
    } else if (whole[it.key()] != it.value()) {
      throw Error(flag + "." + key_path + " " + ServeJsonText(it.value()) + " and the JSON of " + whole_as_given + " (" +
                  key_path + ": " + ServeJsonText(whole[it.key()]) + ") set the same key to different values: give one");
    }
  }
}

}  // namespace

std::string ServeJsonText(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

bool ServeJsonFlags::SetWhole(const std::string& flag, nlohmann::json value, const std::string& as_given) {
  auto [it, fresh] = whole_.try_emplace(flag, Whole{value, as_given});
  if (fresh) return true;
  const bool same = it->second.value == value;
  it->second = Whole{std::move(value), as_given};
  return same;
}

bool ServeJsonFlags::SetDotted(const std::string& flag, const std::string& dotted, nlohmann::json value,
                               const std::string& as_given) {
  nlohmann::json* node = &dotted_[flag];
  const bool append = !dotted.empty() && dotted.back() == '+';
  if (append) {
    const std::string items = value.is_string() ? value.get<std::string>() : ServeJsonText(value);
    value = nlohmann::json::array();
    for (size_t at = 0;;) {
      const size_t comma = items.find(',', at);
      value.push_back(items.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
  }
  const std::string path = append ? dotted.substr(0, dotted.size() - 1) : dotted;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (key.empty()) throw Error(as_given + ": an empty key in the dotted spelling");
    if (!node->is_object()) *node = nlohmann::json::object();
    if (dot == std::string::npos && append && node->contains(key) && (*node)[key].is_array()) {
      for (nlohmann::json& item : value) (*node)[key].push_back(std::move(item));
      return true;
    }
    if (dot == std::string::npos) {
      const bool same = !node->contains(key) || (*node)[key] == value;
      (*node)[key] = std::move(value);
      return same;
    }
    node = &(*node)[key];
    start = dot + 1;
  }
}

std::vector<std::pair<std::string, nlohmann::json>> ServeJsonFlags::Merged() const {
  std::set<std::string> flags;
  for (const auto& [flag, w] : whole_) flags.insert(flag);
  for (const auto& [flag, d] : dotted_) flags.insert(flag);
  std::vector<std::pair<std::string, nlohmann::json>> out;
  for (const std::string& flag : flags) {
    nlohmann::json value = nlohmann::json::object();
    const auto w = whole_.find(flag);
    if (w != whole_.end()) value = w->second.value;
    if (const auto d = dotted_.find(flag); d != dotted_.end())
      MergeDotted(value, d->second, "", flag, w != whole_.end() ? w->second.as_given : flag);
    out.emplace_back(flag, std::move(value));
  }
  return out;
}

}  // namespace kvsim
