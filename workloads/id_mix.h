// The hash that derives synthetic block and session ids from a seed and a counter, shared by the
// generators that write ids (prefix overlay, benchmark datasets) so the same inputs name the same
// content in both. A splitmix64 finaliser over a boost::hash_combine-style mix of the two words.
#ifndef KVSIM_WORKLOADS_ID_MIX_H_
#define KVSIM_WORKLOADS_ID_MIX_H_

#include <cstdint>

namespace kvsim {

inline uint64_t MixIds(uint64_t a, uint64_t b) {
  uint64_t x = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x632be59bd9b4e019ULL + (a << 6) + (a >> 2));
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace kvsim

#endif  // KVSIM_WORKLOADS_ID_MIX_H_
