// A 128-bit integer for exact sums of products that outgrow 64 bits: KV slots × nanoseconds
// integrated over a week of replayed traffic reach 10^22. Exact integer sums do not depend on the
// order of the additions, so a run of steps summed in closed form equals the steps summed one by one.
#ifndef KVSIM_KVCACHE_BASE_WIDE_INT_H_
#define KVSIM_KVCACHE_BASE_WIDE_INT_H_

namespace kvsim {

__extension__ typedef __int128 Int128;  // GCC and Clang; __extension__ keeps -Wpedantic quiet

inline double ToDouble(Int128 x) { return static_cast<double>(x); }

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BASE_WIDE_INT_H_
