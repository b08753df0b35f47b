// PagedAllocator::CheckInvariants: walks every block, request and the free queue, and checks the
// incremental accounting against a recount. O(pool size); tests run it after every operation.
#include <string>
#include <vector>

#include "kvcache/base/check.h"
#include "kvcache/base/units.h"
#include "kvcache/paged_allocator.h"

namespace kvsim {

int64_t PagedAllocator::CheckOwners(std::vector<int32_t>& refs, BlockTotals& counted) const {
  const int64_t n = pool_.num_blocks();
  int64_t tail_reserved = 0;
  requests_.ForEach([&](RequestId id, const RequestState& r) {
    for (size_t g = 0; g < r.groups.size(); ++g) {
      const GroupBlocks& gb = r.groups[g];
      const int64_t logical = gb.held();
      if (groups_[g].kind == AttentionKind::kStateOnly) {  // one full page from the first token on
        KVSIM_CHECK(logical == (r.computed > 0 ? 1 : 0) && gb.tail_reserved == 0, "a state group holds other than one page");
        for (const BlockId b : gb.blocks) {
          KVSIM_CHECK(b > 0 && b < n && pool_.at(b).filled_slots == block_size_, "a state page is not a full, valid block");
          ++refs[b];
        }
        continue;
      }
      KVSIM_CHECK(logical == CeilDiv(r.computed, block_size_),
              "PagedAllocator: request " + std::to_string(id) + " holds " + std::to_string(logical) + " blocks for " +
                  std::to_string(r.computed) + " tokens");
      for (size_t i = 0; i < gb.blocks.size(); ++i) {
        const BlockId b = gb.blocks[i];
        KVSIM_CHECK(b > 0 && b < n, "request holds an invalid or null block");
        ++refs[b];
        const bool last = i + 1 == gb.blocks.size();
        const int64_t expect = last ? r.computed - (logical - 1) * block_size_ : block_size_;
        KVSIM_CHECK(pool_.at(b).filled_slots == expect, "block " + std::to_string(b) + " fill disagrees with its owner");
      }
      KVSIM_CHECK(counting_ || gb.counted == 0, "a counted block outside counting mode");
      KVSIM_CHECK(!counting_ || gb.blocks.empty(), "a block id held in counting mode");
      int64_t unfilled = gb.blocks.empty() ? 0 : block_size_ - pool_.at(gb.blocks.back()).filled_slots;
      if (counting_) {
        unfilled = Offset(r.computed) == 0 ? 0 : block_size_ - Offset(r.computed);
        counted.token += r.computed;
        counted.queued += gb.counted;
      }
      KVSIM_CHECK(gb.tail_reserved >= 0 && gb.tail_reserved <= unfilled, "tail reservation beyond unfilled");
      KVSIM_CHECK(unfilled == 0 || counting_ || pool_.at(gb.blocks.back()).ref_count == 1, "a partly filled last block is shared");
      tail_reserved += gb.tail_reserved;
    }
  });
  return tail_reserved;
}

PagedAllocator::BlockTotals PagedAllocator::CheckBlocks(const std::vector<int32_t>& refs) const {
  BlockTotals t;
  const int64_t n = pool_.num_blocks();
  for (BlockId b = 0; b < n; ++b) {
    const Block& blk = pool_.at(b);
    KVSIM_CHECK(blk.ref_count == refs[b], "block " + std::to_string(b) + " ref_count " + std::to_string(blk.ref_count) +
                                          " but " + std::to_string(refs[b]) + " owners");
    KVSIM_CHECK(blk.ref_count >= 0 && blk.filled_slots >= 0 && blk.filled_slots <= block_size_, "block counters out of range");
    if (b == kNullBlock) {
      KVSIM_CHECK(!blk.queued && blk.ref_count == 0 && !blk.keyed, "null block in use");
      continue;
    }
    KVSIM_CHECK(blk.queued == (blk.ref_count == 0), "block " + std::to_string(b) + " queued iff unreferenced");
    if (blk.keyed) KVSIM_CHECK(blk.filled_slots == block_size_, "keyed block not full");
    if (blk.ref_count > 0) {
      t.token += blk.filled_slots;
      t.saved += static_cast<int64_t>(blk.ref_count - 1) * blk.filled_slots;
    } else {
      KVSIM_CHECK(blk.keyed || blk.filled_slots == 0, "free unkeyed block holds tokens");
      ++t.queued;
      t.cached += blk.keyed;
    }
  }
  return t;
}

void PagedAllocator::CheckFreeQueue(const BlockTotals& t) const {
  const int64_t n = pool_.num_blocks();
  int64_t walked = 0;
  BlockId prev = kNoBlock;
  std::vector<bool> seen(static_cast<size_t>(n), false);
  pool_.ForEachQueued([&](BlockId b) {
    KVSIM_CHECK(pool_.at(b).queued && !seen[b], "free queue holds a block twice or an unqueued one");
    seen[b] = true;
    if (pool_.order() == FreeBlockOrder::kLru) KVSIM_CHECK(pool_.at(b).prev == prev, "free queue links broken");
    prev = b;
    KVSIM_CHECK(++walked <= n, "free queue has a cycle");
  });
  KVSIM_CHECK(walked == t.queued && t.queued == pool_.num_queued(), "free queue length disagrees");
  KVSIM_CHECK(t.cached == pool_.num_cached(), "cached count disagrees");
  pool_.CheckKeyIndex();
}

void PagedAllocator::CheckInvariants() const {
  std::vector<int32_t> refs(static_cast<size_t>(pool_.num_blocks()), 0);
  BlockTotals counted;
  const int64_t tail_reserved = CheckOwners(refs, counted);
  const BlockTotals t = CheckBlocks(refs);
  CheckFreeQueue(t);
  KVSIM_CHECK(held_ >= 0 && counted.queued + held_ == counted_taken_,
              "counting mode: blocks held disagree with the blocks taken");
  KVSIM_CHECK(t.token + counted.token == token_slots_ && tail_reserved == reserved_slots_ && t.saved == shared_saved_,
              "accounting totals drifted");
  if (probe_.valid) {  // every kept hit is still cached or in use under its key, and counted right
    int64_t in_use = 0, watched = 0;
    for (size_t i = 0; i < probe_.hits.size(); ++i) {
      const BlockId b = probe_.hits[i];
      KVSIM_CHECK(pool_.at(b).keyed && watched_[static_cast<size_t>(b)] == static_cast<int32_t>(i + 1),
                  "a kept prefix hit lost its key");
      if (pool_.at(b).ref_count > 0) ++in_use;
    }
    for (int32_t w : watched_) watched += w != 0;
    KVSIM_CHECK(in_use == probe_.hits_in_use && watched == static_cast<int64_t>(probe_.hits.size()),
                "the kept prefix probe disagrees with the pool");
  }
  const KvAccounting a = Accounting();
  KVSIM_CHECK(a.internal_fragmentation_slots >= 0 && a.free_slots >= 0, "negative category");
  KVSIM_CHECK(a.Sum() == a.capacity_slots, "categories do not sum to the pool");
}

}  // namespace kvsim
