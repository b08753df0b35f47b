// The shell expansions a pasted launch line's arguments go through before the server sees them, for the
// forms scripts use to parameterize a serve line: variables set in the pasted text, defaults for unset
// ones, and integer arithmetic. Commands are never run.
#ifndef KVSIM_CLI_SHELL_EXPANSION_H_
#define KVSIM_CLI_SHELL_EXPANSION_H_

#include <string>
#include <vector>

namespace kvsim {

// One word with `$NAME`, `${NAME}`, `${NAME:-word}` (`-`, `:=`, `=`, `:+`, `+` too) and `$((expression))`
// expanded as a shell would, the variables taken from `assignments` (NAME=value, later ones win). A
// variable the text does not set stays as written where it stands alone (the flag reading it refuses it
// if it matters), takes its default where one is given, and is an error inside arithmetic (a shell would
// read it as 0, a guess). Arithmetic is 64-bit integer + - * / % ** with parentheses and unary signs.
// A command substitution (`$(command)` or backquotes) throws kvsim::Error: kvsim does not run commands.
std::string ExpandShellWord(const std::string& word, const std::vector<std::string>& assignments);

// The assignments with their values expanded in order, each seeing those before it (`N=4 M=$((N*2))`).
std::vector<std::string> ExpandAssignments(const std::vector<std::string>& assignments);

}  // namespace kvsim

#endif  // KVSIM_CLI_SHELL_EXPANSION_H_
