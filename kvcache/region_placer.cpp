#include "kvcache/region_placer.h"

#include <map>
#include <set>
#include <stdexcept>
#include <vector>

#include "kvcache/base/check.h"

namespace kvsim {
namespace {

void Require(bool ok, const char* what) { KVSIM_CHECK(ok, std::string("RegionPlacer: ") + what); }

int Log2(int64_t pow2) {
  int k = 0;
  while ((int64_t{1} << k) < pow2) ++k;
  return k;
}

// First-fit and best-fit over a map of holes (offset -> size), coalescing on release.
class HolePlacer final : public RegionPlacer {
 public:
  HolePlacer(int64_t capacity, bool best_fit) : capacity_(capacity), best_fit_(best_fit) {
    if (capacity > 0) Insert(0, capacity);
  }

  std::optional<PlacedRegion> Place(int64_t size) override {
    auto hole = Find(size);
    if (hole == holes_.end()) return std::nullopt;
    const int64_t offset = hole->first, hole_size = hole->second;
    Erase(hole);
    if (hole_size > size) Insert(offset + size, hole_size - size);
    return PlacedRegion{offset, size};
  }

  bool CanPlace(int64_t size) const override { return !by_size_.empty() && by_size_.rbegin()->first >= size; }

  void Release(const PlacedRegion& r) override {
    int64_t offset = r.offset, size = r.taken;
    auto next = holes_.lower_bound(offset);
    if (next != holes_.end() && next->first == offset + size) {
      size += next->second;
      next = Erase(next);
    }
    if (next != holes_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == offset) {
        offset = prev->first;
        size += prev->second;
        Erase(prev);
      }
    }
    Insert(offset, size);
  }

  int64_t free_slots() const override { return free_; }

  int64_t UnusableFor(int64_t size) const override {
    if (size <= 0) return 0;
    int64_t unusable = 0;
    for (const auto& [s, off] : by_size_) {
      if (s >= size) break;  // sorted by size: the rest can each hold at least one region
      unusable += s;
    }
    return unusable;
  }

  int64_t largest_placeable() const override { return by_size_.empty() ? 0 : by_size_.rbegin()->first; }

  void CheckInvariants(int64_t used_slots) const override {
    int64_t total = 0, end = -1;
    for (const auto& [off, size] : holes_) {
      Require(size > 0 && off >= 0 && off + size <= capacity_, "hole out of range");
      Require(off > end, "holes overlap or touch without coalescing");
      Require(by_size_.count({size, off}) == 1, "size index stale");
      end = off + size;
      total += size;
    }
    Require(by_size_.size() == holes_.size(), "size index has extra entries");
    Require(total == free_ && free_ + used_slots == capacity_, "free + used != capacity");
  }

 private:
  using HoleIt = std::map<int64_t, int64_t>::iterator;

  HoleIt Find(int64_t size) {
    if (best_fit_) {
      auto it = by_size_.lower_bound({size, INT64_MIN});
      return it == by_size_.end() ? holes_.end() : holes_.find(it->second);
    }
    if (!CanPlace(size)) return holes_.end();
    for (auto it = holes_.begin(); it != holes_.end(); ++it)
      if (it->second >= size) return it;
    return holes_.end();
  }
  void Insert(int64_t off, int64_t size) {
    holes_.emplace(off, size);
    by_size_.insert({size, off});
    free_ += size;
  }
  HoleIt Erase(HoleIt it) {
    by_size_.erase({it->second, it->first});
    free_ -= it->second;
    return holes_.erase(it);
  }

