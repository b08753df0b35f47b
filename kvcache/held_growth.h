// HeldGrowth: the paged pool's fast path for the replay's lazy decoders, an extension of
// KvAllocator that only allocators with interchangeable blocks offer (KvAllocator::held_growth).
// The replay takes the blocks its decoding requests cross into from the free pool as the steps
// happen (HoldBlocks) and hands them to each request when it next syncs (GrowFromHeld), without a
// call per request per block. Held blocks count as used and reserved (their tokens are still to
// come) until they go to their requests.
#ifndef KVSIM_KVCACHE_HELD_GROWTH_H_
#define KVSIM_KVCACHE_HELD_GROWTH_H_

#include <cstdint>

#include "kvcache/kv_allocator.h"

namespace kvsim {

class HeldGrowth {
 public:
  virtual ~HeldGrowth() = default;
  virtual int64_t HeldBlockSize() const = 0;  // tokens per held block
  virtual int64_t FreeBlocks() const = 0;     // blocks HoldBlocks or a Grow could take now
  virtual int64_t HeldBlocks() const = 0;
  // Takes `blocks` free blocks into the held reserve. False, with no side effect, when fewer are free.
  virtual bool HoldBlocks(int64_t blocks) = 0;
  // Grow whose new blocks come from the held reserve. REQUIRES: enough held; `id` live.
  virtual void GrowFromHeld(RequestId id, int64_t tokens) = 0;
};

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_HELD_GROWTH_H_
