// An option string split into words, as a shell would for simple cases: what `kvsim compare`
// specs, grid files and pasted server command lines hold.
#ifndef KVSIM_CLI_OPTION_WORDS_H_
#define KVSIM_CLI_OPTION_WORDS_H_

#include <string>
#include <vector>

namespace kvsim {

// Whitespace separates, single or double quotes group. Throws kvsim::Error on an unterminated quote.
std::vector<std::string> SplitOptionString(const std::string& text);

}  // namespace kvsim

#endif  // KVSIM_CLI_OPTION_WORDS_H_
