#include "kvcache/block_pool.h"

#include "kvcache/base/check.h"

namespace kvsim {

BlockPool::BlockPool(int64_t num_blocks, FreeBlockOrder order)
    : lru_(order == FreeBlockOrder::kLru),
      blocks_(static_cast<size_t>(num_blocks), Block{kNoBlock, kNoBlock, 0, 0, !lru_, false}),
      keys_(lru_ ? static_cast<size_t>(num_blocks) : 0, 0) {
  KVSIM_DCHECK(num_blocks >= 2);
  // Initially ordered by block id, like vLLM's FreeKVCacheBlockQueue (block 1 handed out first).
  if (lru_) {
    for (BlockId b = 1; b < static_cast<BlockId>(num_blocks); ++b) PushBack(b);
    return;
  }
  // speed: the stack's bottom, blocks fresh_.. in that order from the top, is implicit (a replay
  // touches only the blocks its peak needs; pushing every id cost a pass over the pool per run).
  blocks_[kNullBlock].queued = false;
  stack_.reserve(static_cast<size_t>(num_blocks));
  num_queued_ = num_blocks - 1;
}

BlockId BlockPool::PopFront() {
  KVSIM_DCHECK(num_queued_ > 0);
  if (!lru_) {
    BlockId b;
    if (!stack_.empty()) {
      b = stack_.back();
      stack_.pop_back();
    } else {
      b = fresh_++;
    }
    blocks_[b].queued = false;
    blocks_[b].filled_slots = 0;
    --num_queued_;
    return b;
  }
  const BlockId b = head_next_;
  Remove(b);
  blocks_[b].keyed = false;  // its map entry goes stale
  blocks_[b].filled_slots = 0;
  return b;
}

void BlockPool::PushBack(BlockId b) {
  Block& blk = blocks_[b];
  KVSIM_DCHECK(!blk.queued && blk.ref_count == 0 && b != kNullBlock);
  if (!lru_) {
    blk.queued = true;
    stack_.push_back(b);
    ++num_queued_;
    return;
  }
  blk.queued = true;
  blk.prev = tail_prev_;
  blk.next = kNoBlock;
  if (tail_prev_ == kNoBlock) head_next_ = b; else blocks_[tail_prev_].next = b;
  tail_prev_ = b;
  ++num_queued_;
  if (blk.keyed) ++num_cached_;
}

void BlockPool::Remove(BlockId b) {
  Block& blk = blocks_[b];
  KVSIM_DCHECK(blk.queued && lru_);
  if (blk.prev == kNoBlock) head_next_ = blk.next; else blocks_[blk.prev].next = blk.next;
  if (blk.next == kNoBlock) tail_prev_ = blk.prev; else blocks_[blk.next].prev = blk.prev;
  blk.prev = blk.next = kNoBlock;
  blk.queued = false;
  --num_queued_;
  if (blk.keyed) --num_cached_;
}

BlockId BlockPool::Lookup(BlockKey key) const {
  return key_map_.Find(key, CarriesKey{this});
}

void BlockPool::AssignKey(BlockId b, BlockKey key) {
  KVSIM_DCHECK(lru_);
  Block& blk = blocks_[b];
  if (blk.keyed) return;
  if (!key_map_.Insert(key, b, CarriesKey{this})) return;
  blk.keyed = true;
  keys_[b] = key;
  if (blk.queued) ++num_cached_;
}

}  // namespace kvsim