  int64_t capacity_;
  bool best_fit_;
  std::map<int64_t, int64_t> holes_;            // offset -> size
  std::set<std::pair<int64_t, int64_t>> by_size_;  // (size, offset)
  int64_t free_ = 0;
};

// Binary buddy allocator over power-of-two arenas.
class BuddyPlacer final : public RegionPlacer {
 public:
  explicit BuddyPlacer(int64_t capacity) : capacity_(capacity) {
    int64_t base = 0;
    for (int k = 62; k >= 0; --k) {
      if (capacity & (int64_t{1} << k)) {
        arenas_.emplace(base, k);
        if (static_cast<int>(free_.size()) <= k) free_.resize(k + 1);
        free_[k].insert(base);
        free_slots_ += int64_t{1} << k;
        base += int64_t{1} << k;
      }
    }
    if (free_.empty()) free_.resize(1);
  }

  std::optional<PlacedRegion> Place(int64_t size) override {
    const int k = Log2(size);
    int j = k;
    while (j < static_cast<int>(free_.size()) && free_[j].empty()) ++j;
    if (j >= static_cast<int>(free_.size())) return std::nullopt;
    const int64_t offset = *free_[j].begin();  // lowest address of the smallest fitting order
    free_[j].erase(free_[j].begin());
    while (j > k) {  // split, keeping the lower half
      --j;
      free_[j].insert(offset + (int64_t{1} << j));
    }
    free_slots_ -= int64_t{1} << k;
    return PlacedRegion{offset, int64_t{1} << k};
  }

  bool CanPlace(int64_t size) const override {
    for (int j = Log2(size); j < static_cast<int>(free_.size()); ++j)
      if (!free_[j].empty()) return true;
    return false;
  }

  void Release(const PlacedRegion& r) override {
    int k = Log2(r.taken);
    int64_t offset = r.offset;
    auto arena = std::prev(arenas_.upper_bound(offset));
    const int64_t base = arena->first;
    const int arena_order = arena->second;
    free_slots_ += r.taken;
    while (k < arena_order) {
      const int64_t buddy = base + ((offset - base) ^ (int64_t{1} << k));
      auto it = free_[k].find(buddy);
      if (it == free_[k].end()) break;
      free_[k].erase(it);
      offset = std::min(offset, buddy);
      ++k;
    }
    free_[k].insert(offset);
  }

  int64_t free_slots() const override { return free_slots_; }

  int64_t UnusableFor(int64_t size) const override {
    if (size <= 0) return 0;
    const int k = Log2(size);
    int64_t unusable = 0;
    for (int j = 0; j < k && j < static_cast<int>(free_.size()); ++j)
      unusable += static_cast<int64_t>(free_[j].size()) << j;
    return unusable;
  }

  int64_t largest_placeable() const override {
    for (int j = static_cast<int>(free_.size()) - 1; j >= 0; --j)
      if (!free_[j].empty()) return int64_t{1} << j;
    return 0;
  }

  void CheckInvariants(int64_t used_slots) const override {
    int64_t total = 0;
    for (int k = 0; k < static_cast<int>(free_.size()); ++k) {
      for (int64_t off : free_[k]) {
        auto arena = std::prev(arenas_.upper_bound(off));
        Require(k <= arena->second && ((off - arena->first) & ((int64_t{1} << k) - 1)) == 0, "misaligned free block");
        if (k < arena->second) {
          const int64_t buddy = arena->first + ((off - arena->first) ^ (int64_t{1} << k));
          Require(free_[k].count(buddy) == 0, "two free buddies left unmerged");
        }
        total += int64_t{1} << k;
      }
    }
    Require(total == free_slots_ && free_slots_ + used_slots == capacity_, "free + used != capacity");
  }

 private:
  int64_t capacity_;
  std::map<int64_t, int> arenas_;           // base -> order
  std::vector<std::set<int64_t>> free_;     // order -> free block offsets
  int64_t free_slots_ = 0;
};

}  // namespace

int64_t NextPowerOfTwo(int64_t v) {
  int64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

std::unique_ptr<RegionPlacer> MakeRegionPlacer(Placement placement, int64_t capacity_slots) {
  if (placement == Placement::kBuddy) return std::make_unique<BuddyPlacer>(capacity_slots);
  return std::make_unique<HolePlacer>(capacity_slots, placement == Placement::kBestFit);
}

}  // namespace kvsim
