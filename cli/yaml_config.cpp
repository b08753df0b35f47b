#include "cli/yaml_config.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <regex>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include "kvcache/base/error.h"
#include "kvcache/base/line_reader.h"
#include "cli/serve_flags.h"

namespace kvsim {
namespace {

constexpr size_t kMaxConfigBytes = size_t{1} << 20;
// Nested values become JSON for flags such as --speculative-config; deeper than JSON text kvsim
// reads anywhere else (json_file.h) is refused before it is walked.
constexpr int kMaxDepth = 64;

std::string Where(const std::string& name, const YAML::Mark& mark) {
  return name + ":" + std::to_string(mark.line + 1);
}

// PyYAML's safe_load resolves plain scalars by the YAML 1.1 rules; these are its booleans and nulls.
bool IsYamlTrue(const std::string& s) {
  static const std::set<std::string> kTrue = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
  return kTrue.count(s) > 0;
}
bool IsYamlFalse(const std::string& s) {
  static const std::set<std::string> kFalse = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"};
  return kFalse.count(s) > 0;
}
bool IsYamlNull(const std::string& s) { return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL"; }

bool IsPlain(const YAML::Node& n) { return n.Tag() == "?"; }

// A scalar as a JSON value, typed the way PyYAML types it (json.dumps then writes it as vLLM does).
nlohmann::json ScalarAsJson(const YAML::Node& n) {
  const std::string& s = n.Scalar();
  if (!IsPlain(n)) return s;
  if (IsYamlTrue(s)) return true;
  if (IsYamlFalse(s)) return false;
  if (IsYamlNull(s)) return nullptr;
  try {
    size_t used = 0;
    const long long i = std::stoll(s, &used, 10);
    if (used == s.size()) return i;
    const double d = std::stod(s, &used);
    if (used == s.size()) return d;
  } catch (const std::exception&) {
  }
  return s;
}

nlohmann::json NodeAsJson(const YAML::Node& n, const std::string& name, int depth) {
  if (depth > kMaxDepth)
    throw Error(Where(name, n.Mark()) + ": nested deeper than " + std::to_string(kMaxDepth) + " levels");
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json j = nlohmann::json::object();
      for (const auto& kv : n) {
        if (!kv.first.IsScalar()) throw Error(Where(name, kv.first.Mark()) + ": a key must be a plain name");
        j[kv.first.Scalar()] = NodeAsJson(kv.second, name, depth + 1);
      }
      return j;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json j = nlohmann::json::array();
      for (const auto& item : n) j.push_back(NodeAsJson(item, name, depth + 1));
      return j;
    }
    case YAML::NodeType::Scalar:
      return ScalarAsJson(n);
    default:
      return nullptr;
  }
}

// str(value) of a plain scalar PyYAML reads as an integer (YAML 1.1: 0x1000, 4_096, 0b101, and a leading 0
// for octal), which vLLM's config reader passes on as its decimal text; any other scalar as written.
std::string PythonIntText(const YAML::Node& n) {
  const std::string& s = n.Scalar();
  if (!IsPlain(n)) return s;
  static const std::regex kInt(R"(^([-+]?)(0b[01_]+|0x[0-9a-fA-F_]+|0[0-7_]+|[1-9][0-9_]*|0)$)");
  std::smatch m;
  if (!std::regex_match(s, m, kInt)) return s;
  std::string digits = m[2].str();
  digits.erase(std::remove(digits.begin(), digits.end(), '_'), digits.end());
  int base = 10;
  if (digits.size() > 1 && digits[0] == '0') {
    base = digits[1] == 'b' ? 2 : digits[1] == 'x' ? 16 : 8;
    digits = digits.substr(base == 8 ? 1 : 2);
  }
  if (digits.empty()) return s;
  try {
    size_t used = 0;
    const unsigned long long v = std::stoull(digits, &used, base);
    if (used != digits.size()) return s;
    return (m[1].str() == "-" && v != 0 ? "-" : "") + std::to_string(v);
  } catch (const std::exception&) {
    return s;  // past 64 bits: the flag's own parser refuses the text
  }
}

// str(value) of a list item, as vLLM appends it: Python spells booleans True/False.
std::string ItemText(const YAML::Node& n, const std::string& name, const std::string& where) {
  if (!n.IsScalar()) {
    // vLLM would pass Python's repr of the nested value, which no flag parses.
    throw Error(where + ": a list item must be a single value, not a nested " +
                std::string(n.IsMap() ? "mapping" : "list") + " (" + Where(name, n.Mark()) + ")");
  }
  const nlohmann::json v = ScalarAsJson(n);
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  return PythonIntText(n);
}

// Where the stream's second document starts, if it has one. yaml-cpp 0.7's LoadAll never returns on
// some malformed text (",o": its parser reports a new document at every call without reading on), so
// the documents are counted through the parser's events, two at most.
std::optional<YAML::Mark> SecondDocument(const std::string& text, const std::string& name) {
  struct DocumentStarts : YAML::EventHandler {
    std::optional<YAML::Mark> mark;
    bool null = false;  // the document is a bare null
    void OnDocumentStart(const YAML::Mark& m) override { mark = m; }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override { null = true; }
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
  };
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts first, second;
  if (!parser.HandleNextDocument(first)) return std::nullopt;
  if (!parser.HandleNextDocument(second) || !second.mark) return std::nullopt;
  // A null first document followed by another, in text that does not open with '---', is text no
  // document can start with (PyYAML: "expected '<document start>'").
  const size_t start = text.find_first_not_of(" \t\r\n");
  if (first.null && (start == std::string::npos || text.compare(start, 3, "---") != 0))
    throw Error(Where(name, *first.mark) + ": malformed YAML: text that cannot start a document");
  return second.mark;
}

}  // namespace

