// The flags of the servers whose command lines kvsim reads (`vllm serve`, SGLang's
// launch_server), each with what kvsim does with it: the kvsim flag it becomes, no effect on what
// kvsim answers, or not modelled (refused or warned about by the translator, vllm_command_line.h).
#ifndef KVSIM_CLI_SERVE_FLAGS_H_
#define KVSIM_CLI_SERVE_FLAGS_H_

#include <string>
#include <vector>

namespace kvsim {

enum class Takes { kSwitch, kValue, kOptionalValue, kList };
enum class Effect { kModelled, kNoEffect, kNotModelled };

// One flag of a server's parser. `kvsim`: the kvsim flag it becomes (modelled flags); for a switch
// with a --no- form, `kvsim_negated` is what --no-<name> becomes (empty: nothing, the default).
struct ServeFlag {
  const char* name;
  const char* alias;
  Takes takes;
  Effect effect;
  const char* kvsim = "";
  const char* kvsim_negated = "";
};

// The flag named `name` (or its alias) in vLLM's or SGLang's parser; null when it has none.
const ServeFlag* FindServeFlag(bool sglang, const std::string& name);
// argparse's abbreviations (allow_abbrev): the one flag whose name starts with `prefix`; null when
// none or several do.
const ServeFlag* FindServeFlagByPrefix(bool sglang, const std::string& prefix);
// Every flag name of the parser, in its order (for "did you mean").
std::vector<std::string> ServeFlagNames(bool sglang);
// JSON-valued flags vLLM also takes key by key: --speculative-config.num_speculative_tokens 5.
bool IsJsonFlag(const std::string& name);

}  // namespace kvsim

#endif  // KVSIM_CLI_SERVE_FLAGS_H_
