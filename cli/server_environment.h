// The VAR=value assignments before a pasted server command: vLLM's environment variables
// (vllm/envs.py) and those of the libraries under it. The ones that change what kvsim answers
// become kvsim flags; the others are reported as no effect or not modelled, never dropped silently.
#ifndef KVSIM_CLI_SERVER_ENVIRONMENT_H_
#define KVSIM_CLI_SERVER_ENVIRONMENT_H_

#include <string>

#include "cli/serve_command_line.h"

namespace kvsim {

// `assignment` is "NAME=value"; appends to cmd.kvsim_args, cmd.accepted_no_effect or cmd.not_modelled.
void ReadServerEnvironment(const std::string& assignment, ServeCommandLine& cmd);

}  // namespace kvsim

#endif  // KVSIM_CLI_SERVER_ENVIRONMENT_H_
