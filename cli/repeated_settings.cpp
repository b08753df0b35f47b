#include "cli/repeated_settings.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/option_rules.h"
#include "kvcache/base/text_format.h"

namespace kvsim {

void KeepLastOfEachSetting(std::vector<std::string>& kvsim_args, std::vector<std::string>& dropped) {
  struct Item {
    std::string flag;
    std::optional<std::string> value;
  };
  std::vector<Item> items;
  const std::vector<std::string>& a = kvsim_args;
  for (size_t i = 0; i < a.size(); ++i) {
    Item item{a[i], std::nullopt};
    if (i + 1 < a.size() && !StartsWith(a[i + 1], "--")) item.value = a[++i];
    items.push_back(std::move(item));
  }
  std::vector<Item> kept;
  std::set<std::string> seen;
  for (auto it = items.rbegin(); it != items.rend(); ++it) {
    if (seen.insert(SettingOfFlag(it->flag)).second) kept.push_back(*it);
    else if (std::find(dropped.begin(), dropped.end(), it->flag) == dropped.end())
      dropped.push_back(it->flag);
  }
  kvsim_args.clear();
  for (auto it = kept.rbegin(); it != kept.rend(); ++it) {
    kvsim_args.push_back(it->flag);
    if (it->value) kvsim_args.push_back(*it->value);
  }
}

}  // namespace kvsim
