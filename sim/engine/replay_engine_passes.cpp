// ReplayEngine's scheduling passes (replay_engine.h): vLLM v1's running-then-waiting passes with
// chunked prefill and preemption by recompute, and v0's prefill-first steps.
#include <algorithm>
#include <iterator>

#include "kvcache/base/check.h"
#include "sim/engine/replay_engine.h"

namespace kvsim {

bool ReplayEngine::AdmitWaiting(int64_t& budget, std::vector<Scheduled>& scheduled, bool whole_prompt) {
  bool any = false;
  while (budget > 0 && static_cast<int64_t>(running_.size()) < o_.max_num_seqs && !waiting_.empty()) {
    const Slot slot = waiting_.front();
    Live& l = slots_[slot];
    EnsureKeys(l);
    const AdmitRequest q = AdmissionFor(l);
    if (whole_prompt && q.prompt_tokens > budget) break;
    const std::optional<AdmitPlan> plan = alloc_.Admit(q, budget);
    if (!plan) break;
    waiting_.pop_front();
    waiting_tokens_ -= q.prompt_tokens;
    ReleaseKeys(l);  // the allocator copied them
    l.order = next_order_++;
    running_.Append(l.order, slot);
    l.prefilling = true;
    prefilling_.push_back(slot);  // the newest order: the vector stays sorted
    if (l.record.admitted_ns < 0) {
      l.record.admitted_ns = now_ns_;
      l.record.cached_tokens = plan->cached_tokens;
      for (ReplayObserver* o : observers_) o->OnPrefixLookup(l.req.prompt_tokens, plan->cached_tokens);
    } else {
      for (ReplayObserver* o : observers_) o->OnPrefixRelookup(q.prompt_tokens, plan->cached_tokens);
    }
    l.computed = plan->cached_tokens + plan->new_tokens;
    budget -= plan->new_tokens;
    scheduled.push_back({slot, plan->new_tokens, plan->cached_tokens});
    ++counters_.events;
    any = true;
  }
  return any;
}

// Schedules one running request's pending tokens. Returns false when it was itself preempted,
// which ends pass 1 (vLLM's rule).
bool ReplayEngine::ScheduleExplicit(Slot slot, int64_t& budget, std::vector<Scheduled>& scheduled) {
  Live& l = slots_[slot];
  const int64_t tokens = std::min(PendingTokens(l), budget);
  // Lazily decoded tokens ride along with this step's tokens when one Grow can take both.
  bool grown = l.unsynced > 0 && grows_compose_ && alloc_.Grow(l.req.id, l.unsynced + tokens);
  if (!grown && l.unsynced > 0) {
    const bool synced = alloc_.Grow(l.req.id, l.unsynced);  // always fits: slots it already held
    KVSIM_DCHECK(synced);
    (void)synced;
  }
  l.unsynced = 0;
  while (!grown && !(grown = alloc_.Grow(l.req.id, tokens))) {
    const Slot victim = running_.Last();
    Preempt(victim);
    if (victim == slot) return false;
  }
  scheduled.push_back({slot, tokens, l.computed});
  l.scheduled_step = step_;
  l.computed += tokens;
  budget -= tokens;
  ++counters_.events;
  return true;
}

bool ReplayEngine::StepV1(std::vector<Scheduled>& scheduled) {
  int64_t budget = o_.max_num_batched_tokens;
  // Lazy requests whose event is due this step are processed explicitly; events pop in
  // (step, order) order, so due_ is sorted by order.
  due_.clear();
  auto take = [this](Slot slot, bool current) {
    Live& l = slots_[slot];
    if (current && l.in_use && l.lazy) {
      MakeExplicit(l);
      due_.push_back(slot);
    }
  };
  // A calendar bucket holds only this step's events: each was scheduled less than a lap ahead.
  const size_t bucket_index = static_cast<size_t>(step_ % kCalendarSteps);
  std::vector<CalendarEntry>& bucket = calendar_[bucket_index];
  for (const CalendarEntry& e : bucket) take(e.slot, static_cast<uint32_t>(slots_[e.slot].version) == e.version);
  bucket.clear();
  calendar_occupied_[bucket_index / 64] &= ~(uint64_t{1} << (bucket_index % 64));
  while (!far_events_.empty() && far_events_.top().step <= step_) {
    const Event e = far_events_.top();
    far_events_.pop();
    take(e.slot, slots_[e.slot].version == e.version);
  }
  std::sort(due_.begin(), due_.end(), [this](Slot a, Slot b) { return slots_[a].order < slots_[b].order; });
  int64_t demand = lazy_count_ + static_cast<int64_t>(due_.size());
  for (Slot s : prefilling_) demand += PendingTokens(slots_[s]);
  work_.clear();
  bool in_order = !lazy_decode_ || demand > budget;
  if (!in_order) {
    std::merge(prefilling_.begin(), prefilling_.end(), due_.begin(), due_.end(), std::back_inserter(work_),
               [this](Slot a, Slot b) { return slots_[a].order < slots_[b].order; });
    // Held growth: the lazy requests' crossings are taken first, which changes nothing only when
    // no explicit Grow can then fail; otherwise the crossing requests grow explicitly, in order
    // with the others (as due events would).
    if (held_block_size_ > 0 && !HoldCrossings(step_, ExplicitBlocksBound())) MakeCrossingsExplicit();
  }
  if (in_order) {
    // Not everyone can be served (or token stepping): every running request, in order.
    for (const auto [order, slot] : running_) {
      Live& l = slots_[slot];
      if (l.lazy) MakeExplicit(l);
      work_.push_back(slot);
    }
  } else {
    budget -= lazy_count_;
  }
  for (Slot slot : work_) {
    if (!slots_[slot].in_use || slots_[slot].order < 0) continue;  // preempted earlier in this step
    if (budget <= 0) break;
    if (!ScheduleExplicit(slot, budget, scheduled)) break;
  }
  if (!preempted_this_step_) AdmitWaiting(budget, scheduled, /*whole_prompt=*/false);
  return !scheduled.empty() || lazy_count_ > 0;
}

bool ReplayEngine::StepV0(std::vector<Scheduled>& scheduled) {
  int64_t budget = o_.max_num_batched_tokens;
  // Prefill steps first (whole prompts); otherwise decode every running request.
  if (AdmitWaiting(budget, scheduled, /*whole_prompt=*/true)) return true;
  work_.clear();
  for (const auto [order, slot] : running_) work_.push_back(slot);
  budget = INT64_MAX;  // a decode step schedules one token for every running request
  for (Slot slot : work_) {
    if (slots_[slot].order < 0) continue;
    if (!ScheduleExplicit(slot, budget, scheduled)) break;
  }
  return !scheduled.empty();
}

}  // namespace kvsim
