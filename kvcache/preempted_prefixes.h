// What vLLM's prefix cache still holds of preempted requests when the allocator counts blocks
// instead of keeping block records (PagedAllocator's counting mode: requests without prefix keys).
//
// vLLM frees a preempted request's blocks tail first onto the back of its free-block queue, and a
// full block keeps its hash there until the block is taken from the front for another request
// (vllm/v1/core/block_pool.py: free_blocks, get_new_blocks, _maybe_evict_cached_block;
// kv_cache_manager.py: free). The request keeps its block hashes, so when it is scheduled again
// get_computed_blocks finds the prefix blocks not yet reused and only the rest is recomputed.
// Blocks leave the front of the queue in the order they entered it, so position in the queue is
// all that decides which survive: this class keeps each preempted request's span of positions and
// the positions reclaimed from the middle, and works out the survivors from the count of blocks
// taken from the front.
#ifndef KVSIM_KVCACHE_PREEMPTED_PREFIXES_H_
#define KVSIM_KVCACHE_PREEMPTED_PREFIXES_H_

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "kvcache/kv_allocator.h"

namespace kvsim {

class PreemptedPrefixes {
 public:
  // `id` freed `blocks` blocks, of which the first `full_blocks` were full (hashed), when the queue
  // had received `appended` positions (the pool's free blocks at the start, then every block freed).
  // Its last block takes position `appended`, its first `appended + blocks - 1`.
  void Freed(RequestId id, int64_t appended, int64_t blocks, int64_t full_blocks);
  // The full blocks at the start of `id`'s sequence still queued after `taken_from_front` blocks
  // have left the front of the queue (0 when `id` was not preempted).
  int64_t Surviving(RequestId id, int64_t taken_from_front) const;
  // `id` is admitted: it takes its first `blocks` blocks back (from the middle of the queue) and its
  // record, if any, ends. REQUIRES: blocks <= Surviving(id, taken_from_front).
  void Reclaim(RequestId id, int64_t blocks, int64_t taken_from_front);
  // A record ends without a readmission (the request finished or was rejected).
  void Forget(RequestId id) { freed_.erase(id); }
  bool empty() const { return freed_.empty(); }
  // Blocks reclaimed so far: they left the queue, but not from its front.
  int64_t reclaimed() const { return reclaimed_; }

 private:
  // The position the front of the queue has reached: `taken_from_front` positions taken, plus every
  // reclaimed position the front has passed.
  int64_t Front(int64_t taken_from_front) const;

  struct Span {
    int64_t end = 0;          // one past the position of the request's first block
    int64_t blocks = 0;
    int64_t full_blocks = 0;
  };
  std::unordered_map<RequestId, Span> freed_;
  std::vector<int64_t> reclaimed_positions_;  // ascending, the ones the front had not passed at the last Reclaim
  int64_t passed_ = 0;                        // reclaimed positions the front has passed (no longer listed)
  int64_t reclaimed_ = 0;
};

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_PREEMPTED_PREFIXES_H_
