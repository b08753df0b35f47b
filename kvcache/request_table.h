// RequestTable<T>: per-request state keyed by RequestId, for the allocators' hot paths.
// Values live in a slab whose slots are reused (so their vectors keep their capacity between
// requests); ids map to slots through an open-addressing hash table (linear probing, backward-shift
// deletion). Lookups touch one or two cache lines instead of a node-based map's pointer chase.
// Complexity: find/insert/erase O(1) expected. Not thread-safe.
#ifndef KVSIM_KVCACHE_REQUEST_TABLE_H_
#define KVSIM_KVCACHE_REQUEST_TABLE_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "kvcache/base/check.h"
#include "kvcache/kv_allocator.h"

namespace kvsim {

template <typename T>
class RequestTable {
 public:
  RequestTable() { Rehash(64); }

  // nullptr when absent.
  T* find(RequestId id) {
    const uint32_t slot = Lookup(id);
    return slot == kEmpty ? nullptr : &values_[slot];
  }
  const T* find(RequestId id) const { return const_cast<RequestTable*>(this)->find(id); }
  T& at(RequestId id) {
    T* v = find(id);
    KVSIM_DCHECK(v != nullptr);
    return *v;
  }
  const T& at(RequestId id) const { return const_cast<RequestTable*>(this)->at(id); }
  size_t count(RequestId id) const { return find(id) ? 1 : 0; }
  size_t size() const { return size_; }

  // Returns the (reused) value slot for a new id; its contents are whatever the slot last held,
  // so callers reset every field they rely on. REQUIRES: id absent.
  T& insert(RequestId id) {
    if ((size_ + 1) * 4 > buckets_.size() * 3) Rehash(buckets_.size() * 2);
    uint32_t slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
    } else {
      slot = static_cast<uint32_t>(values_.size());
      values_.emplace_back();
    }
    Place(id, slot);
    ++size_;
    return values_[slot];
  }

  void erase(RequestId id) {
    size_t i = Home(id);
    while (buckets_[i].slot != kEmpty && buckets_[i].id != id) i = (i + 1) & mask_;
    KVSIM_DCHECK(buckets_[i].slot != kEmpty);
    free_.push_back(buckets_[i].slot);
    // Backward-shift deletion keeps every probe sequence unbroken without tombstones.
    size_t hole = i;
    for (size_t j = (i + 1) & mask_; buckets_[j].slot != kEmpty; j = (j + 1) & mask_) {
      const size_t home = Home(buckets_[j].id);
      const bool movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
      if (movable) {
        buckets_[hole] = buckets_[j];
        hole = j;
      }
    }
    buckets_[hole].slot = kEmpty;
    --size_;
  }

  template <typename F>
  void ForEach(F&& f) const {
    for (const Bucket& b : buckets_)
      if (b.slot != kEmpty) f(b.id, values_[b.slot]);
  }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  struct Bucket {
    RequestId id = 0;
    uint32_t slot = kEmpty;
  };

  size_t Home(RequestId id) const { return static_cast<size_t>((id * 0x9e3779b97f4a7c15ULL) >> shift_) & mask_; }

  uint32_t Lookup(RequestId id) const {
    for (size_t i = Home(id);; i = (i + 1) & mask_) {
      if (buckets_[i].slot == kEmpty) return kEmpty;
      if (buckets_[i].id == id) return buckets_[i].slot;
    }
  }

  void Place(RequestId id, uint32_t slot) {
    size_t i = Home(id);
    while (buckets_[i].slot != kEmpty) i = (i + 1) & mask_;
    buckets_[i] = {id, slot};
  }

  void Rehash(size_t capacity) {
    std::vector<Bucket> old = std::move(buckets_);
    buckets_.assign(capacity, Bucket{});
    mask_ = capacity - 1;
    shift_ = 64;
    for (size_t c = capacity; c > 1; c >>= 1) --shift_;
    for (const Bucket& b : old)
      if (b.slot != kEmpty) Place(b.id, b.slot);
  }

  std::vector<Bucket> buckets_;
  std::vector<T> values_;
  std::vector<uint32_t> free_;
  size_t mask_ = 0;
  int shift_ = 64;
  size_t size_ = 0;
};

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_REQUEST_TABLE_H_
