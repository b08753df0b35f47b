// BlockKeyMap: prefix key -> block, the prefix cache's index. Open addressing with linear probing:
// with long prompts every admission looks up and registers hundreds of keys, which a node-based
// map pays for with an allocation and a pointer chase each.
//
// Stale entries: the owner may leave an entry in place when its block stops carrying the key
// (reusing an evicted block would otherwise cost an erase, a cache miss into the table, per block).
// Find and Insert then take a `live(key, block)` predicate, the owner's word on whether `block`
// still carries `key`: Find reports a stale entry as absent, Insert overwrites a stale entry of the
// same key (there is at most one entry per key), and when the table would pass half load it is
// rebuilt from its live entries only, doubling while those fill more than a quarter of it; so the
// table stays within 8× the live keys (4× after a rebuild) and its probe runs short (linear
// probing's runs lengthen quickly past half load). Erase (backward shift, no tombstones)
// stays for owners that erase eagerly. Complexity: O(1) expected, amortised over rebuilds.
// Not thread-safe.
#ifndef KVSIM_KVCACHE_BLOCK_KEY_MAP_H_
#define KVSIM_KVCACHE_BLOCK_KEY_MAP_H_

#include <cstdint>
#include <vector>

#include "kvcache/kv_allocator.h"

namespace kvsim {

class BlockKeyMap {
 public:
  BlockKeyMap() { Rehash(1024); }

  // Every entry is live (an owner that erases eagerly).
  struct AlwaysLive {
    bool operator()(BlockKey, int32_t) const { return true; }
  };

  // The block stored under `key` if that entry is live, or -1.
  template <typename Live = AlwaysLive>
  int32_t Find(BlockKey key, Live live = {}) const {
    for (size_t i = Home(key);; i = (i + 1) & mask_) {
      if (slots_[i].block < 0) return -1;
      if (slots_[i].key == key) return live(key, slots_[i].block) ? slots_[i].block : -1;
    }
  }

  // Stores `key` -> `block` unless a live entry holds `key` (the first block registered under a key
  // stays). Returns whether it was stored.
  template <typename Live = AlwaysLive>
  bool Insert(BlockKey key, int32_t block, Live live = {}) {
    size_t i = Home(key);
    for (; slots_[i].block >= 0; i = (i + 1) & mask_) {
      if (slots_[i].key != key) continue;
      if (live(key, slots_[i].block)) return false;
      slots_[i].block = block;  // a stale entry of the same key: take its place
      return true;
    }
    if ((size_ + 1) * 2 > slots_.size()) {
      Rebuild(live);
      for (i = Home(key); slots_[i].block >= 0;) i = (i + 1) & mask_;
    }
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

  size_t size() const { return size_; }          // entries, stale ones included
  size_t capacity() const { return slots_.size(); }

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

  // Drops the stale entries; doubles the table while the live ones would fill more than half of it.
  template <typename Live>
  void Rebuild(Live live) {
    size_t kept = 0;
    for (Slot& s : slots_) {
      if (s.block < 0) continue;
      if (live(s.key, s.block)) ++kept; else s.block = -1;
    }
    size_t capacity = slots_.size();
    while ((kept + 1) * 4 > capacity) capacity *= 2;
    Rehash(capacity);
  }

  void Rehash(size_t capacity) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    size_ = 0;
    for (const Slot& s : old) {
      if (s.block < 0) continue;
      size_t i = Home(s.key);
      while (slots_[i].block >= 0) i = (i + 1) & mask_;
      slots_[i] = s;
      ++size_;
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BLOCK_KEY_MAP_H_
