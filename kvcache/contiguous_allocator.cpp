#include "kvcache/contiguous_allocator.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "kvcache/base/check.h"

namespace kvsim {

ContiguousAllocator::ContiguousAllocator(ContiguousAllocatorOptions o)
    : options_(o),
      placer_(MakeRegionPlacer(o.placement, o.capacity_slots)),
      empty_placer_(MakeRegionPlacer(o.placement, o.capacity_slots)) {}

std::string ContiguousAllocator::name() const {
  return std::string("contiguous/") + NameOf(options_.reservation) + "/" + NameOf(options_.placement);
}

int64_t ContiguousAllocator::ReservationFor(const AdmitRequest& q) const {
  const int64_t final_len = std::max(q.final_tokens, q.prompt_tokens);
  const int64_t cap = std::max(options_.max_model_len, final_len);
  switch (options_.reservation) {
    case Reservation::kMax: return cap;
    case Reservation::kPow2: return std::min(NextPowerOfTwo(final_len), cap);
    case Reservation::kOracle: return final_len;
    case Reservation::kPromptPlusMaxTokens:
      return q.max_tokens_limit > 0 ? std::max(q.max_tokens_limit, final_len) : cap;
  }
  return cap;
}

AdmitPlan ContiguousAllocator::PlanAdmit(const AdmitRequest& q, int64_t token_budget) const {
  AdmitPlan plan;
  const int64_t reserve = ReservationFor(q);
  plan.new_tokens = std::min(q.prompt_tokens, token_budget);
  plan.slots_needed = reserve;
  plan.feasible = plan.new_tokens > 0 && placer_->CanPlace(reserve);
  return plan;
}

bool ContiguousAllocator::CanEverFit(const AdmitRequest& q) const {
  return empty_placer_->CanPlace(ReservationFor(q));
}

std::optional<AdmitPlan> ContiguousAllocator::Admit(const AdmitRequest& q, int64_t token_budget) {
  KVSIM_DCHECK(!IsLive(q.id) && q.prompt_tokens >= 1);
  const AdmitPlan plan = PlanAdmit(q, token_budget);
  last_asked_ = plan.slots_needed;
  if (!plan.feasible) return std::nullopt;
  RegionState r;
  r.reservation = plan.slots_needed;
  r.region = *placer_->Place(r.reservation);
  r.computed = plan.new_tokens;
  r.final_tokens = std::max(q.final_tokens, q.prompt_tokens);
  Count(r, +1);
  requests_.emplace(q.id, r);
  return plan;
}

bool ContiguousAllocator::CanGrow(RequestId id, int64_t tokens) const {
  const RegionState& r = requests_.at(id);
  return r.computed + tokens <= r.reservation;
}

bool ContiguousAllocator::Grow(RequestId id, int64_t tokens) {
  RegionState& r = requests_.at(id);
  if (r.computed + tokens > r.reservation) return false;
  Count(r, -1);
  r.computed += tokens;
  Count(r, +1);
  return true;
}

void ContiguousAllocator::Free(RequestId id) {
  auto it = requests_.find(id);
  KVSIM_DCHECK(it != requests_.end());
  Count(it->second, -1);
  placer_->Release(it->second.region);
  requests_.erase(it);
}

void ContiguousAllocator::Count(const RegionState& r, int sign) {
  const int64_t fill_to = std::min(r.final_tokens, r.reservation);
  token_slots_ += sign * r.computed;
  reserved_slots_ += sign * std::max<int64_t>(0, fill_to - r.computed);
  internal_slots_ += sign * (r.reservation - std::max(fill_to, r.computed));
  rounding_slots_ += sign * (r.region.taken - r.reservation);
}

int64_t ContiguousAllocator::Probe() const {
  if (probe_hint_ > 0) return probe_hint_;
  if (last_asked_ > 0) return last_asked_;
  return options_.max_model_len;
}

KvAccounting ContiguousAllocator::Accounting() const {
  KvAccounting a;
  const int64_t unusable = placer_->UnusableFor(Probe());
  a.capacity_slots = options_.capacity_slots;
  a.token_slots = token_slots_;
  a.reserved_slots = reserved_slots_;
  a.internal_fragmentation_slots = internal_slots_;
  a.external_fragmentation_slots = rounding_slots_ + unusable;
  a.free_slots = placer_->free_slots() - unusable;
  return a;
}

void ContiguousAllocator::CheckInvariants() const {
  auto require = [](bool ok, const char* what) { KVSIM_CHECK(ok, std::string("ContiguousAllocator: ") + what); };
  int64_t used = 0, token = 0;
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (const auto& [id, r] : requests_) {
    require(r.computed >= 1 && r.computed <= r.reservation && r.reservation <= r.region.taken, "region counters");
    used += r.region.taken;
    token += r.computed;
    spans.emplace_back(r.region.offset, r.region.offset + r.region.taken);
  }
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i) require(spans[i - 1].second <= spans[i].first, "regions overlap");
  require(token == token_slots_, "token slots drifted");
  placer_->CheckInvariants(used);
  const KvAccounting a = Accounting();
  require(a.free_slots >= 0 && a.reserved_slots >= 0 && a.internal_fragmentation_slots >= 0, "negative category");
  require(a.Sum() == a.capacity_slots, "categories do not sum to the pool");
}

}  // namespace kvsim
