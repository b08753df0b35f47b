// How kvsim reports failures, and the process exit codes they become.
//
// Expected failures (a bad config, a bad option, a malformed trace row, a model that does not
// fit) are kvsim::Error, thrown where the bad input is found. The message is complete and one
// line: it names the file (line, column, field) or the option and what is wrong, so the CLI
// prints it as is and exits with kExitBadInput.
//
// A broken internal invariant is a bug, not bad input: InternalError (see check.h), exit
// kExitInternalError, with a request to report it.
#ifndef KVSIM_KVCACHE_BASE_ERROR_H_
#define KVSIM_KVCACHE_BASE_ERROR_H_

#include <stdexcept>
#include <string>

namespace kvsim {

inline constexpr int kExitOk = 0;
inline constexpr int kExitThresholdMissed = 1;  // a check ran but missed its threshold (validate)
inline constexpr int kExitBadInput = 2;         // a file, a field, an option, a model that does not fit
inline constexpr int kExitInternalError = 3;    // a bug in kvsim

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& message) : std::logic_error(message) {}
};

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BASE_ERROR_H_
