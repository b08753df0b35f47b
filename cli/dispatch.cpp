#include <boost/program_options.hpp>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <new>
#include <sstream>

#include "kvcache/base/error.h"
#include "cli/commands.h"
#include "kvcache/base/interrupt.h"
#include "kvcache/base/text_format.h"
#include "cli/shared_flags.h"

namespace kvsim {
namespace {

using Args = std::vector<std::string>;

// Every command, declared once: the usage text, the dispatch and the suggestions for a mistyped
// command read this table, and CommandNames() hands it to the Python module.
struct Command {
  const char* name;
  const char* summary;  // its line in `kvsim --help`
  int (*run)(const Args& args, std::ostream& out, std::ostream& err, const CommandHooks& hooks);
};
constexpr Command kCommands[] = {
    {"capacity", "static budget: weights, activation, runtime overhead, KV cache, blocks, concurrency",
     [](const Args& a, std::ostream& o, std::ostream& e, const CommandHooks&) { return RunCapacityCommand(a, o, e); }},
    {"step", "the predicted time of one engine step for a batch, per operator",
     [](const Args& a, std::ostream& o, std::ostream& e, const CommandHooks&) { return RunStepCommand(a, o, e); }},
    {"calibrate", "fit the step model's kernel efficiencies to measured GPU timings",
     [](const Args& a, std::ostream& o, std::ostream& e, const CommandHooks&) { return RunCalibrateCommand(a, o, e); }},
    {"replay", "replay a request trace: peak memory, concurrency, preemptions, waste, latency",
     [](const Args& a, std::ostream& o, std::ostream& e, const CommandHooks& h) { return RunReplayCommand(a, o, e, h); }},
    {"compare", "the same trace through two or more deployments, side by side",
     [](const Args& a, std::ostream& o, std::ostream& e, const CommandHooks&) { return RunCompareCommand(a, o, e); }},
    {"sweep", "replay a grid of settings, or search the largest max_num_seqs meeting SLOs",
     [](const Args& a, std::ostream& o, std::ostream& e, const CommandHooks&) { return RunSweepCommand(a, o, e); }},
    {"plan", "the cheapest deployment meeting SLOs: GPUs, TP, formats, batch, replicas, as vllm serve lines",
     [](const Args& a, std::ostream& o, std::ostream& e, const CommandHooks&) { return RunPlanCommand(a, o, e); }},
    {"train", "training / fine-tuning memory per GPU: weights, gradients, optimizer, activations, fit",
     [](const Args& a, std::ostream& o, std::ostream& e, const CommandHooks&) { return RunTrainCommand(a, o, e); }},
    {"models", "list the model presets",
     [](const Args& a, std::ostream& o, std::ostream& e, const CommandHooks&) { return RunModelsCommand(a, o, e); }},
    {"gpus", "list the GPU presets",
     [](const Args& a, std::ostream& o, std::ostream& e, const CommandHooks&) { return RunGpusCommand(a, o, e); }},
    {"validate", "compare kvsim with memory figures real vLLM servers logged",
     [](const Args& a, std::ostream& o, std::ostream& e, const CommandHooks&) { return RunValidateCommand(a, o, e); }},
    {"releases", "the vLLM releases kvsim models and the budgeting rules that changed between them",
     [](const Args& a, std::ostream& o, std::ostream& e, const CommandHooks&) { return RunReleasesCommand(a, o, e); }},
};

std::string Usage() {
  std::string usage =
      "kvsim " KVSIM_VERSION ": GPU memory and concurrency of vLLM-style LLM serving\n\n"
      "Usage: kvsim <command> [options]     (kvsim <command> --help for its options)\n\n"
      "Commands:\n";
  for (const Command& c : kCommands) usage += Format("  %-10s %s\n", c.name, c.summary);
  return usage +
         "\nMemory is printed in GiB (2^30 bytes). Exit codes: 0 ok, 1 a validation threshold missed, 2 bad input,\n"
         "3 internal error (a bug in kvsim).\n";
}

int Dispatch(const std::string& command, const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
             const CommandHooks& hooks = {}) {
  for (const Command& c : kCommands)
    if (command == c.name) return c.run(args, out, err, hooks);
  const std::vector<std::string> close = ClosestMatches(command, CommandNames());
  err << "kvsim: error: unknown command '" << command << "'"
      << (close.empty() ? std::string() : " (did you mean " + Join(close, ", ") + "?)") << " (kvsim --help lists the commands)\n";
  return kExitBadInput;
}

// " (did you mean --x, --y?)" for an option the command does not have, from the names its own
// --help lists, so the suggestions come from the one place the flags are declared.
std::string DidYouMean(const std::string& command, const std::string& option) {
  std::ostringstream help;
  try {
    Dispatch(command, {"--help"}, help, help);
  } catch (const std::exception&) {
    return "";
  }
  std::vector<std::string> names;
  const std::string text = help.str();
  for (size_t at = text.find("--"); at != std::string::npos; at = text.find("--", at + 2)) {
    size_t end = at + 2;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '-')) ++end;
    if (end > at + 2 && (at == 0 || text[at - 1] == ' ' || text[at - 1] == '[' || text[at - 1] == '(' || text[at - 1] == '|'))
      names.push_back(text.substr(at, end - at));
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  const std::vector<std::string> close = ClosestMatches(option, names);
  return close.empty() ? "" : " (did you mean " + Join(close, ", ") + "?)";
}

// An error is one line whatever the input quoted in it held: a value typed with a newline or a
// carriage return ("fp8\n" pasted from a file) would otherwise split the message, and a script that
// reads the last line of stderr would see half of it.
std::string OneLine(const char* message) {
  std::string text;
  for (const char* c = message; *c != '\0'; ++c) {
    if (*c == '\n') text += "\\n";
    else if (*c == '\r') text += "\\r";
    else text += *c;
  }
  return text;
}

// Runs the command and maps every error to its exit code and one line on `err`.
int RunCaught(const std::string& command, const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
              const CommandHooks& hooks) {
  const std::string prefix = "kvsim " + command + ": ";
  try {
    RefuseOptionPlaceholders(args);
    return Dispatch(command, args, out, err, hooks);
  } catch (const Error& e) {
    err << prefix << "error: " << OneLine(e.what()) << "\n";
  } catch (const boost::program_options::unknown_option& e) {
    err << prefix << "error: " << OneLine(e.what()) << DidYouMean(command, e.get_option_name()) << " (see kvsim " << command
        << " --help)\n";
  } catch (const boost::program_options::error& e) {
    err << prefix << "error: " << OneLine(e.what()) << " (see kvsim " << command << " --help)\n";
  } catch (const std::bad_alloc&) {
    err << prefix << "error: out of memory (an input asks for more than this machine has)\n";
  } catch (const std::exception& e) {
    err << prefix << "internal error (a bug in kvsim; please report it with the command line): " << OneLine(e.what())
        << "\n";
    return kExitInternalError;
  }
  return kExitBadInput;
}

// Standard output is an output too: a full disk or a closed pipe behind it is an error, not exit 0.
int CheckStdoutWritten(const std::string& prefix, std::ostream& out, std::ostream& err, int code) {
  errno = 0;
  out.flush();
  if (out) return code;
  const int e = errno;
  err << prefix << "error: standard output: write failed" << (e != 0 ? std::string(" (") + std::strerror(e) + ")" : "")
      << "\n";
  return kExitBadInput;
}

}  // namespace

std::vector<std::string> CommandNames() {
  std::vector<std::string> names;
  for (const Command& c : kCommands) names.emplace_back(c.name);
  return names;
}

int RunKvsim(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err, const CommandHooks& hooks) {
  if (argv.size() < 2 || argv[1] == "--help" || argv[1] == "-h" || argv[1] == "help") {
    (argv.size() < 2 ? err : out) << Usage();
    return argv.size() < 2 ? kExitBadInput : kExitOk;
  }
  if (argv[1] == "--version") {
    out << "kvsim " << KVSIM_VERSION << "\n";
    return kExitOk;
  }
  const std::string command = argv[1];
  const std::vector<std::string> args(argv.begin() + 2, argv.end());
  const std::string prefix = "kvsim " + command + ": ";
  const SignalScope signals;
  int code = RunCaught(command, args, out, err, hooks);
  if (code == kExitOk || code == kExitThresholdMissed) code = CheckStdoutWritten(prefix, out, err, code);
  if (StopSignal() != 0 && code != kExitBadInput && code != kExitInternalError) {
    err << prefix << StopReason() << "\n";
    return 128 + StopSignal();
  }
  return code;
}

}  // namespace kvsim
