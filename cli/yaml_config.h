// `vllm serve --config FILE.yaml`: the YAML file turned into the flags vLLM's FlexibleArgumentParser
// makes of it (vllm/utils/argparse_utils.py, load_config_file): each top-level key KEY becomes --KEY;
// `true` becomes the bare switch; a list becomes --KEY followed by its items; a mapping (nested
// speculative-config, compilation-config, ...) becomes --KEY and its JSON text; any other scalar
// becomes --KEY and its text (1, "true" or null after a switch is then a stray word argparse refuses).
// A key set to `false` becomes --no-KEY where the parser has that form (BooleanOptionalAction; PR
// #51573, merged 2026-08-09), and is dropped otherwise; each drop is noted, never silent.
#ifndef KVSIM_CLI_YAML_CONFIG_H_
#define KVSIM_CLI_YAML_CONFIG_H_

#include <string>
#include <vector>

#include "kvcache/budget/serving_engine.h"

namespace kvsim {

// One flag or value the file produced, and where it came from ("FILE:LINE: key 'KEY'"), so an
// error about it names the file, the line and the key.
struct ConfigToken {
  std::string text;
  std::string origin;
  bool from_false = false;  // "--no-KEY" for `KEY: false`, which only some releases and flags take
};

struct ServeConfigFile {
  std::vector<ConfigToken> tokens;
  std::vector<std::string> dropped;  // "FILE:LINE: KEY is an empty list, which ..." for each key vLLM drops
};

// `text` is the file's content, `name` the path it is reported as. Throws kvsim::Error naming the
// file and line for YAML that does not parse, a top level that is not a mapping, a key that is not a
// plain name, and a key without a value (vLLM would pass the string "None" to the flag).
ServeConfigFile ParseServeConfigYaml(const std::string& text, const std::string& name);

// Reads `path` (at most 1 MiB; vLLM requires the .yaml or .yml extension, and so does this).
ServeConfigFile ReadServeConfigYaml(const std::string& path);

// A pasted `vllm serve` line with its --config file's flags in place: vLLM's FlexibleArgumentParser
// puts them after the positional model and before the line's other flags, so a flag typed on the line
// wins (argparse keeps the last). `origins[i]` names the file, line and key of args[i] ("" for the
// line's own). `modelled`: the release whose reader turns `KEY: false` into --no-KEY.
struct ServeArgsWithConfig {
  std::vector<std::string> args, origins;
  std::vector<std::string> notes;  // keys vLLM's reader drops
};
ServeArgsWithConfig ExpandServeConfigFile(const std::vector<std::string>& given, const VllmVersion& modelled);

}  // namespace kvsim

#endif  // KVSIM_CLI_YAML_CONFIG_H_
