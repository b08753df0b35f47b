// Options that contradict each other, and options that mean something only beside another option's
// value: declared once (option_rules.cpp) and checked after parsing by every command, so no option
// is accepted and then ignored because another one made it moot; and stray positional words, which
// no command takes.
#ifndef KVSIM_CLI_OPTION_RULES_H_
#define KVSIM_CLI_OPTION_RULES_H_

#include <string>

#include <boost/program_options.hpp>

namespace kvsim {

// Throws kvsim::Error naming both options and why, for the first rule `vm` breaks. Only options the
// user gave count as given; a rule about an option the command does not have never applies.
void CheckOptionRules(const boost::program_options::variables_map& vm);

// "--no-enable-prefix-caching" -> "--enable-prefix-caching": the setting a flag or its negation sets.
std::string SettingOfFlag(const std::string& flag);

// kvsim's commands take options only: a stray word (a model id typed without --model, a server
// command line without `--`) is an error naming it, never silently ignored.
void RejectPositionalArguments(const boost::program_options::parsed_options& parsed);

}  // namespace kvsim

#endif  // KVSIM_CLI_OPTION_RULES_H_