ServeConfigFile ParseServeConfigYaml(const std::string& text, const std::string& name) {
  YAML::Node root;
  try {
    // PyYAML's safe_load, which vLLM calls, refuses a stream of several documents ("expected a
    // single document"); reading only the first would drop the rest without a word.
    const std::optional<YAML::Mark> second = SecondDocument(text, name);
    if (second)
      throw Error((second->line >= 0 ? Where(name, *second) : name) +
                  ": a second YAML document; vLLM reads a config file of one document");
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw Error(name + ":" + std::to_string(e.mark.line + 1) + ": malformed YAML: " + e.msg);
  }
  ServeConfigFile out;
  if (root.IsNull()) return out;  // an empty file: vLLM adds no flags
  if (!root.IsMap())
    throw Error(Where(name, root.Mark()) + ": a vLLM config file is a mapping of flag names to values (key: value)");
  try {
    for (const auto& kv : root) {
      if (!kv.first.IsScalar() || kv.first.Scalar().empty())
        throw Error(Where(name, kv.first.Mark()) + ": a key must be a flag name");
      const std::string key = kv.first.Scalar();
      const std::string where = Where(name, kv.first.Mark()) + ": key '" + key + "'";
      const std::string flag = "--" + key;
      const YAML::Node& value = kv.second;
      if (value.IsNull() || (value.IsScalar() && IsPlain(value) && IsYamlNull(value.Scalar())))
        throw Error(where + ": has no value (vLLM would pass the text 'None' to " + flag + ")");
      if (value.IsScalar() && IsPlain(value) && IsYamlTrue(value.Scalar())) {
        out.tokens.push_back({flag, where});
      } else if (value.IsScalar() && IsPlain(value) && IsYamlFalse(value.Scalar())) {
        out.tokens.push_back({"--no-" + key, where, true});
      } else if (value.IsSequence()) {
        if (value.size() == 0) {
          out.dropped.push_back(Where(name, kv.first.Mark()) + ": " + key +
                                " is an empty list, which vLLM's config reader drops (the flag keeps its default)");
          continue;
        }
        out.tokens.push_back({flag, where});
        for (const auto& item : value) out.tokens.push_back({ItemText(item, name, where), where});
      } else if (value.IsMap()) {
        out.tokens.push_back({flag, where});
        // Bytes that are not UTF-8 become U+FFFD rather than an exception from the JSON writer.
        out.tokens.push_back({NodeAsJson(value, name, 1).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), where});
      } else {
        out.tokens.push_back({flag, where});
        out.tokens.push_back({PythonIntText(value), where});
      }
    }
  } catch (const YAML::Exception& e) {
    throw Error(name + ":" + std::to_string(e.mark.line + 1) + ": malformed YAML: " + e.msg);
  }
  return out;
}

