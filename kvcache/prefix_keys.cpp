#include "kvcache/prefix_keys.h"

#include <algorithm>

namespace kvsim {
namespace {

uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

constexpr BlockKey kRootKey = 0x6b7673696d2d6b76ULL;  // parent of block 0

}  // namespace

BlockKey ChainKey(BlockKey parent, uint64_t content) { return Mix(Mix(parent) ^ content); }

std::vector<BlockKey> KeysFromTraceBlocks(std::span<const uint64_t> trace_ids, int64_t trace_block_tokens,
                                          int64_t prompt_tokens, int64_t block_size) {
  std::vector<BlockKey> keys;
  const int64_t covered = std::min<int64_t>(prompt_tokens, static_cast<int64_t>(trace_ids.size()) * trace_block_tokens);
  const int64_t full = covered / block_size;
  keys.reserve(static_cast<size_t>(full));
  BlockKey parent = kRootKey;
  for (int64_t j = 0; j < full; ++j) {
    const int64_t begin = j * block_size, end = begin + block_size;  // [begin, end) tokens
    const int64_t first = begin / trace_block_tokens, last = (end - 1) / trace_block_tokens;
    uint64_t content = Mix(static_cast<uint64_t>(begin - first * trace_block_tokens));
    for (int64_t t = first; t <= last; ++t) content = Mix(content ^ trace_ids[static_cast<size_t>(t)]);
    parent = ChainKey(parent, content);
    keys.push_back(parent);
  }
  return keys;
}

}  // namespace kvsim
