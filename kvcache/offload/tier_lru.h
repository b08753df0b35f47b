// TierLru: one offload tier's index of stored chunks, evicted least recently used first, as vLLM's
// LRUOffloadingManager (vllm/v1/kv_offload/lru_manager.py, v0.11): a store inserts the chunks the
// tier lacks at the most recent end and evicts from the least recent end when the tier is full;
// a lookup touches a request's chunks so that its first chunk ends up most recent (touch walks them
// in reverse). Chunks in flight are not pinned here: loads complete before anything else runs on
// the request's path in the replay. Complexity: O(1) expected per chunk.
#ifndef KVSIM_KVCACHE_OFFLOAD_TIER_LRU_H_
#define KVSIM_KVCACHE_OFFLOAD_TIER_LRU_H_

#include <cstdint>
#include <list>
#include <unordered_map>

#include "kvcache/kv_allocator.h"

namespace kvsim {

class TierLru {
 public:
  explicit TierLru(int64_t capacity_chunks) : capacity_(capacity_chunks) {}

  int64_t capacity() const { return capacity_; }
  int64_t size() const { return static_cast<int64_t>(order_.size()); }
  bool Contains(BlockKey key) const { return index_.count(key) > 0; }

  // Moves `key` to the most recent end when stored.
  void Touch(BlockKey key) {
    auto it = index_.find(key);
    if (it != index_.end()) order_.splice(order_.end(), order_, it->second);
  }

  // Stores `key` unless present (then nothing changes, as prepare_store filters stored chunks).
  // Returns the chunks evicted to make room (0 or 1); a zero-capacity tier stores nothing.
  int64_t Insert(BlockKey key) {
    if (capacity_ <= 0 || index_.count(key) > 0) return 0;
    int64_t evicted = 0;
    if (size() >= capacity_) {
      index_.erase(order_.front());
      order_.pop_front();
      evicted = 1;
    }
    order_.push_back(key);
    index_.emplace(key, std::prev(order_.end()));
    return evicted;
  }

 private:
  int64_t capacity_;
  std::list<BlockKey> order_;  // least recent first
  std::unordered_map<BlockKey, std::list<BlockKey>::iterator> index_;
};

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_OFFLOAD_TIER_LRU_H_
