// kvsim reports every expected failure (bad config, bad option, a model that does not fit) by
// throwing kvsim::Error at a module boundary. The message is complete and one line: it names the
// file and field (or the option) and what is wrong, so the CLI can print it as is and exit 2.
// Broken internal invariants are not Errors; they are asserts.
#ifndef KVSIM_KVCACHE_ERROR_H_
#define KVSIM_KVCACHE_ERROR_H_

#include <stdexcept>
#include <string>

namespace kvsim {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_ERROR_H_
