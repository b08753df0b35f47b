#include "kvcache/base/checked_math.h"

#include <cmath>

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"

namespace kvsim {

int64_t MulOrThrow(int64_t a, int64_t b, const std::string& what) {
  if (auto r = CheckedMul(a, b)) return *r;
  throw Error(what + ": " + std::to_string(a) + " x " + std::to_string(b) + " overflows 64-bit integers");
}

int64_t AddOrThrow(int64_t a, int64_t b, const std::string& what) {
  if (auto r = CheckedAdd(a, b)) return *r;
  throw Error(what + ": " + std::to_string(a) + " + " + std::to_string(b) + " overflows 64-bit integers");
}

int64_t RoundToInt64OrThrow(double v, int64_t lo, int64_t hi, const std::string& what) {
  // Compare as doubles first: converting an out-of-range double to int64 is undefined.
  if (!std::isfinite(v) || v < static_cast<double>(lo) - 0.5 || v > static_cast<double>(hi) + 0.5)
    throw Error(what + ": " + Format("%g", v) + " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return static_cast<int64_t>(std::llround(v));
}

}  // namespace kvsim
