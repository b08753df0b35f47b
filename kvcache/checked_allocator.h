// CheckedAllocator: a KvAllocator that forwards every call to another one and runs its
// CheckInvariants() after each operation that changes it, plus checks of the interface contract
// itself (a failed call holds no more memory than before; accounting conserves the pool; Grow
// agrees with CanGrow and never fails or takes memory within GrowRoom; Admit does what PlanAdmit
// planned), the held-growth extension's included when the inner allocator offers it. Property
// tests and debug runs wrap an allocator in it; it costs O(pool size) per operation.
#ifndef KVSIM_KVCACHE_CHECKED_ALLOCATOR_H_
#define KVSIM_KVCACHE_CHECKED_ALLOCATOR_H_

#include <string>

#include "kvcache/base/check.h"
#include "kvcache/held_growth.h"
#include "kvcache/kv_allocator.h"

namespace kvsim {

class CheckedAllocator final : public KvAllocator, public HeldGrowth {
 public:
  // `inner` must outlive this object.
  explicit CheckedAllocator(KvAllocator& inner) : inner_(inner), held_(inner.held_growth()) { Check("construction"); }

  AdmitPlan PlanAdmit(const AdmitRequest& request, int64_t token_budget) const override {
    return inner_.PlanAdmit(request, token_budget);
  }
  std::optional<AdmitPlan> Admit(const AdmitRequest& request, int64_t token_budget) override {
    const KvAccounting before = inner_.Accounting();
    const AdmitPlan planned = inner_.PlanAdmit(request, token_budget);
    auto plan = inner_.Admit(request, token_budget);
    KVSIM_CHECK(planned.feasible == plan.has_value(), "Admit disagrees with PlanAdmit");
    KVSIM_CHECK(!plan || (plan->cached_tokens == planned.cached_tokens && plan->new_tokens == planned.new_tokens),
                "Admit computed other tokens than PlanAdmit planned");
    if (!plan) CheckUnchanged(before, "a failed Admit");
    KVSIM_CHECK(!plan || inner_.IsLive(request.id), "Admit succeeded but the request is not live");
    Check("Admit");
    return plan;
  }
  bool CanEverFit(const AdmitRequest& request) const override { return inner_.CanEverFit(request); }
  bool CanGrow(RequestId id, int64_t tokens) const override { return inner_.CanGrow(id, tokens); }
  int64_t GrowRoom(RequestId id) const override { return inner_.GrowRoom(id); }
  bool Grow(RequestId id, int64_t tokens) override {
    const KvAccounting before = inner_.Accounting();
    const int64_t computed = inner_.ComputedTokens(id);
    const bool expected = inner_.CanGrow(id, tokens);
    const int64_t room = inner_.GrowRoom(id);
    const bool grown = inner_.Grow(id, tokens);
    KVSIM_CHECK(grown == expected, "Grow disagrees with CanGrow");
    KVSIM_CHECK(grown || tokens > room, "Grow within GrowRoom failed");
    // Within the room no slot may be taken: the memory held stays the same.
    if (grown && tokens <= room) CheckHeldSlots(before, "a Grow within GrowRoom");
    if (!grown) CheckUnchanged(before, "a failed Grow");
    KVSIM_CHECK(inner_.ComputedTokens(id) == computed + (grown ? tokens : 0), "Grow miscounted the computed tokens");
    Check("Grow");
    return grown;
  }
  int64_t GrowThenRoom(RequestId id, int64_t tokens) override {
    const KvAccounting before = inner_.Accounting();
    const int64_t computed = inner_.ComputedTokens(id);
    const bool expected = inner_.CanGrow(id, tokens);
    const int64_t room = inner_.GrowThenRoom(id, tokens);
    KVSIM_CHECK((room >= 0) == expected, "GrowThenRoom disagrees with CanGrow");
    if (room < 0) CheckUnchanged(before, "a failed GrowThenRoom");
    KVSIM_CHECK(room < 0 || room == inner_.GrowRoom(id), "GrowThenRoom's room is not GrowRoom's after the grow");
    KVSIM_CHECK(inner_.ComputedTokens(id) == computed + (room >= 0 ? tokens : 0), "GrowThenRoom miscounted the computed tokens");
    Check("GrowThenRoom");
    return room;
  }
  void Free(RequestId id) override {
    inner_.Free(id);
    KVSIM_CHECK(!inner_.IsLive(id), "Free left the request live");
    Check("Free");
  }
  void FreePreempted(RequestId id) override {
    inner_.FreePreempted(id);
    KVSIM_CHECK(!inner_.IsLive(id), "FreePreempted left the request live");
    Check("FreePreempted");
  }
  bool IsLive(RequestId id) const override { return inner_.IsLive(id); }
  int64_t ComputedTokens(RequestId id) const override { return inner_.ComputedTokens(id); }
  int64_t live_requests() const override { return inner_.live_requests(); }
  KvAccounting Accounting() const override { return inner_.Accounting(); }
  void FillAccounting(KvAccounting* out, int64_t filled) const override { inner_.FillAccounting(out, filled); }
  int64_t UsedBlocks() const override { return inner_.UsedBlocks(); }
  void CheckInvariants() const override { inner_.CheckInvariants(); }
  std::string name() const override { return inner_.name(); }
  bool GrowsCompose() const override { return inner_.GrowsCompose(); }
  HeldGrowth* held_growth() override { return held_ ? this : nullptr; }
  int64_t HeldBlockSize() const override { return held_->HeldBlockSize(); }
  int64_t FreeBlocks() const override { return held_->FreeBlocks(); }
  int64_t HeldBlocks() const override { return held_->HeldBlocks(); }
  bool HoldBlocks(int64_t blocks) override {
    const KvAccounting before = inner_.Accounting();
    const int64_t used = inner_.UsedBlocks();
    const bool held = held_->HoldBlocks(blocks);
    if (!held) CheckUnchanged(before, "a failed HoldBlocks");
    KVSIM_CHECK(inner_.UsedBlocks() == used + (held ? blocks : 0), "HoldBlocks miscounted the used blocks");
    Check("HoldBlocks");
    return held;
  }
  void GrowFromHeld(RequestId id, int64_t tokens) override {
    const int64_t used = inner_.UsedBlocks(), computed = inner_.ComputedTokens(id);
    held_->GrowFromHeld(id, tokens);
    KVSIM_CHECK(inner_.UsedBlocks() == used, "GrowFromHeld took blocks from the free pool");
    KVSIM_CHECK(inner_.ComputedTokens(id) == computed + tokens, "GrowFromHeld miscounted the computed tokens");
    Check("GrowFromHeld");
  }
  int64_t slots_per_token() const override { return inner_.slots_per_token(); }

