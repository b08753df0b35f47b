// Values of vLLM's `vllm serve` flags that kvsim's flag of the same name does not take as given: each
// with what kvsim plans it as, or refused as not modelled (the translator, cli/vllm_command_line.cpp).
#ifndef KVSIM_CLI_SERVE_FLAG_VALUES_H_
#define KVSIM_CLI_SERVE_FLAG_VALUES_H_

#include <string>

#include "cli/serve_flags.h"

namespace kvsim {

// A value of a vLLM flag that kvsim's flag of the same name does not take as it is: `kvsim_value` is what
// kvsim plans it as (empty: not modelled, refused), `caveat` what the plan then leaves out (said with the
// flags not modelled; empty: nothing), `releases` the vLLM releases that take it.
struct ServeFlagValue {
  const char* flag;
  const char* value;
  FlagReleases releases;
  const char* kvsim_value;
  const char* caveat;
};
// The entry for `value` of vLLM's `flag`; null when kvsim's flag takes the value as it is (or refuses it).
const ServeFlagValue* FindServeFlagValue(const ServeFlag& flag, const std::string& value);

// `value` as vLLM's argparse reads it for the flag `canonical` and as kvsim's flag then takes it: unchanged, but
// for --kv-cache-memory-bytes, a human_readable_int to vLLM (digits; a decimal before k/m/g/t, x1000; K/M/G/T,
// x1024), given to kvsim's --kv-cache-memory in bytes, and for the integer flags argparse reads with int()
// (--max-num-seqs, --num-gpu-blocks-override, the parallel sizes), the decimal int() makes of it (1_024: 1024);
// --gpu-memory-utilization and --cpu-offload-gb as float() reads them (spaces around, 0.9_5).
// Throws kvsim::Error for what argparse refuses.
std::string AsVllmParsesIt(const std::string& canonical, const std::string& value);

}  // namespace kvsim

#endif  // KVSIM_CLI_SERVE_FLAG_VALUES_H_
