// Where a command's outputs go: a file (written atomically, kvsim/base/atomic_file.h) or standard
// output for "-".
#ifndef KVSIM_SIM_CLI_OUTPUT_H_
#define KVSIM_SIM_CLI_OUTPUT_H_

#include <ostream>
#include <string>

#include "kvcache/base/atomic_file.h"

namespace kvsim {

inline void WriteOutput(const std::string& path, const std::string& text, std::ostream& out) {
  if (path == "-") out << text;
  else WriteFileAtomically(path, text);
}

// A command's answer: the console table, or with --json the JSON (on stdout for "-"; to a file, then
// the table too, and where the JSON went). Builds the JSON only when it is asked for.
template <typename MakeJson>
void WriteAnswer(const std::string& json_path, const std::string& table, MakeJson&& make_json, std::ostream& out) {
  if (json_path.empty()) {
    out << table;
    return;
  }
  WriteOutput(json_path, make_json().dump(2) + "\n", out);
  if (json_path != "-") out << table << "JSON written to " << json_path << "\n";
}

}  // namespace kvsim

#endif  // KVSIM_SIM_CLI_OUTPUT_H_
