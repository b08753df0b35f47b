// Invariant checks, in two levels:
//   KVSIM_CHECK(cond, message)   always on; a failure throws InternalError (exit 3: a bug).
//   KVSIM_DCHECK(cond)           debug builds only (compiled out under NDEBUG, like assert); for
//                                checks on hot paths. The CI's Debug + sanitizer build runs them.
// The message of KVSIM_CHECK is only built when the check fails.
#ifndef KVSIM_KVCACHE_BASE_CHECK_H_
#define KVSIM_KVCACHE_BASE_CHECK_H_

#include <string>

#include "kvcache/base/error.h"

namespace kvsim {

[[noreturn]] void FailCheck(const char* file, int line, const std::string& message);

}  // namespace kvsim

#define KVSIM_CHECK(cond, message)                                    \
  do {                                                                \
    if (!(cond)) ::kvsim::FailCheck(__FILE__, __LINE__, (message));   \
  } while (0)

#ifdef NDEBUG
#define KVSIM_DCHECK(cond) \
  do {                     \
  } while (0)
#define KVSIM_DEBUG_ONLY(statement) \
  do {                              \
  } while (0)
#else
#define KVSIM_DCHECK(cond) KVSIM_CHECK(cond, "debug check failed: " #cond)
#define KVSIM_DEBUG_ONLY(statement) \
  do {                              \
    statement;                      \
  } while (0)
#endif

#endif  // KVSIM_KVCACHE_BASE_CHECK_H_
