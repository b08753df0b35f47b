// `vllm serve --config FILE.yaml`: the YAML file turned into the flags vLLM's FlexibleArgumentParser
// makes of it (vllm/utils/argparse_utils.py, load_config_file): each top-level key KEY becomes --KEY;
// `true` becomes the bare switch; a list becomes --KEY followed by its items; a mapping (nested
// speculative-config, compilation-config, ...) becomes --KEY and its JSON text; any other scalar
// becomes --KEY and its text. vLLM drops a key set to `false`; the reader keeps a note of each, so
// the pasted line can say so instead of dropping it silently.
#ifndef KVSIM_CLI_YAML_CONFIG_H_
#define KVSIM_CLI_YAML_CONFIG_H_

#include <string>
#include <vector>

namespace kvsim {

// One flag or value the file produced, and where it came from ("FILE:LINE: key 'KEY'"), so an
// error about it names the file, the line and the key.
struct ConfigToken {
  std::string text;
  std::string origin;
};

struct ServeConfigFile {
  std::vector<ConfigToken> tokens;
  std::vector<std::string> dropped_false;  // "FILE:LINE: KEY" for each key vLLM drops
};

// `text` is the file's content, `name` the path it is reported as. Throws kvsim::Error naming the
// file and line for YAML that does not parse, a top level that is not a mapping, a key that is not a
// plain name, and a key without a value (vLLM would pass the string "None" to the flag).
ServeConfigFile ParseServeConfigYaml(const std::string& text, const std::string& name);

// Reads `path` (at most 1 MiB; vLLM requires the .yaml or .yml extension, and so does this).
ServeConfigFile ReadServeConfigYaml(const std::string& path);

}  // namespace kvsim

#endif  // KVSIM_CLI_YAML_CONFIG_H_
