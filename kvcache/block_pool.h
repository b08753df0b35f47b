// BlockPool: the blocks of a paged KV cache, as vLLM v1's BlockPool keeps them.
//
// Block 0 is the null block (a placeholder for blocks skipped by sliding windows); it is never
// handed out, freed or cached. Every other block is either in use (ref_count >= 1) or in the free
// queue (ref_count == 0). The free queue is a doubly-linked list in LRU order: allocation pops the
// front, freed blocks are appended at the back. A free block that still carries a prefix key is
// "cached": it stays findable through the prefix index until it is popped for reuse (lazy eviction).
//
// The prefix index (vLLM's cached_block_hash_to_block, one block per key) is kept by runs: the
// keys of a prompt come in runs of key_group() consecutive blocks (a trace block of several pool
// blocks: prefix_keys.h) in which the key of the run's first block, its leader, and a block's
// position determine the block's key. One map entry per run (leader -> run) holds the run's blocks
// by position, so registering and evicting a block touch its run, not a hash table; the blocks of
// a run are registered, freed and evicted together, so the run stays in cache meanwhile. Keys whose
// producer declares no such structure use runs of one block. The free queue keeps its exact
// per-block LRU order; runs change only how keys are found. What a request does to many blocks at
// once has a bulk form (PopFront(n, ...), PushBackTailFirst, AssignKeys) that is the same sequence
// of single-block operations, done in one pass.
//
// Invariants (CheckKeyIndex, and PagedAllocator::CheckInvariants for the rest):
//   - a block is in the free queue iff its ref_count is 0 (null block excepted);
//   - block b is keyed iff a live run holds b at a position, and then its record names that slot;
//     a run is live iff it holds a block, and then the map holds it under its leader;
//   - filled_slots <= block_size; only full blocks are keyed.
// Complexity: every operation O(1) except the run map's hashing (once per run).
//
// Without prefix caching no key ever exists, so which free block is handed out cannot change any
// result; the pool then keeps its free blocks in a LIFO stack instead of the LRU list (recently
// freed blocks are still in cache). With prefix caching the exact LRU order is kept.
#ifndef KVSIM_KVCACHE_BLOCK_POOL_H_
#define KVSIM_KVCACHE_BLOCK_POOL_H_

#include <cstdint>
#include <vector>

