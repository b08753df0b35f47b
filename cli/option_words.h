// An option string split into words, as a shell would for simple cases: what `kvsim compare`
// specs and pasted server command lines hold.
#ifndef KVSIM_CLI_OPTION_WORDS_H_
#define KVSIM_CLI_OPTION_WORDS_H_

#include <string>
#include <vector>

namespace kvsim {

// Whitespace separates, single or double quotes group (inside double quotes \" and \\ stand for
// " and \). A word that starts with '{' or '[' is a JSON value, taken verbatim to its closing
// bracket, spaces and quotes included. Throws kvsim::Error, naming `what` (where the text came
// from), on an unterminated quote or JSON value.
std::vector<std::string> SplitOptionString(const std::string& text, const std::string& what);

}  // namespace kvsim

#endif  // KVSIM_CLI_OPTION_WORDS_H_
