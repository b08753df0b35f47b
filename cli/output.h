// Where a command's outputs go: a file (written atomically, kvcache/base/atomic_file.h) or standard
// output for "-"; and the one check every command runs before it writes anything: no output is
// the same file as an input or as another output (kvcache/base/output_paths.h).
#ifndef KVSIM_SIM_CLI_OUTPUT_H_
#define KVSIM_SIM_CLI_OUTPUT_H_

#include <ostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "kvcache/base/atomic_file.h"
#include "kvcache/base/output_paths.h"

namespace kvsim {

// Every string of the command line that may name an input file: each argument, the value of
// "--opt=VALUE", the words of a quoted option string (compare's --a "..."), and the pieces of
// "kind:FILE:COLUMN" or "OPTION=V1,V2" values. Over-approximating is safe: only strings that name
// the same file as an output matter.
std::vector<std::string> InputCandidates(const std::vector<std::string>& args);

// Refuses (kvsim::Error) outputs that collide with each other or with an input: the command's
// arguments and any `more_inputs` the command reads without naming them (the default trace).
// Outputs with an empty path are not written and are skipped.
void CheckCommandOutputs(const std::vector<std::string>& args, const std::vector<OutputPath>& outputs,
                         const std::vector<std::string>& more_inputs = {});

// A command's output flags, each declared once: Json() and File() add the flag with its help and
// remember where its value lands, and Check() runs CheckCommandOutputs on every one of them, so an
// output flag cannot be declared and left out of the check (or checked under another name).
class OutputFlags {
 public:
  explicit OutputFlags(boost::program_options::options_description& desc) : desc_(desc) {}
  OutputFlags(const OutputFlags&) = delete;
  OutputFlags& operator=(const OutputFlags&) = delete;

  // What --json given alone does.
  enum class JsonAlone {
    kNeedsFile,          // an error: --json FILE, or --json - for standard output
    kPrintsInsteadOfTable,  // the JSON on standard output instead of the table (capacity, step, train)
  };
  // --json: the command's result as JSON, to FILE or standard output ("-").
  OutputFlags& Json(std::string& path, const char* help, JsonAlone alone = JsonAlone::kNeedsFile);
  // Another output file. `spec` is the flag as Boost declares it ("report", "output,o");
  // dash_is_stdout: "-" names standard output rather than a file called "-".
  OutputFlags& File(const char* spec, std::string& path, const char* help, bool dash_is_stdout = false);

  // CheckCommandOutputs over every output declared here, after the flags are parsed.
  void Check(const std::vector<std::string>& args, const std::vector<std::string>& more_inputs = {}) const;

 private:
  struct Declared {
    std::string option;  // "--json", "-o/--output"
    const std::string* path;
    bool dash_is_stdout;
  };
  boost::program_options::options_description& desc_;
  std::vector<Declared> declared_;
};

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
