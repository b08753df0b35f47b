// Chained keys for prefix caching: the key of block i digests the key of block i − 1 and block i's
// content, so equal blocks at different prefixes get different keys (as vLLM's block hashes).
// Only full blocks get keys.
#ifndef KVSIM_KVCACHE_PREFIX_KEYS_H_
#define KVSIM_KVCACHE_PREFIX_KEYS_H_

#include <cstdint>
#include <span>
#include <vector>

#include "kvcache/kv_allocator.h"

namespace kvsim {

// Keys of the full blocks of a `prompt_tokens`-long prompt whose content a trace describes by
// block ids of `trace_block_tokens` tokens each (Mooncake `hash_ids`, 512 tokens): pool block j
// digests the chain of ids up to the last trace block it overlaps and its first token's position,
// so any pool block size maps onto the trace's, and two blocks share a key exactly when their
// whole prefixes agree. Blocks past the ids the trace gives get no key.
std::vector<BlockKey> KeysFromTraceBlocks(std::span<const uint64_t> trace_ids, int64_t trace_block_tokens,
                                          int64_t prompt_tokens, int64_t block_size);

// The same keys written into `out` (replacing its contents, reusing its capacity).
void KeysFromTraceBlocks(std::span<const uint64_t> trace_ids, int64_t trace_block_tokens, int64_t prompt_tokens,
                         int64_t block_size, std::vector<BlockKey>& out);

// The runs KeysFromTraceBlocks' keys come in (AdmitRequest::prefix_key_group): a trace block of
// whole pool blocks is a run, since the keys of its pool blocks digest the same chain of ids and
// their own positions; 1 when pool blocks straddle or span trace blocks.
inline int64_t KeyGroupOfTraceBlocks(int64_t trace_block_tokens, int64_t block_size) {
  if (block_size <= 0 || trace_block_tokens < block_size || trace_block_tokens % block_size != 0) return 1;
  return trace_block_tokens / block_size;
}

// The 64-bit mix (splitmix64 finaliser over the combination).
BlockKey ChainKey(BlockKey parent, uint64_t content);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_PREFIX_KEYS_H_
