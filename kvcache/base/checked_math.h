// Overflow-checked arithmetic for quantities derived from input (config sizes, token counts,
// times, rates and products of them). A result that does not fit is bad input, reported with what
// was being computed: kvsim::Error, never undefined behaviour or a silently wrapped number.
#ifndef KVSIM_KVCACHE_BASE_CHECKED_MATH_H_
#define KVSIM_KVCACHE_BASE_CHECKED_MATH_H_

#include <cstdint>
#include <optional>
#include <string>

namespace kvsim {

// nullopt on overflow.
inline std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// Throw kvsim::Error "`what`: ... overflows" when the result does not fit in 64 bits.
int64_t MulOrThrow(int64_t a, int64_t b, const std::string& what);
int64_t AddOrThrow(int64_t a, int64_t b, const std::string& what);

// A finite double within [lo, hi] as int64 (rounded to nearest); kvsim::Error naming `what`
// for NaN, infinity or a value outside the range.
int64_t RoundToInt64OrThrow(double v, int64_t lo, int64_t hi, const std::string& what);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BASE_CHECKED_MATH_H_