 private:
  void Check(const char* after) const {
    inner_.CheckInvariants();
    const KvAccounting a = inner_.Accounting();
    KVSIM_CHECK(a.Sum() == a.capacity_slots, std::string("categories do not sum to the pool after ") + after);
  }
  // Memory held must not move. (How free memory splits into usable and external fragmentation
  // may: a contiguous pool probes with the last reservation asked for, failed or not.)
  void CheckUnchanged(const KvAccounting& before, const char* what) const {
    const KvAccounting after = inner_.Accounting();
    for (WasteCategory c : {WasteCategory::kTokenStates, WasteCategory::kReserved, WasteCategory::kInternalFragmentation,
                            WasteCategory::kCached})
      KVSIM_CHECK(before.slots(c) == after.slots(c), std::string(what) + " changed the " + NameOf(c) + " slots");
  }

  // Slots held by requests (or the prefix cache): everything but free memory and its fragmentation.
  void CheckHeldSlots(const KvAccounting& before, const char* what) const {
    const KvAccounting after = inner_.Accounting();
    auto held = [](const KvAccounting& a) { return a.capacity_slots - a.free_slots - a.external_fragmentation_slots; };
    KVSIM_CHECK(held(before) == held(after), std::string(what) + " took or released memory");
  }

  KvAllocator& inner_;
  HeldGrowth* held_;  // the inner allocator's, or null
};

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_CHECKED_ALLOCATOR_H_
