// Where a pasted launch line's server arguments begin, and the environment it gives the server:
// leading VAR=value assignments, then `vllm serve`, `python -m vllm.entrypoints.openai.api_server`,
// `python -m sglang.launch_server` or `sglang serve`; or a container run of vLLM's image,
// `docker run [options] vllm/vllm-openai:TAG [arguments]` (podman too), whose -e/--env assignments are
// the server's environment.
#ifndef KVSIM_CLI_VLLM_COMMAND_LINE_LAUNCH_H_
#define KVSIM_CLI_VLLM_COMMAND_LINE_LAUNCH_H_

#include <cstddef>
#include <string>
#include <vector>

namespace kvsim {

struct ServerLaunch {
  size_t args_start = 0;                 // index of the server's first argument in the tokens
  bool sglang = false;                   // SGLang's launch_server rather than vLLM's serve
  std::vector<std::string> environment;  // VAR=value, in the order given
  std::string image;                     // the container image run (e.g. vllm/vllm-openai:v0.25.0), or empty
  int image_minor = 0;                   // the vLLM release its tag names (v0.25.0: 25), or 0 (latest, nightly)
  std::vector<std::string> args;         // the server's arguments: from args_start to a shell operator
                                         // (| tee log, &&, &), without redirections (2>&1, > log)
  std::string shell_tail;                // the shell's redirections and what it does after the command
  std::vector<std::string> inner_command;  // `--entrypoint /bin/bash IMAGE -c "..."`: the command in the string
};

// `nohup`, `exec`, `sudo`, `uv run`, `time`, `env`, `taskset` or `numactl` before the command runs it
// unchanged; `export VAR=value` commands before it give it its environment. The interpreter may be named
// by path and take its own options (python3 -u -m ...), or run vLLM's CLI module (-m vllm.entrypoints.cli.main
// serve). Throws kvsim::Error when the tokens launch no server kvsim reads, naming what they start with.
ServerLaunch FindServerLaunch(const std::vector<std::string>& tokens);

}  // namespace kvsim

#endif  // KVSIM_CLI_VLLM_COMMAND_LINE_LAUNCH_H_
