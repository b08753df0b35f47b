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
  KeysFromTraceBlocks(trace_ids, trace_block_tokens, prompt_tokens, block_size, keys);
  return keys;
}

void KeysFromTraceBlocks(std::span<const uint64_t> trace_ids, int64_t trace_block_tokens, int64_t prompt_tokens,
                         int64_t block_size, std::vector<BlockKey>& keys) {
  keys.clear();
  const int64_t covered = std::min<int64_t>(prompt_tokens, static_cast<int64_t>(trace_ids.size()) * trace_block_tokens);
  const int64_t full = covered / block_size;
  // speed: written a batch at a time into reserved capacity (resize would zero every key first,
  // push_back check the capacity at every key).
  keys.reserve(static_cast<size_t>(full));
  constexpr int64_t kBatch = 64;
  BlockKey batch[kBatch];
  // Pool block j covers tokens [j·B, (j+1)·B) and so depends on the trace ids up to the last trace
  // block it overlaps; that prefix is chained once per trace block (not once per pool block), and
  // the block's start digests its position. Two pool blocks get equal keys exactly when they start
  // at the same token and the ids up to their last overlapped trace block agree, as full chaining
  // over the pool blocks would give, at one mix per pool block.
  BlockKey chain = kRootKey;
  size_t chained = 0;          // trace blocks digested into `chain`
  int64_t chained_tokens = 0;  // the tokens they cover
  uint64_t position = 0;       // begin · 0x9e3779b97f4a7c15 (mod 2^64), kept by addition
  const uint64_t step = static_cast<uint64_t>(block_size) * 0x9e3779b97f4a7c15ULL;
  int64_t end = block_size;   // of pool block j
  for (int64_t j = 0; j < full;) {
    // Digest up to the last trace block overlapping [end − B, end).
    for (; chained_tokens < end; ++chained, chained_tokens += trace_block_tokens) chain = ChainKey(chain, trace_ids[chained]);
    // Every pool block ending by chained_tokens shares this chain: keyed without re-checking it.
    const int64_t same_chain = std::min<int64_t>({full - j, (chained_tokens - end) / block_size + 1, kBatch});
    for (int64_t k = 0; k < same_chain; ++k) {
      batch[k] = Mix(chain ^ position);
      position += step;
    }
    keys.insert(keys.end(), batch, batch + same_chain);
    j += same_chain;
    end += same_chain * block_size;
  }
}


}  // namespace kvsim
