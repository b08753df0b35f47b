// Lets Boost.Program_options parse any enumeration with a name table (kvsim/base/enum_names.h):
// `po::value(&options.scheduler)` then accepts exactly the table's names, and a wrong value is
// reported as "--scheduler: 'x' is not one of vllm, vllm-v0". Boost finds this overload by
// argument-dependent lookup; the `int` parameter makes it a better match than Boost's own.
#ifndef KVSIM_SIM_CLI_ENUM_OPTION_H_
#define KVSIM_SIM_CLI_ENUM_OPTION_H_

#include <string>
#include <vector>

#include <boost/any.hpp>
#include <boost/program_options.hpp>

#include "kvcache/base/enum_names.h"

namespace kvsim {

template <typename E, typename = decltype(EnumNames<E>::kEntries)>
void validate(boost::any& value, const std::vector<std::string>& tokens, E*, int) {
  namespace po = boost::program_options;
  po::validators::check_first_occurrence(value);
  const std::string& text = po::validators::get_single_string(tokens);
  if (auto parsed = TryParseEnum<E>(text)) {
    value = boost::any(*parsed);
    return;
  }
  std::string shown;  // '%' would be read as a placeholder by Boost's message template
  for (char c : text) shown += c == '%' ? '?' : c;
  throw po::error_with_option_name("%canonical_option%: '" + shown + "' is not one of " + EnumChoices<E>(", "));
}

// "a | b | c" for help texts.
template <typename E>
std::string Choices() {
  return EnumChoices<E>(" | ");
}

}  // namespace kvsim

#endif  // KVSIM_SIM_CLI_ENUM_OPTION_H_
