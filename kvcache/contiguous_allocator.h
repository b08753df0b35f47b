// ContiguousAllocator: the KV cache of Orca / FasterTransformer / a static KV cache. Every request
// gets one contiguous region at admission, sized by a reservation policy, and keeps it until it
// finishes. Admission fails when no region fits, even if the total free memory would.
//
// Reservation policies (the vLLM paper's Orca baselines, §6.1):
//   max                max_model_len slots
//   pow2               next power of two of the final length (at most 2× over), capped at max_model_len
//   oracle             exactly the final length (prompt + output)
//   prompt+max_tokens  prompt + the request's max_tokens (max_model_len when unknown)
// Accounting (kv_allocator.h): reserved = slots up to the final length not yet computed; internal
// fragmentation = reservation beyond the final length; external fragmentation = buddy rounding
// plus free holes too small for the next reservation (the probe: SetNextReservation, else the
// last reservation Admit was asked for, else max_model_len).
#ifndef KVSIM_KVCACHE_CONTIGUOUS_ALLOCATOR_H_
#define KVSIM_KVCACHE_CONTIGUOUS_ALLOCATOR_H_

#include <memory>
#include <unordered_map>

#include "kvcache/base/enum_names.h"
#include "kvcache/kv_allocator.h"
#include "kvcache/region_placer.h"

namespace kvsim {

enum class Reservation { kMax, kPow2, kOracle, kPromptPlusMaxTokens };
template <>
struct EnumNames<Reservation> {
  static constexpr EnumEntry<Reservation> kEntries[] = {{Reservation::kMax, "max"},
                                                        {Reservation::kPow2, "pow2"},
                                                        {Reservation::kOracle, "oracle"},
                                                        {Reservation::kPromptPlusMaxTokens, "prompt+max_tokens"},
                                                        {Reservation::kPromptPlusMaxTokens, "prompt+max-tokens"}};
};

struct ContiguousAllocatorOptions {
  int64_t capacity_slots = 0;   // token slots in the pool
  int64_t max_model_len = 2048;
  Reservation reservation = Reservation::kMax;
  Placement placement = Placement::kFirstFit;
  int64_t block_size = 16;      // only for UsedBlocks(): held slots reported in blocks of this size
};

class ContiguousAllocator final : public KvAllocator {
 public:
  explicit ContiguousAllocator(ContiguousAllocatorOptions options);

  AdmitPlan PlanAdmit(const AdmitRequest& request, int64_t token_budget) const override;
  std::optional<AdmitPlan> Admit(const AdmitRequest& request, int64_t token_budget) override;
  bool CanEverFit(const AdmitRequest& request) const override;
  bool CanGrow(RequestId id, int64_t tokens) const override;
  bool Grow(RequestId id, int64_t tokens) override;
  int64_t GrowRoom(RequestId id) const override {
    const RegionState& r = requests_.at(id);
    return r.reservation - r.computed;
  }
  void Free(RequestId id) override;
  bool IsLive(RequestId id) const override { return requests_.count(id) > 0; }
  int64_t ComputedTokens(RequestId id) const override { return requests_.at(id).computed; }
  int64_t live_requests() const override { return static_cast<int64_t>(requests_.size()); }
  KvAccounting Accounting() const override;
  int64_t UsedBlocks() const override { return (token_slots_ + reserved_slots_ + internal_slots_) / options_.block_size; }
  void CheckInvariants() const override;
  std::string name() const override;

  // The slots the policy reserves for `request`.
  int64_t ReservationFor(const AdmitRequest& request) const;
  // Size the external-fragmentation probe uses (see the header comment); 0 clears the hint.
  void SetNextReservation(int64_t slots) { probe_hint_ = slots; }

 private:
  struct RegionState {
    PlacedRegion region;
    int64_t reservation = 0;
    int64_t computed = 0;
    int64_t final_tokens = 0;
  };
  int64_t Probe() const;
  void Count(const RegionState& r, int sign);

  ContiguousAllocatorOptions options_;
  std::unique_ptr<RegionPlacer> placer_;
  std::unique_ptr<RegionPlacer> empty_placer_;  // an empty pool of the same shape, for CanEverFit
  std::unordered_map<RequestId, RegionState> requests_;
  int64_t last_asked_ = 0;  // the last reservation Admit was asked for (the probe's fallback)

  int64_t token_slots_ = 0;
  int64_t reserved_slots_ = 0;
  int64_t internal_slots_ = 0;
  int64_t rounding_slots_ = 0;
  int64_t probe_hint_ = 0;
};

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_CONTIGUOUS_ALLOCATOR_H_
