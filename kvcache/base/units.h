// Byte units. kvsim prints GiB (2^30 bytes) everywhere and says so; GB (10^9) appears only where a
// source (a datasheet, a marketing name) uses it.
#ifndef KVSIM_KVCACHE_BASE_UNITS_H_
#define KVSIM_KVCACHE_BASE_UNITS_H_

#include <cstdint>

namespace kvsim {

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kMiB = 1024.0 * 1024.0;

inline double BytesToGiB(double bytes) { return bytes / kGiB; }
inline double GiBToBytes(double gib) { return gib * kGiB; }

// Ceiling division for non-negative integers (vLLM's cdiv). REQUIRES: a >= 0, b >= 1, a + b within int64.
inline constexpr int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BASE_UNITS_H_