#include "kvcache/base/check.h"
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
  // REQUIRES: num_blocks >= 2 (the null block and one usable block). Under kLifo, AssignKeys and
  // Remove must not be used.
  explicit BlockPool(int64_t num_blocks, FreeBlockOrder order = FreeBlockOrder::kLru);
  FreeBlockOrder order() const { return lru_ ? FreeBlockOrder::kLru : FreeBlockOrder::kLifo; }

  int64_t num_blocks() const { return static_cast<int64_t>(blocks_.size()); }
  int64_t num_queued() const { return num_queued_; }        // free + cached
  int64_t num_cached() const { return num_cached_; }        // queued and keyed

  Block& at(BlockId b) { return blocks_[b]; }
  const Block& at(BlockId b) const { return blocks_[b]; }
  // The key block b carries. REQUIRES: at(b).keyed.
  BlockKey key(BlockId b) const { return index_of_[b].key; }

  // Pops the least recently freed block; drops its key (evicting it from the cache).
  // REQUIRES: num_queued() > 0.
  BlockId PopFront() {
    BlockId b = kNoBlock;
    PopFront(1, &b, [](BlockId) {});
    return b;
  }
  void PushBack(BlockId b) {
    PushBackTailFirst(&b, 1, [](BlockId, const Block&) { return true; });
  }
  // n PopFront calls, the blocks written to out[0..n): the front run of the queue, unlinked as a
  // whole. before_pop(b) is called on each block while it still carries its key.
  // REQUIRES: num_queued() >= n.
  template <typename F>
  void PopFront(int64_t n, BlockId* out, F&& before_pop) {
    KVSIM_DCHECK(n <= num_queued_);
    if (!lru_) {
      for (int64_t k = 0; k < n; ++k) out[k] = PopFrontLifo();
      return;
    }
    // speed: the queue's ends and counts live in locals here; stores to the blocks would otherwise
    // make the compiler reload the members after each one.
    BlockId b = head_next_;
    int64_t uncached = 0;
    for (int64_t k = 0; k < n; ++k) {
      Block& blk = blocks_[b];
      before_pop(b);
      out[k] = b;
      const BlockId next = blk.next;
      // The queue visits blocks all over memory: start fetching the next one (and its index entry)
      // while this one is unindexed.
      if (next != kNoBlock) {
        __builtin_prefetch(&blocks_[next]);
        __builtin_prefetch(&index_of_[next]);
      }
      if (blk.keyed) {
        ++uncached;
        Unindex(b);
      }
      blk.prev = blk.next = kNoBlock;
      blk.queued = false;
      blk.filled_slots = 0;
      b = next;
    }
    head_next_ = b;
    if (b == kNoBlock) tail_prev_ = kNoBlock; else blocks_[b].prev = kNoBlock;
    num_queued_ -= n;
    num_cached_ -= uncached;
  }
  // For blocks[n − 1], ..., blocks[0] (a request's blocks, tail first, as vLLM frees them): calls
  // released(block, its record), and appends the block as PushBack would if that returns true.
  template <typename F>
  void PushBackTailFirst(const BlockId* blocks, size_t n, F&& released) {
    if (!lru_) {
      for (size_t i = n; i-- > 0;)
        if (released(blocks[i], blocks_[blocks[i]])) PushBackLifo(blocks[i]);
      return;
    }
    BlockId tail = tail_prev_;
    int64_t queued = 0, cached = 0;
    for (size_t i = n; i-- > 0;) {
      // A finished request's blocks were last touched long ago: fetch ahead.
      if (i >= 8) __builtin_prefetch(&blocks_[blocks[i - 8]]);
      const BlockId b = blocks[i];
      Block& blk = blocks_[b];
      if (!released(b, blk)) continue;
      KVSIM_DCHECK(!blk.queued && blk.ref_count == 0 && b != kNullBlock);
      blk.queued = true;
      blk.prev = tail;
      blk.next = kNoBlock;
      if (tail == kNoBlock) head_next_ = b; else blocks_[tail].next = b;
      tail = b;
      ++queued;
      cached += blk.keyed;
    }
    tail_prev_ = tail;
    num_queued_ += queued;
    num_cached_ += cached;
  }
  // Unlinks a queued block (a prefix hit on a cached block). REQUIRES: at(b).queued.
  void Remove(BlockId b) {
    Block& blk = blocks_[b];
    KVSIM_DCHECK(blk.queued && lru_);
    if (blk.prev == kNoBlock) head_next_ = blk.next; else blocks_[blk.prev].next = blk.next;
    if (blk.next == kNoBlock) tail_prev_ = blk.prev; else blocks_[blk.next].prev = blk.prev;
    blk.prev = blk.next = kNoBlock;
    blk.queued = false;
    --num_queued_;
    num_cached_ -= blk.keyed;
  }

  // Blocks per run of the index. Before a request's keys are looked up or registered, UseKeyGroup
  // with the run length its keys' producer declares (AdmitRequest::prefix_key_group): the index
  // keeps its runs if their length divides it, starts over with it if nothing is indexed, and
  // otherwise re-indexes every key as a run of one (always valid). Only the index's representation
  // changes, never what it finds, hence const.
  int64_t key_group() const { return group_; }
  void UseKeyGroup(int64_t group) const;
  // The live run whose first key is `leader`, or -1.
  int32_t FindRun(BlockKey leader) const { return run_map_.Find(leader); }
  // The block cached or in use under the key at position `pos` of run `run` (-1: none).
  BlockId RunBlock(int32_t run, int64_t pos) const {
    return run < 0 ? kNoBlock : run_blocks_[static_cast<size_t>(run * group_ + pos)];
  }
  // Makes full block blocks[i] findable under keys[i], position pos + i of the run led by `leader`
  // (i < n: the consecutive full blocks of one run, registered together), unless another block
  // already is (vLLM keeps the first; the duplicate stays an ordinary block) or the block carries
  // a key already. REQUIRES: pos + n <= key_group().
  void AssignKeys(const BlockId* blocks, const BlockKey* keys, int64_t n, BlockKey leader, int64_t pos);

  // The run map (leader -> run), for statistics.
  const BlockKeyMap& key_map() const { return run_map_; }
  // KVSIM_CHECKs the prefix index against the blocks' records (O(pool + runs)).
  void CheckKeyIndex() const;
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
  struct Run {
    BlockKey leader = 0;
    int32_t live = 0;  // positions holding a block
  };
  struct IndexEntry {  // per block, while keyed
    BlockKey key = 0;
    int32_t slot = -1;  // run * group_ + position
  };
  BlockId PopFrontLifo();
  void PushBackLifo(BlockId b);
  void Unindex(BlockId b) {
    const int32_t slot = index_of_[b].slot;
    const int32_t run = shift_ >= 0 ? slot >> shift_ : static_cast<int32_t>(slot / group_);
    run_blocks_[static_cast<size_t>(slot)] = kNoBlock;
    if (--runs_[static_cast<size_t>(run)].live == 0) DropRun(run);
    blocks_[b].keyed = false;
  }
  void DropRun(int32_t run);
  int32_t NewRun(BlockKey leader) const;
  void Reindex(int64_t group) const;

  bool lru_ = true;
  std::vector<BlockId> stack_;  // LIFO mode's freed blocks, top at the back; below them fresh_, fresh_ + 1, ...
  BlockId fresh_ = 1;           // LIFO mode: blocks from here on were never handed out (queued)
  std::vector<Block> blocks_;
  BlockId head_next_ = kNoBlock;  // first queued block
  BlockId tail_prev_ = kNoBlock;  // last queued block
  int64_t num_queued_ = 0;
  int64_t num_cached_ = 0;
  // The prefix index (a representation that UseKeyGroup may change under const).
  mutable std::vector<IndexEntry> index_of_;  // per block
  mutable BlockKeyMap run_map_;               // leader -> run
  mutable std::vector<Run> runs_;
  mutable std::vector<BlockId> run_blocks_;   // run r's blocks at [r·group_, (r+1)·group_), kNoBlock where none
  mutable std::vector<int32_t> free_runs_;    // runs with no block, for reuse
  mutable int64_t group_ = 1;
  mutable int shift_ = 0;                     // log2(group_) when a power of two, else -1
};

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BLOCK_POOL_H_
