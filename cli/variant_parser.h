// Deployments given as option sets on top of a base command line, for `kvsim compare` and
// `kvsim sweep`: "--model X --quantization awq" applied over the shared flags, the last occurrence
// of an option winning.
#ifndef KVSIM_SIM_CLI_VARIANT_PARSER_H_
#define KVSIM_SIM_CLI_VARIANT_PARSER_H_

#include <string>
#include <vector>

#include "kvcache/budget/deployment.h"
#include "cli/option_words.h"
#include "sim/sweep/variant.h"

namespace kvsim {

// Parses base_args + overrides (later options replace earlier ones) into a runnable variant.
// Throws kvsim::Error (or a Boost option error) naming the offending option.
Variant ParseVariant(const std::string& label, const std::vector<std::string>& base_args,
                     const std::vector<std::string>& overrides, const std::string& data_dir,
                     ResolveCache* cache = nullptr);

}  // namespace kvsim

#endif  // KVSIM_SIM_CLI_VARIANT_PARSER_H_
