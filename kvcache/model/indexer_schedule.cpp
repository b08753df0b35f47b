#include "kvcache/model/indexer_schedule.h"

#include <algorithm>
#include <string>

#include "kvcache/base/error.h"

namespace kvsim {

std::vector<bool> ReadIndexerSchedule(const FieldReader& r, int64_t layers) {
  const std::string where = r.source() + ": " + r.prefix();
  const size_t n = static_cast<size_t>(std::max<int64_t>(0, layers));
  std::vector<bool> on(n, true);
  const nlohmann::json& config = r.object();
  const auto pattern = config.find("index_topk_pattern");
  if (pattern != config.end() && !pattern->is_null()) {
    if (!pattern->is_string())
      throw Error(where + "index_topk_pattern: expected a string of one letter per layer, got " + pattern->dump());
    const std::string letters = pattern->get<std::string>();
    if (letters.size() != n)
      throw Error(where + "index_topk_pattern: has " + std::to_string(letters.size()) + " letters but num_hidden_layers is " +
                  std::to_string(layers));
    for (size_t i = 0; i < n; ++i) on[i] = letters[i] != 'S';
  } else {
    const int64_t freq = r.Optional({"index_topk_freq"}, 1);
    const int64_t offset = r.Optional({"index_skip_topk_offset"}, 2);
    if (freq < 1) throw Error(where + "index_topk_freq: " + std::to_string(freq) + " must be at least 1");
    for (size_t i = 0; i < n; ++i) on[i] = std::max<int64_t>(static_cast<int64_t>(i) - offset + 1, 0) % freq == 0;
  }
  const auto types = config.find("indexer_types");
  if (types != config.end() && !types->is_null()) {
    const std::string what = where + "indexer_types: ";
    if (!types->is_array()) throw Error(what + "expected a list of \"full\" or \"shared\" per layer, got " + types->dump());
    if (types->size() != n)
      throw Error(what + "has " + std::to_string(types->size()) + " entries but num_hidden_layers is " + std::to_string(layers));
    for (size_t i = 0; i < n; ++i) {
      const nlohmann::json& kind = (*types)[i];
      if (!kind.is_string() || (kind.get<std::string>() != "full" && kind.get<std::string>() != "shared"))
        throw Error(what + "layer " + std::to_string(i) + " is " + kind.dump() + "; each is \"full\" or \"shared\"");
      if ((kind.get<std::string>() == "full") != on[i])
        throw Error(what + "layer " + std::to_string(i) + " is " + kind.dump() +
                    " but index_topk_freq / index_skip_topk_offset (or index_topk_pattern) make it " +
                    (on[i] ? "\"full\"" : "\"shared\"") + "; vLLM refuses schedules that disagree");
    }
  }
  if (std::all_of(on.begin(), on.end(), [](bool b) { return b; })) on.clear();
  return on;
}

}  // namespace kvsim
