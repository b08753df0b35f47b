// BlockPool: the blocks of a paged KV cache, as vLLM v1's BlockPool keeps them.
//
// Block 0 is the null block (a placeholder for blocks skipped by sliding windows); it is never
// handed out, freed or cached. Every other block is either in use (ref_count >= 1) or in the free
// queue (ref_count == 0). The free queue is a doubly-linked list in LRU order: allocation pops the
// front, freed blocks are appended at the back. A free block that still carries a prefix key is
// "cached": it stays findable through the key map until it is popped for reuse (lazy eviction).
//
// Invariants (PagedAllocator::CheckInvariants walks them):
//   - a block is in the free queue iff its ref_count is 0 (null block excepted);
//   - every keyed block b is in the key map under key(b); a map entry (k, b) is live iff b.keyed
//     and key(b) == k, stale otherwise (left behind when b was evicted: see PopFront);
//   - filled_slots <= block_size; only full blocks are keyed.
// Complexity: every operation O(1) except the key map's hashing.
//
// Without prefix caching no key ever exists, so which free block is handed out cannot change any
// result; the pool then keeps its free blocks in a LIFO stack instead of the LRU list (recently
// freed blocks are still in cache). With prefix caching the exact LRU order is kept.
#ifndef KVSIM_KVCACHE_BLOCK_POOL_H_
#define KVSIM_KVCACHE_BLOCK_POOL_H_

#include <cstdint>
#include <vector>

#include "kvcache/block_key_map.h"
#include "kvcache/kv_allocator.h"

namespace kvsim {

using BlockId = int32_t;
inline constexpr BlockId kNullBlock = 0;
inline constexpr BlockId kNoBlock = -1;

// How free blocks are handed out.
enum class FreeBlockOrder {
  kLru,   // vLLM's free queue: least recently freed first (what prefix caching needs)
  kLifo,  // a stack: the most recently freed block first; only when no block can carry a key
};

// 16 bytes, so that the metadata of a large pool stays in cache (the free queue visits blocks in
// LRU order, i.e. all over memory). Keys live in a side array.
struct Block {
  BlockId prev = kNoBlock;      // free-queue links; kNoBlock when not queued
  BlockId next = kNoBlock;
  int32_t ref_count = 0;
  uint16_t filled_slots = 0;    // slots holding computed tokens (block_size <= 32768)
  bool queued = false;
  bool keyed = false;
};
static_assert(sizeof(Block) == 16, "Block metadata should stay 16 bytes");

class BlockPool {
 public:
  // REQUIRES: num_blocks >= 2 (the null block and one usable block). Under kLifo, AssignKey and
  // Remove must not be used.
  explicit BlockPool(int64_t num_blocks, FreeBlockOrder order = FreeBlockOrder::kLru);
  FreeBlockOrder order() const { return lru_ ? FreeBlockOrder::kLru : FreeBlockOrder::kLifo; }

  int64_t num_blocks() const { return static_cast<int64_t>(blocks_.size()); }
  int64_t num_queued() const { return num_queued_; }        // free + cached
  int64_t num_cached() const { return num_cached_; }        // queued and keyed

  Block& at(BlockId b) { return blocks_[b]; }
  const Block& at(BlockId b) const { return blocks_[b]; }
  BlockKey key(BlockId b) const { return keys_[b]; }

  // Pops the least recently freed block; drops its key (evicting it from the cache). The key map's
  // entry is left in place, stale: the block's record no longer vouches for it, and the map
  // overwrites or purges it later (kvcache/block_key_map.h), which spares a probe into the map per
  // reused block.
  // REQUIRES: num_queued() > 0.
  BlockId PopFront();
  void PushBack(BlockId b);
  // Unlinks a queued block (a prefix hit on a cached block). REQUIRES: at(b).queued.
  void Remove(BlockId b);

  // The block cached or in use under `key`, or kNoBlock.
  BlockId Lookup(BlockKey key) const;
  // Makes full block `b` findable under `key` unless another block already is (vLLM keeps the
  // first; the duplicate stays an ordinary block).
  void AssignKey(BlockId b, BlockKey key);

  const BlockKeyMap& key_map() const { return key_map_; }
  BlockId front() const { return head_next_; }
  // Calls f(block) for every queued block, front (next to be handed out) first.
  template <typename F>
  void ForEachQueued(F&& f) const {
    if (!lru_) {
      for (auto it = stack_.rbegin(); it != stack_.rend(); ++it) f(*it);
      for (BlockId b = fresh_; b < static_cast<BlockId>(blocks_.size()); ++b) f(b);
      return;
    }
    for (BlockId b = head_next_; b != kNoBlock; b = blocks_[b].next) f(b);
  }

 private:
  // Whether map entry (key, b) is live: b still carries key.
  struct CarriesKey {
    const BlockPool* pool;
    bool operator()(BlockKey key, int32_t b) const { return pool->blocks_[b].keyed && pool->keys_[b] == key; }
  };

  bool lru_ = true;
  std::vector<BlockId> stack_;  // LIFO mode's freed blocks, top at the back; below them fresh_, fresh_ + 1, ...
  BlockId fresh_ = 1;           // LIFO mode: blocks from here on were never handed out (queued)
  std::vector<Block> blocks_;
  std::vector<BlockKey> keys_;
  BlockKeyMap key_map_;
  BlockId head_next_ = kNoBlock;  // first queued block
  BlockId tail_prev_ = kNoBlock;  // last queued block
  int64_t num_queued_ = 0;
  int64_t num_cached_ = 0;
};

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BLOCK_POOL_H_
