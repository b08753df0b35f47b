// A server command line pasted as it is run: `vllm serve MODEL [flags]`,
// `python -m vllm.entrypoints.openai.api_server [flags]`, `python -m sglang.launch_server [flags]` or
// `docker run [options] vllm/vllm-openai:TAG MODEL [flags]` (vllm_command_line_launch.h), given after `--`
// or as `--vllm-cmd "..."`, turned into kvsim's deployment flags.
//
// Every flag of vLLM's serve parser is recognised (the table in serve_flags.cpp, built from
// vllm/engine/arg_utils.py and vllm/entrypoints/openai/cli_args.py); the ones that change memory
// or scheduling become kvsim flags, the others are reported once as "accepted, no effect on
// memory", and a few that do change memory but that kvsim does not model are reported as such.
// A flag vLLM does not know is an error, as it is for vLLM; one that the release being modelled
// (--vllm-version) does not have yet, or no longer has, is accepted with a note saying so, since a
// pasted line is as likely to be run on another release as on the one planned. `--config FILE.yaml` is expanded as vLLM
// expands it (yaml_config.h), its flags before the line's so the line wins. Dotted keys
// (--speculative-config.method ngram) nest and merge with the flag's JSON; a key given two different
// values that way is refused, as are decode context parallelism above 1 (not modelled) and two sizes
// of the KV tier below the GPU.
#ifndef KVSIM_CLI_VLLM_COMMAND_LINE_H_
#define KVSIM_CLI_VLLM_COMMAND_LINE_H_

#include <exception>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "cli/serve_command_line.h"
#include "kvcache/budget/serving_engine.h"

namespace kvsim {

// `tokens`: the command line split as a shell would (backslash line continuations skipped);
// leading VAR=value assignments (and a container's -e VAR=value) are read as the server's environment (VLLM_ALLOW_LONG_MAX_MODEL_LEN
// becomes --allow-long-max-model-len; the others are reported as no effect or not modelled). Throws kvsim::Error naming the token for anything vLLM
// (or SGLang) would refuse: an unknown flag, a missing value, a second model. `modelled`: the vLLM
// release the plan models; a flag its parser lacks gets a note.
ServeCommandLine TranslateServeCommand(const std::vector<std::string>& tokens, const VllmVersion& modelled = VllmVersion{});

// The release a command's arguments model: their --vllm-version (the last given), else the newest.
// A malformed one is left for the option parser to refuse.
VllmVersion ModelledRelease(const std::vector<std::string>& args);

// `vllm serve` with no model (neither the positional model_tag nor --model) serves vLLM's default model,
// ModelConfig.model: the line's --model becomes that one, with a note, unless the command's own
// arguments (`own`) name the model. SGLang's launch_server requires --model-path: refused without it.
void ServeTheDefaultModelIfNoneGiven(ServeCommandLine& line, const std::vector<std::string>& own);

// What a translated line says that the answer must carry (text and JSON): the notes, the flags given
// again later, and the flags kvsim accepts without modelling though they change memory.
std::vector<std::string> ServeLineWarnings(const ServeCommandLine& line);

// A command's own arguments and, the flags of a server command line given after `--`
// or with --vllm-cmd "..."; notes about accepted flags go to `err`. Without a server command line
// the arguments come back unchanged. The release modelled is the arguments' --vllm-version (default
// the newest). With `notes`, the translation's notes (a flag the modelled release lacks, a --config
// key vLLM drops) go there instead of `err`, for the caller's text and JSON answer.
std::vector<std::string> ExpandServeCommand(const std::vector<std::string>& args, std::ostream& err,
                                            const std::string& command, std::vector<std::string>* notes = nullptr);

// The notes ExpandServeCommand handed a command belong in its answer's text and JSON; if the command
// is refused instead (it throws while this is in scope), they are written to `err` on the way out.
class NotesIfRefused {
 public:
  NotesIfRefused(const std::vector<std::string>& notes, std::ostream& err, std::string command)
      : notes_(notes), err_(err), command_(std::move(command)), unwinding_(std::uncaught_exceptions()) {}
  ~NotesIfRefused() {
    if (std::uncaught_exceptions() > unwinding_)
      for (const std::string& note : notes_) err_ << "kvsim " << command_ << ": note: " << note << "\n";
  }
  NotesIfRefused(const NotesIfRefused&) = delete;
  NotesIfRefused& operator=(const NotesIfRefused&) = delete;

 private:
  const std::vector<std::string>& notes_;
  std::ostream& err_;
  std::string command_;
  int unwinding_;
};

}  // namespace kvsim

#endif  // KVSIM_CLI_VLLM_COMMAND_LINE_H_
