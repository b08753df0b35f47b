// The JSON-valued flags of a pasted `vllm serve` line (--speculative-config, --compilation-config /
// -cc, --kv-transfer-config, ...), as vLLM's FlexibleArgumentParser assembles them: a flag's whole
// JSON object, and its keys given one at a time in the dotted spelling (--X.a.b VALUE), merged into
// one object per flag.
#ifndef KVSIM_CLI_SERVE_JSON_FLAGS_H_
#define KVSIM_CLI_SERVE_JSON_FLAGS_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvsim {

// JSON as text for a kvsim flag; bytes that are not UTF-8 are written as U+FFFD, never thrown on.
std::string ServeJsonText(const nlohmann::json& j);

class ServeJsonFlags {
 public:
  // The flag's whole object. Returns false when it replaces a different object given earlier (argparse
  // keeps the last).
  bool SetWhole(const std::string& flag, nlohmann::json value, const std::string& as_given);

  // Key path `dotted` ("a.b") of the flag's object. Returns false when it replaces a different value
  // given earlier for the same path. A path ending in '+' ("a.b+") appends: `value` is the text's
  // comma-separated items as strings, added to the list given before, as vLLM's parser adds them
  // (vllm/utils/argparse_utils.py). Throws kvsim::Error on an empty key.
  bool SetDotted(const std::string& flag, const std::string& dotted, nlohmann::json value, const std::string& as_given);

  // One object per flag, in flag order: the whole object with the dotted keys merged in. A key set
  // both ways to different values is refused (vLLM's releases disagree on which wins), naming both.
  std::vector<std::pair<std::string, nlohmann::json>> Merged() const;

 private:
  struct Whole {
    nlohmann::json value;
    std::string as_given;
  };
  std::map<std::string, Whole> whole_;
  std::map<std::string, nlohmann::json> dotted_;
};

}  // namespace kvsim

#endif  // KVSIM_CLI_SERVE_JSON_FLAGS_H_
