// BlockKeyMap: prefix key -> block, the prefix cache's index. Open addressing with linear probing
// and backward-shift deletion (no tombstones): with long prompts every admission looks up, and
// every reuse of a cached block erases, hundreds of keys, which a node-based map pays for with an
// allocation and a pointer chase each. Complexity: O(1) expected. Not thread-safe.
#ifndef KVSIM_KVCACHE_BLOCK_KEY_MAP_H_
#define KVSIM_KVCACHE_BLOCK_KEY_MAP_H_

#include <cstdint>
#include <vector>

#include "kvcache/kv_allocator.h"

namespace kvsim {

class BlockKeyMap {
 public:
  BlockKeyMap() { Rehash(1024); }

  // The block stored under `key`, or -1.
  int32_t Find(BlockKey key) const {
    for (size_t i = Home(key);; i = (i + 1) & mask_) {
      if (slots_[i].block < 0) return -1;
      if (slots_[i].key == key) return slots_[i].block;
    }
  }

  // Stores `key` -> `block` unless `key` is present. Returns whether it was inserted.
  bool Insert(BlockKey key, int32_t block) {
    if ((size_ + 1) * 4 > slots_.size() * 3) Rehash(slots_.size() * 2);
    size_t i = Home(key);
    for (; slots_[i].block >= 0; i = (i + 1) & mask_)
      if (slots_[i].key == key) return false;
    slots_[i] = {key, block};
    ++size_;
    return true;
  }

  void Erase(BlockKey key) {
    size_t i = Home(key);
    while (slots_[i].block >= 0 && slots_[i].key != key) i = (i + 1) & mask_;
    if (slots_[i].block < 0) return;
    size_t hole = i;
    for (size_t j = (i + 1) & mask_; slots_[j].block >= 0; j = (j + 1) & mask_) {
      const size_t home = Home(slots_[j].key);
      const bool movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
      if (movable) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole].block = -1;
    --size_;
  }

  size_t size() const { return size_; }

  template <typename F>
  void ForEach(F&& f) const {
    for (const Slot& s : slots_)
      if (s.block >= 0) f(s.key, s.block);
  }

 private:
  struct Slot {
    BlockKey key = 0;
    int32_t block = -1;
  };
  // Keys are already well-mixed hashes; fold the high bits in anyway.
  size_t Home(BlockKey key) const { return static_cast<size_t>(key ^ (key >> 29)) & mask_; }

  void Rehash(size_t capacity) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    size_ = 0;
    for (const Slot& s : old)
      if (s.block >= 0) Insert(s.key, s.block);
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BLOCK_KEY_MAP_H_
