// PagedAllocator's counting mode: when no prefix hit is possible (full-attention groups, no keys) a
// request holds a block count instead of block records, which is also what lets it offer HeldGrowth.
#include <algorithm>

#include "kvcache/base/check.h"
#include "kvcache/paged_allocator.h"

namespace kvsim {

// Counting mode: every held block is full but the last, which holds Offset(computed) tokens, so a
// grow takes BlocksFor(target) − held blocks per group and fills exactly `tokens` slots in each.
void PagedAllocator::CommitGrowCounted(RequestState& r, int64_t tokens, bool from_held) {
  if (one_full_group_) {
    // speed: the same steps for the one group, straight-line (every decode token of a replay that
    // grows explicitly comes here).
    return CommitGrowOneGroup(r, tokens, std::max<int64_t>(0, BlocksFor(r.computed + tokens) - r.groups[0].held()), from_held);
  }
  ClearTail(r);
  const int64_t target = r.computed + tokens;
  const int64_t per_group = BlocksFor(target);
  for (GroupBlocks& gb : r.groups) {
    const int64_t take = std::max<int64_t>(0, per_group - gb.held());
    gb.counted += take;
    if (from_held) {
      held_ -= take;  // already counted in counted_taken_
    } else {
      counted_taken_ += take;
    }
  }
  KVSIM_CHECK(held_ >= 0, "GrowFromHeld took more blocks than were held");
  token_slots_ += tokens * static_cast<int64_t>(r.groups.size());
  r.computed = target;
  SetTail(r);
}

bool PagedAllocator::HoldBlocks(int64_t blocks) {
  KVSIM_DCHECK(counting_ && blocks >= 0);
  if (blocks > QueuedBlocks()) return false;
  held_ += blocks;
  counted_taken_ += blocks;
  return true;
}

void PagedAllocator::GrowFromHeld(RequestId id, int64_t tokens) {
  KVSIM_DCHECK(counting_);
  CommitGrowCounted(requests_.at(id), tokens, /*from_held=*/true);
}

// Counting mode keeps a preempted request's freed blocks findable (PreemptedPrefixes).
void PagedAllocator::FreePreempted(RequestId id) {
  if (find_preempted_) {
    // Its blocks join the back of the free queue behind every block queued or freed before.
    const RequestState& r = requests_.at(id);
    preempted_.Freed(id, pool_.num_queued() + freed_counted_, r.groups[0].counted, Index(r.computed));
  }
  Free(id);
}

void PagedAllocator::FreeCounted(RequestState& r) {
  ClearTail(r);
  for (GroupBlocks& gb : r.groups) {
    counted_taken_ -= gb.counted;
    freed_counted_ += gb.counted;
    gb.counted = 0;
  }
  token_slots_ -= r.computed * static_cast<int64_t>(r.groups.size());
}

}  // namespace kvsim
