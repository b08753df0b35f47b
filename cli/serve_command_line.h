// A pasted server command line translated: the kvsim flags it becomes and what it says that kvsim
// reports instead of modelling.
#ifndef KVSIM_CLI_SERVE_COMMAND_LINE_H_
#define KVSIM_CLI_SERVE_COMMAND_LINE_H_

#include <string>
#include <vector>

namespace kvsim {

struct ServeCommandLine {
  std::vector<std::string> kvsim_args;          // kvsim deployment flags, in order
  std::vector<std::string> accepted_no_effect;  // flags and environment variables with no effect on memory
  std::vector<std::string> not_modelled;        // flags and environment variables kvsim does not model
  std::vector<std::string> kernel_choices;      // environment variables that pick kernels: no memory, time not told apart
  std::vector<std::string> unknown_environment; // environment variables kvsim has no entry for
  std::vector<std::string> replaced_by_later;   // flags given again (or negated) later in the line
  std::vector<std::string> notes;               // what vLLM does with the line that kvsim repeats (e.g. a
                                                // --config key set to false, which vLLM drops)
  bool sglang = false;                          // an SGLang launch_server command line
};

}  // namespace kvsim

#endif  // KVSIM_CLI_SERVE_COMMAND_LINE_H_
