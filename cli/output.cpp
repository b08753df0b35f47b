#include "cli/output.h"

#include <set>
#include <sstream>
#include <string>
#include <utility>

namespace kvsim {
namespace {

void AddPieces(const std::string& word, std::set<std::string>& out) {
  out.insert(word);
  if (const size_t eq = word.find('='); eq != std::string::npos) out.insert(word.substr(eq + 1));
  if (const size_t colon = word.find(':'); colon != std::string::npos) out.insert(word.substr(colon + 1));
  std::string piece;
  for (char c : word) {
    if (c == '=' || c == ':' || c == ',') {
      out.insert(piece);
      piece.clear();
    } else {
      piece += c;
    }
  }
  out.insert(piece);
}

}  // namespace

std::vector<std::string> InputCandidates(const std::vector<std::string>& args) {
  std::vector<std::string> candidates;
  for (const std::string& arg : args) {
    std::set<std::string> pieces;  // once per argument: an output's own value is counted once
    AddPieces(arg, pieces);
    std::istringstream words(arg);
    for (std::string w; words >> w;) AddPieces(w, pieces);
    pieces.erase("");
    candidates.insert(candidates.end(), pieces.begin(), pieces.end());
  }
  return candidates;
}

void CheckCommandOutputs(const std::vector<std::string>& args, const std::vector<OutputPath>& outputs,
                         const std::vector<std::string>& more_inputs) {
  std::vector<OutputPath> written;
  for (const OutputPath& o : outputs)
    if (!o.path.empty()) written.push_back(o);
  std::vector<std::string> inputs = InputCandidates(args);
  inputs.insert(inputs.end(), more_inputs.begin(), more_inputs.end());
  CheckOutputPaths(written, inputs);
}

OutputFlags& OutputFlags::Json(std::string& path, const char* help, JsonAlone alone) {
  auto* value = boost::program_options::value(&path);
  if (alone == JsonAlone::kPrintsInsteadOfTable) value->implicit_value("-");
  desc_.add_options()("json", value, help);
  declared_.push_back({"--json", &path, true});
  return *this;
}

OutputFlags& OutputFlags::File(const char* spec, std::string& path, const char* help, bool dash_is_stdout) {
  desc_.add_options()(spec, boost::program_options::value(&path), help);
  // "output,o" is reported as "-o/--output".
  const std::string name = spec;
  const size_t comma = name.find(',');
  std::string option;
  if (comma == std::string::npos) {
    option.append("--").append(name);
  } else {
    option.append("-").append(name, comma + 1, std::string::npos).append("/--").append(name, 0, comma);
  }
  declared_.push_back({std::move(option), &path, dash_is_stdout});
  return *this;
}

void OutputFlags::Check(const std::vector<std::string>& args, const std::vector<std::string>& more_inputs) const {
  std::vector<OutputPath> outputs;
  for (const Declared& d : declared_) outputs.push_back({d.option, *d.path, d.dash_is_stdout});
  CheckCommandOutputs(args, outputs, more_inputs);
}

}  // namespace kvsim