ServeConfigFile ReadServeConfigYaml(const std::string& path) {
  const size_t dot = path.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
  if (ext != "yaml" && ext != "yml")
    throw Error(path + ": --config takes a .yaml or .yml file, as vLLM does (got '." + ext + "')");
  LineReader in(path, "vLLM config file");
  std::string text, line;
  while (in.Next(line)) {
    if (text.size() + line.size() > kMaxConfigBytes)
      throw Error(path + ":" + std::to_string(in.line_number()) + ": a vLLM config file larger than 1 MiB");
    text += line;
    text += '\n';
  }
  return ParseServeConfigYaml(text, path);
}

// The first release kvsim takes to emit --no-KEY for `KEY: false` (PR #51573, merged 2026-08-09):
// 0.29.0 came out on 2026-08-31; whether 0.28 had it is not known here, so it keeps the older drop.
constexpr int kFirstReleaseNegatingFalseConfigKeys = 29;

ServeArgsWithConfig ExpandServeConfigFile(const std::vector<std::string>& given, const VllmVersion& modelled) {
  ServeArgsWithConfig out;
  std::vector<std::string> rest;
  std::string path;
  for (size_t i = 0; i < given.size(); ++i) {
    std::string value;
    if (given[i] == "--config") {
      if (i + 1 >= given.size() || given[i + 1].rfind('-', 0) == 0)
        throw Error("--config: expects a YAML file (in the pasted server command line)");
      value = given[++i];
    } else if (given[i].rfind("--config=", 0) == 0) {
      value = given[i].substr(9);
    } else {
      rest.push_back(given[i]);
      continue;
    }
    if (!path.empty()) throw Error("--config is given twice in the pasted server command line ('" + path + "' and '" + value + "')");
    path = value;
  }
  size_t lead = 0;  // a positional model comes first on the line (`vllm serve MODEL --config F`): kept first
  if (!path.empty())
    while (lead < rest.size() && !rest[lead].empty() && rest[lead][0] != '-') ++lead;
  for (size_t i = 0; i < lead; ++i) out.args.push_back(rest[i]), out.origins.emplace_back();
  if (!path.empty()) {
    const bool negates = !modelled.v0_engine && modelled.minor >= kFirstReleaseNegatingFalseConfigKeys;
    const ServeConfigFile file = ReadServeConfigYaml(path);
    // With a config file vLLM requires a model on the line or in the file (_pull_args_from_config).
    auto is_model = [](const std::string& a) { return a == "--model" || a.rfind("--model=", 0) == 0; };
    if (lead == 0 && std::none_of(rest.begin(), rest.end(), is_model) &&
        std::none_of(file.tokens.begin(), file.tokens.end(), [&](const ConfigToken& t) { return is_model(t.text); }))
      throw Error(path + ": no model on the line or in the config file; vLLM refuses it (\"No model specified!\"): "
                  "give it after vllm serve or as model: in the file");
    out.notes = file.dropped;
    for (size_t k = 0; k < file.tokens.size(); ++k) {
      const ConfigToken& t = file.tokens[k];
      // The line's positional model wins over the file's `model:` (vllm/entrypoints/cli/serve.py sets
      // args.model from model_tag when given), and the answer says which it plans.
      if (lead > 0 && t.text == "--model" && k + 1 < file.tokens.size()) {
        if (file.tokens[k + 1].text != rest[0])
          out.notes.push_back(t.origin.substr(0, t.origin.find(": key '")) + ": model " + file.tokens[k + 1].text +
                              " is replaced by the line's positional model " + rest[0] + ", which vllm serve takes first");
        ++k;
        continue;
      }
      if (t.from_false) {
        // vLLM looks the --no- form up as written (argparse's option strings): a switch's dashed name.
        const ServeFlag* f = FindServeFlag(false, t.text.substr(5).insert(0, "--"));
        if (negates && f && f->takes == Takes::kSwitch && f->name == t.text.substr(5).insert(0, "--")) {
          out.args.push_back(t.text), out.origins.push_back(t.origin);
        } else {
          const std::string where = t.origin.substr(0, t.origin.find(": key '"));
          out.notes.push_back(where + ": " + t.text.substr(5) + " is false, which vLLM's config reader drops (" +
                              (negates ? "its parser has no option " + t.text + ", looked up as written"
                                       : "before 0." + std::to_string(kFirstReleaseNegatingFalseConfigKeys) +
                                             " it adds a flag only for true") +
                              "; the flag keeps its default)");
        }
        continue;
      }
      out.args.push_back(t.text), out.origins.push_back(t.origin);
    }
  }
  for (size_t i = lead; i < rest.size(); ++i) out.args.push_back(rest[i]), out.origins.emplace_back();
  return out;
}

}  // namespace kvsim
