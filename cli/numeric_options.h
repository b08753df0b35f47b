// One validator for every numeric command-line option: each has a documented valid range (the
// README's "Limits, errors and exit codes" lists them), and NaN, infinity and values outside it are
// refused with the option's name and the accepted range. An option added later and not listed
// still gets the default range, so no numeric option ever reaches the engine unchecked.
#ifndef KVSIM_SIM_CLI_NUMERIC_OPTIONS_H_
#define KVSIM_SIM_CLI_NUMERIC_OPTIONS_H_

#include <string>

#include <boost/program_options.hpp>

namespace kvsim {

struct OptionRange {
  double lo;
  double hi;
  bool lo_open;  // true: lo itself is refused (a rate, a scale or a step time of 0 means nothing)
};

// The range of `--option` (name without dashes); unlisted options get [0, 2^53].
OptionRange NumericOptionRange(const std::string& option);

// "(0, 1e+06]" or "[0, 1]".
std::string RangeText(const OptionRange& range);

// Throws kvsim::Error "--option: V is outside the accepted range R" (NaN and infinity included).
void CheckOptionValue(const std::string& option, double value);

// Checks every option in `vm` the user gave that holds a number (int, int64, uint64, double) or a
// number typed as text for a numeric option (e.g. --max-model-len 32k is checked where it is parsed).
void ValidateNumericOptions(const boost::program_options::variables_map& vm);

}  // namespace kvsim

#endif  // KVSIM_SIM_CLI_NUMERIC_OPTIONS_H_
