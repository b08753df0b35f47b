#include "cli/serve_flag_values.h"

#include <cctype>
#include <string>

#include "kvcache/base/error.h"
#include "kvcache/base/quantity_parse.h"

namespace kvsim {
namespace {

// Values of vLLM's flags that kvsim's own flag of the same name does not take, each with what kvsim plans it as
// (tests/data/vllm_serve_flags.tsv cites each).
const ServeFlagValue kVllmFlagValues[] = {
    // The online quantization shorthands of PR #38138 ("new online quantization frontend"): fp8_per_tensor is
    // what kvsim's on-the-fly fp8 is (per-tensor scales); fp8_per_block keeps one scale per 128x128 block.
    {"--quantization", "fp8_per_tensor", FlagAddedBetween(16, 30), "fp8", ""},
    {"--quantization", "fp8_per_block", FlagAddedBetween(16, 30), "fp8",
     "--quantization fp8_per_block (planned as fp8 with one scale per tensor, not per 128x128 block)"},
    {"--quantization", "int8_per_channel_weight_only", FlagAddedBetween(16, 30), "", ""},
    {"--quantization", "mxfp8", FlagAddedBetween(16, 30), "", ""},
    // KV cache formats of vLLM's CacheDType (vllm/config/cache.py; PR #53299 lists the 17 values) that kvsim's
    // cache layout has no entry for: their scales and packing change the bytes per token.
    {"--kv-cache-dtype", "int8_per_token_head", FlagAddedBetween(16, 30), "", ""},
    {"--kv-cache-dtype", "fp8_per_token_head", FlagAddedBetween(16, 30), "", ""},
    {"--kv-cache-dtype", "int4_per_token_head", kAddedAfterV011, "", ""},
    {"--kv-cache-dtype", "nvfp4", kAddedAfterV011, "", ""},
    {"--kv-cache-dtype", "nvfp4_4over6", kAddedAfterV011, "", ""},
    {"--kv-cache-dtype", "turboquant_k8v4", kAddedAfterV011, "", ""},
    {"--kv-cache-dtype", "turboquant_4bit_nc", kAddedAfterV011, "", ""},
    {"--kv-cache-dtype", "turboquant_k3v4_nc", kAddedAfterV011, "", ""},
    {"--kv-cache-dtype", "turboquant_3bit_nc", kAddedAfterV011, "", ""},
    // MoonEP's balanced expert-parallel all-to-all, in vLLM v0.31.0's release notes (PR #52101).
    {"--all2all-backend", "moonep", FlagAddedIn(31), "", ""},
};

// Python's int() of a command-line word: spaces around it, one sign, ASCII digits with single underscores between
// them (int() also reads other scripts' digits, which kvsim refuses rather than guess at).
std::string PythonInt(const std::string& canonical, const std::string& value) {
  const size_t first = value.find_first_not_of(" \t"), last = value.find_last_not_of(" \t");
  const std::string word = first == std::string::npos ? std::string() : value.substr(first, last - first + 1);
  std::string digits;
  size_t at = !word.empty() && (word[0] == '+' || word[0] == '-') ? 1 : 0;
  bool valid = at < word.size();
  for (; at < word.size() && valid; ++at) {
    const bool underscore = word[at] == '_' && !digits.empty() && at + 1 < word.size() &&
                            std::isdigit(static_cast<unsigned char>(word[at + 1]));
    if (std::isdigit(static_cast<unsigned char>(word[at]))) digits += word[at];
    else if (!underscore) valid = false;
  }
  if (valid && digits.size() > 18) throw Error(canonical + ": '" + value + "' is far larger than any deployment (kvsim takes 18 digits)");
  if (!valid)
    throw Error(canonical + ": '" + value + "' is not an integer to vLLM, whose argparse reads it with int() (no k/K "
                "suffix, no decimal point or exponent); argparse refuses it");
  return (word[0] == '-' ? "-" : "") + digits;
}

// Python's float() of a command-line word, as kvsim's number parser then takes it: the spaces around it dropped,
// and the underscores it allows between digits (0.9_5 is 0.95). The rest is left for kvsim's parser to read or
// refuse (it takes what float() takes but for nan and inf, which vLLM's range checks refuse too).
std::string PythonFloat(const std::string& value) {
  const size_t first = value.find_first_not_of(" \t"), last = value.find_last_not_of(" \t");
  const std::string word = first == std::string::npos ? std::string() : value.substr(first, last - first + 1);
  std::string out;
  for (size_t i = 0; i < word.size(); ++i) {
    const bool between_digits = i > 0 && i + 1 < word.size() && std::isdigit(static_cast<unsigned char>(word[i - 1])) &&
                                std::isdigit(static_cast<unsigned char>(word[i + 1]));
    if (word[i] == '_' && between_digits) continue;
    out += word[i];
  }
  return out;
}

}  // namespace

std::string AsVllmParsesIt(const std::string& canonical, const std::string& value) {
  // vLLM's EngineArgs types kv_cache_memory_bytes as human_readable_int, like max_model_len: 8GiB and 1e10, which
  // kvsim's own --kv-cache-memory takes, are not integers to it.
  if (canonical == "--kv-cache-memory-bytes") return std::to_string(ParseTokenCount(value, canonical));
  // Integer fields outside EngineArgs' human_readable_int set are argparse type=int: 1k and 256.0, which kvsim's
  // own flags take, are refused there, and 1_024 is 1024.
  for (const char* plain : {"--max-num-seqs", "--num-gpu-blocks-override", "--tensor-parallel-size",
                            "--pipeline-parallel-size", "--data-parallel-size"})
    if (canonical == plain) return PythonInt(canonical, value);
  if (canonical == "--gpu-memory-utilization" || canonical == "--cpu-offload-gb") return PythonFloat(value);
  return value;
}

const ServeFlagValue* FindServeFlagValue(const ServeFlag& flag, const std::string& value) {
  for (const ServeFlagValue& v : kVllmFlagValues)
    if (flag.name == std::string(v.flag) && value == v.value) return &v;
  return nullptr;
}


}  // namespace kvsim
