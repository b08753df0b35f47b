// Where a contiguous allocator puts a region of `size` slots in a linear pool, and what free
// space it leaves behind. Three strategies:
//   first-fit  lowest-address hole that fits        Place O(holes), Release O(log holes)
//   best-fit   smallest hole that fits              Place/Release O(log holes)
//   buddy      power-of-two blocks split and merged Place/Release O(log capacity); the pool is cut
//              into power-of-two arenas (binary decomposition of the capacity); a region takes the
//              next power of two of its size (the rest is rounding: external fragmentation)
#ifndef KVSIM_KVCACHE_REGION_PLACER_H_
#define KVSIM_KVCACHE_REGION_PLACER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "kvcache/base/enum_names.h"

namespace kvsim {

enum class Placement { kFirstFit, kBestFit, kBuddy };
template <>
struct EnumNames<Placement> {
  static constexpr EnumEntry<Placement> kEntries[] = {
      {Placement::kFirstFit, "first-fit"}, {Placement::kBestFit, "best-fit"}, {Placement::kBuddy, "buddy"}};
};

struct PlacedRegion {
  int64_t offset = 0;
  int64_t taken = 0;  // slots actually occupied (>= the size asked for)
};

class RegionPlacer {
 public:
  virtual ~RegionPlacer() = default;
  // REQUIRES: size >= 1. nullopt when no free space of that shape exists; nothing changes then.
  virtual std::optional<PlacedRegion> Place(int64_t size) = 0;
  virtual bool CanPlace(int64_t size) const = 0;
  // REQUIRES: (offset, taken) came from Place and was not released yet.
  virtual void Release(const PlacedRegion& region) = 0;
  virtual int64_t free_slots() const = 0;
  // Free slots in holes (buddy: free blocks) too small to hold a region of `size` slots: the
  // external fragmentation a request of that size sees. 0 when size <= 0.
  virtual int64_t UnusableFor(int64_t size) const = 0;
  // The largest size Place could satisfy right now.
  virtual int64_t largest_placeable() const = 0;
  // Throws InternalError on broken structure (overlaps, unmerged buddies, lost space).
  virtual void CheckInvariants(int64_t used_slots) const = 0;
};

std::unique_ptr<RegionPlacer> MakeRegionPlacer(Placement placement, int64_t capacity_slots);

int64_t NextPowerOfTwo(int64_t v);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_REGION_PLACER_H_
