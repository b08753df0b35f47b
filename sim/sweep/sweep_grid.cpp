#include "sim/sweep/sweep_grid.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "kvcache/base/error.h"
#include "kvcache/base/json_brackets.h"
#include "kvcache/base/json_file.h"
#include "kvcache/base/line_reader.h"

namespace kvsim {

std::vector<std::string> SplitAxisValues(const std::string& text, const std::string& what) {
  std::vector<std::string> values;
  for (size_t i = 0; i < text.size();) {
    // A value that starts as JSON runs to its closing bracket, commas included; a plain value keeps
    // its characters as they are, up to the next comma.
    size_t end = text[i] == '{' || text[i] == '[' ? JsonValueEnd(text, i, what) : text.find(',', i);
    if (end == std::string::npos) end = text.size();
    if (end < text.size() && text[end] != ',')
      throw Error(what + ": '" + text.substr(i, end + 1 - i) + "' goes on past its JSON value; separate values with ','");
    if (end > i) values.push_back(text.substr(i, end - i));
    i = end + 1;
  }
  return values;
}

GridAxis ParseGridAxis(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw Error("--sweep: '" + text + "' is not OPTION=V1,V2,... (e.g. max-num-seqs=16,32,64)");
  GridAxis a;
  a.option = text.substr(0, eq);
  a.values = SplitAxisValues(text.substr(eq + 1), "--sweep " + a.option);
  if (a.values.empty()) throw Error("--sweep: '" + text + "' lists no values");
  return a;
}

namespace {

// The JSON reader keeps the last of two equal keys, so {"max-num-seqs": [8], "max-num-seqs": [16]}
// would sweep 16 alone and drop 8 without a word: an option named twice is refused instead.
void RefuseRepeatedOptions(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return;  // a FIFO or stdin cannot be read a second time
  LineReader in(path, "the grid file");
  std::string text, line;
  while (in.Next(line)) text += line + "\n";
  std::set<std::string> seen;
  const nlohmann::json::parser_callback_t check = [&](int depth, nlohmann::json::parse_event_t event,
                                                      nlohmann::json& parsed) {
    if (event == nlohmann::json::parse_event_t::key && depth == 1 && parsed.is_string() &&
        !seen.insert(parsed.get<std::string>()).second)
      throw Error(path + ": option '" + parsed.get<std::string>() + "' is named twice; give all its values in one list");
    return true;
  };
  const nlohmann::json checked = nlohmann::json::parse(text, check, /*allow_exceptions=*/false);
  static_cast<void>(checked);  // only the callback's check matters; ReadJsonFile parsed the file
}

}  // namespace

std::vector<GridAxis> ReadGridFile(const std::string& path) {
  const nlohmann::json j = ReadJsonFile(path, "the grid file");
  if (!j.is_object()) throw Error(path + ": expected an object of option -> list of values");
  RefuseRepeatedOptions(path);
  std::vector<GridAxis> axes;
  for (const auto& [key, values] : j.items()) {
    // A key is an option's name as --sweep takes it: "" or "--max-num-seqs" became a stray argument or
    // "----max-num-seqs", refused without the file's name.
    if (key.empty()) throw Error(path + ": an option with an empty name");
    if (key[0] == '-') throw Error(path + ": '" + key + "': name the option without its dashes (as --sweep does: max-num-seqs)");
    if (!values.is_array() || values.empty()) throw Error(path + ": " + key + ": expected a non-empty list");
    GridAxis a{key, {}};
    for (const auto& v : values) {
      // A switch takes no value: true or false after it was refused as a stray argument.
      if (v.is_boolean())
        throw Error(path + ": " + key + ": " + v.dump() + " is not a value of --" + key + "; a switch takes none, so it "
                    "is not an axis (sweep an option that takes a value, or compare the two deployments)");
      a.values.push_back(v.is_string() ? v.get<std::string>() : v.dump());
    }
    axes.push_back(a);
  }
  return axes;
}

std::vector<GridPoint> ExpandGrid(const std::vector<GridAxis>& axes) {
  if (axes.empty()) throw Error("give at least one --sweep OPTION=V1,V2,... (or --grid FILE, or --find)");
  // An option on two axes (two --sweep, or --sweep and --grid) would set it twice in every point.
  for (size_t i = 0; i < axes.size(); ++i)
    for (size_t j = i + 1; j < axes.size(); ++j)
      if (axes[i].option == axes[j].option)
        throw Error("--sweep/--grid: '" + axes[i].option + "' is an axis twice; give all its values in one axis");
  // A value listed twice on one axis replays the same point twice and reports it as two.
  for (const GridAxis& a : axes)
    for (size_t i = 0; i < a.values.size(); ++i)
      for (size_t j = i + 1; j < a.values.size(); ++j)
        if (a.values[i] == a.values[j])
          throw Error("--sweep/--grid: '" + a.option + "' lists the value '" + a.values[i] + "' twice");
  size_t count = 1;
  for (const GridAxis& a : axes) {
    count *= std::max<size_t>(1, a.values.size());
    if (count > kMaxGridPoints)
      throw Error("the grid has more than " + std::to_string(kMaxGridPoints) + " points; at most " +
                  std::to_string(kMaxGridPoints));
  }
  std::vector<GridPoint> points = {{}};
  for (const GridAxis& a : axes) {
    std::vector<GridPoint> next;
    for (const GridPoint& p : points)
      for (const std::string& v : a.values) {
        GridPoint q = p;
        q.label += (q.label.empty() ? "" : ",") + a.option + "=" + v;
        q.overrides.push_back("--" + a.option);
        q.overrides.push_back(v);
        next.push_back(std::move(q));
      }
    points = std::move(next);
  }
  return points;
}

}  // namespace kvsim
