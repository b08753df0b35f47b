// ReplayEngine's scheduling passes (replay_engine.h), the SchedulingPasses its ReplicaScheduler
// composes into a step (replica_scheduler.h): the due lazy decoders, the running pass with chunked
// prefill and preemption by recompute of the newest admission, FCFS admission.
#include <algorithm>
#include <iterator>

#include "kvcache/base/check.h"
#include "sim/engine/grow_or_preempt.h"
#include "sim/engine/replay_engine.h"
#include "sim/engine/vllm_schedulers.h"

namespace kvsim {

bool ReplayEngine::AdmitWaiting(int64_t& budget, bool whole_prompt) {
  bool any = false;
  // Waiting requests set aside for want of an adapter slot stay in place, ahead of the rest (vLLM's
  // skipped_waiting_requests); `pos` is the first one not set aside. Without LoRA it stays 0.
  // speed: the leading ones set aside at the last pass are still blocked (see lora_set_aside_).
  KVSIM_DCHECK(LoraSetAsideStillBlocked());
  size_t pos = lora_set_aside_;
  while (budget > 0 && static_cast<int64_t>(running_.size()) < o_.max_num_seqs) {
    if (pos == waiting_.size()) {
      // The slotted requests are behind us: the next is the backlog's first, if a pass has seen it.
      if (backlog_.empty() || backlog_.Front().eligible_ns < 0) break;
      PromoteFront();
    }
    const Slot slot = waiting_[pos];
    Live& l = slots_[slot];
    if (l.record.eligible_ns < 0) break;  // async scheduling: this step's pass ran before it arrived
    if (l.req.adapter != 0 && AdapterSlotsFull(l.req.adapter)) [[unlikely]] {
      if (!l.lora_waited) ++counters_.lora.waited_requests;
      l.lora_waited = true;
      ++pos;
      continue;
    }
    EnsureKeys(l);
    AdmitRequest q = AdmissionFor(l);
    if (whole_prompt && q.prompt_tokens > budget) break;
    OffloadTiers::Match match;
    if (remote_ || tiers_) [[unlikely]] match = MatchBelowGpu(l, q, budget);
    const std::optional<AdmitPlan> plan = alloc_.Admit(q, match.tokens > 0 ? 0 : budget);
    if (!plan) break;
    if (pos == 0) waiting_.pop_front();
    else waiting_.erase(waiting_.begin() + static_cast<std::ptrdiff_t>(pos));
    if (l.req.adapter != 0) AdapterJoins(l.req.adapter);
    waiting_tokens_ -= q.prompt_tokens;
    if (!tiers_) ReleaseKeys(l);  // the allocator copied them; offload tiers store from them after each step
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
    l.computed = plan->cached_tokens + plan->loaded_tokens + plan->new_tokens;
    ++counters_.events;
    any = true;
    if (remote_ || tiers_) [[unlikely]] {
      if (StartsLoading(l, slot, match, *plan, q.prompt_tokens)) continue;
    }
    budget -= plan->new_tokens;
    scheduled_.push_back({slot, plan->new_tokens, plan->cached_tokens});
  }
  lora_set_aside_ = pos;  // everything before `pos` was set aside, and admissions only fill slots
  // The head of the queue keeps a slot (only an admission empties waiting_). Not in the loop: a new
  // slot may move slots_, and `l` refers into it.
  if (any && waiting_.empty() && !backlog_.empty()) PromoteFront();
  return any;
}

bool ReplayEngine::LoraSetAsideStillBlocked() const {
  if (lora_set_aside_ > waiting_.size()) return false;
  for (size_t i = 0; i < lora_set_aside_; ++i) {
    const Live& l = slots_[waiting_[i]];
    if (l.req.adapter == 0 || !AdapterSlotsFull(l.req.adapter) || !l.lora_waited) return false;
  }
  return true;
}

// The prompt tokens found below the GPU (remote prefill or KV offload tiers), which set
// q.loaded_tokens. speed: out of line, so the plain admission path stays short.
[[gnu::noinline]] OffloadTiers::Match ReplayEngine::MatchBelowGpu(const Live& l, AdmitRequest& q, int64_t budget) {
  OffloadTiers::Match match;
  if (remote_ && l.generated == 0) {
    // The prompt was computed elsewhere; a preempted request recomputes here.
    match.tokens = q.prompt_tokens - 1;
    q.loaded_tokens = match.tokens;
  } else if (tiers_) {
    // The connector looks up what the GPU prefix cache lacks; a hit is loaded before anything is computed.
    match = tiers_->Find(l.keys, alloc_.PlanAdmit(q, budget).cached_tokens, q.prompt_tokens);
    q.loaded_tokens = match.tokens;
  }
  return match;
}

// After an admission with a remote prefill or KV offload tiers: whether the request first waits
// for its KV to load (it then joins loading_). speed: out of line, as MatchBelowGpu.
[[gnu::noinline]] bool ReplayEngine::StartsLoading(Live& l, Slot slot, const OffloadTiers::Match& match, const AdmitPlan& plan,
                                                   int64_t prompt_tokens) {
  // The prompt over the link (MatchBelowGpu's remote case); a readmission after a preemption finds its
  // tokens in the tiers instead.
  if (remote_ && l.generated == 0 && match.tokens > 0) {
    l.ready_ns = remote_->StartTransfer(l.req.id, plan.loaded_tokens, now_ns_);
    l.loading = true;
    l.tier_load = false;
    loading_.push_back(slot);
    return true;
  }
  if (tiers_) {
    l.ready_ns = tiers_->Commit(l.keys, match, plan.cached_tokens, prompt_tokens, now_ns_);
    l.store_from = plan.loaded_tokens > 0 ? l.computed : 0;  // vLLM stores from the first chunk unless it loaded
    if (plan.loaded_tokens > 0) {
      l.loading = true;
      l.tier_load = true;
      l.seen_ns = -1;
      loading_.push_back(slot);
      return true;
    }
  }
  return false;
}

// Schedules one running request's pending tokens. Returns false when it was itself preempted,
// which ends pass 1 (vLLM's rule).
bool ReplayEngine::ScheduleExplicit(Slot slot, int64_t& budget, std::vector<Scheduled>& scheduled) {
  Live& l = slots_[slot];
  int64_t tokens = std::min(PendingTokens(l), budget);
  int64_t kept = tokens;  // tokens whose KV stays: all but the rejected drafts
  if (acceptance_ && !l.prefilling && tokens == 1) [[unlikely]] {
    // Speculative decode: verify k drafts with the last sampled token, within the budget left.
    tokens = std::min(1 + o_.speculation.tokens, budget);
    const int64_t drawn = acceptance_->Next();
    l.accepted = std::min({drawn, tokens - 1, l.target - l.generated - 1});
    kept = 1 + l.accepted;
    counters_.draft_tokens += tokens - 1;
    counters_.accepted_tokens += l.accepted;
  }
  if (!GrowOrPreempt(slot, kept)) return false;
  scheduled.push_back({slot, tokens, l.computed});
  l.scheduled_step = step_;
  l.computed += kept;
  budget -= tokens;
  ++counters_.events;
  return true;
}

// A tier load is not schedulable when its copy ends: vLLM's OffloadingConnector worker polls its
// copy events in get_finished once per step, after the forward (vllm/v1/kv_offload/worker/
// cpu_gpu.py, SingleDirectionOffloadingHandler.get_finished), update_from_output records the request
// in finished_recving_kv_req_ids, and only a later schedule() moves it from WAITING_FOR_REMOTE_KVS
// back to WAITING (vllm/v1/core/sched/scheduler.py, _update_waiting_for_remote_kv). So the load is
// seen at the end of the step during which it ended (the step that just ended, at now_ns_), and a
// pass may schedule the request once it runs after that: the next step's pass, or with async
// scheduling the one after (PassCutoffNs: that pass ran while the reporting step executed). A remote
// prefill's transfer keeps its own timing (ready_ns).
void ReplayEngine::ReleaseLoaded() {
  size_t kept = 0;
  for (Slot slot : loading_) {
    Live& l = slots_[slot];
    bool done = l.ready_ns <= now_ns_;
    if (l.tier_load) {
      if (l.seen_ns < 0 && done) l.seen_ns = now_ns_;
      KVSIM_DCHECK(l.seen_ns < 0 || l.seen_ns >= l.ready_ns);  // no step reports a copy before it ends
      done = l.seen_ns >= 0 && l.seen_ns <= PassCutoffNs();
    }
    if (done) l.loading = false;
    else loading_[kept++] = slot;
  }
  loading_.resize(kept);
}

// Nothing can run but requests wait for loads: the clock moves to the first load's end, or to the
// next arrival when that comes first. While a tier load is in flight an idle vLLM engine keeps
// taking steps with no forward (o_.idle_step_ns of host work each; get_finished polls at the end of
// each), so the load is seen at the end of the first such step that ends at or after the copy. Async
// scheduling adds no step here: a step with nothing scheduled is waited for at once instead of being
// queued behind the next schedule() (vllm/v1/engine/core.py, step_with_batch_queue).
void ReplayEngine::WaitForLoads(int64_t horizon_ns) {
  const int64_t start = now_ns_, h = o_.idle_step_ns;
  auto seen_at = [&](const Live& l) {
    if (l.seen_ns >= 0) return l.seen_ns;
    if (h <= 0) return std::max(l.ready_ns, start);
    const int64_t steps = std::max<int64_t>(1, (l.ready_ns - start + h - 1) / h);
    return start + steps * h;
  };
  int64_t first = INT64_MAX;
  for (Slot slot : loading_) {
    const Live& l = slots_[slot];
    first = std::min(first, l.tier_load ? seen_at(l) : l.ready_ns);
  }
  now_ns_ = std::max(now_ns_, std::min(first, horizon_ns));
  for (Slot slot : loading_) {
    Live& l = slots_[slot];
    if (l.tier_load && l.seen_ns < 0 && seen_at(l) <= now_ns_) l.seen_ns = seen_at(l);
  }
  // No step ran while the engine waited: vLLM's engine loop keeps calling the scheduler, so the next
  // pass sees every request that arrived during the wait (no async step is in flight to hide them),
  // and every load seen so far.
  last_step_start_ns_ = now_ns_;
}

// speed: the three passes below inline into the schedulers' Step, instantiated here (MakeScheduler),
// so a step costs what it did when the policy was an engine method.
[[gnu::always_inline]] inline void ReplayEngine::CollectDueRequests() {
  if (!loading_.empty()) ReleaseLoaded();
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
}

[[gnu::always_inline]] inline bool ReplayEngine::LazyDecodersReached(int64_t budget) const {
  int64_t demand = lazy_count_ + static_cast<int64_t>(due_.size());
  for (Slot s : prefilling_) demand += PendingTokens(slots_[s]);
  if (demand <= budget) return true;
  return lazy_count_ > 0 && LazyDecodersReachedInOrder(budget);
}

// The demand passes the budget, so admission order decides who is served: the pass reaches the
// newest lazy decoder with budget left when it and everything admitted before it fit. Typically a
// long prompt, admitted last, is being prefilled in chunks behind the decoders: only its chunk is cut.
// speed: out of line; it runs only on the steps whose demand passes the budget.
[[gnu::noinline]] bool ReplayEngine::LazyDecodersReachedInOrder(int64_t budget) const {
  const int64_t newest_lazy = running_.NewestOrderWhere([this](Slot s) { return slots_[s].lazy; });
  int64_t demand = lazy_count_;
  for (Slot s : prefilling_)
    if (slots_[s].order < newest_lazy) demand += PendingTokens(slots_[s]);
  for (Slot s : due_)
    if (slots_[s].order < newest_lazy) ++demand;  // a due decoder's one token
  return demand <= budget;
}

[[gnu::always_inline]] inline void ReplayEngine::ScheduleRunning(RunningPass pass, int64_t& budget) {
  work_.clear();
  if (pass == RunningPass::kDueAndPrefilling) {
    std::merge(prefilling_.begin(), prefilling_.end(), due_.begin(), due_.end(), std::back_inserter(work_),
               [this](Slot a, Slot b) { return slots_[a].order < slots_[b].order; });
    // Held growth: the lazy requests' crossings are taken first, which changes nothing only when
    // no explicit Grow can then fail; otherwise the crossing requests grow explicitly, in order
    // with the others (as due events would).
    if (held_block_size_ > 0 && !HoldCrossings(step_, ExplicitBlocksBound())) MakeCrossingsExplicit();
    budget -= lazy_count_;  // the lazy decoders left (after any crossings made explicit) take one token each
  } else {
    for (const auto [order, slot] : running_) {
      Live& l = slots_[slot];
      if (l.lazy) MakeExplicit(l);
      work_.push_back(slot);
    }
  }
  for (Slot slot : work_) {
    if (!slots_[slot].in_use || slots_[slot].order < 0) continue;  // preempted earlier in this step
    if (slots_[slot].loading) continue;  // waits for its KV to arrive
    if (budget <= 0) break;
    if (!ScheduleExplicit(slot, budget, scheduled_)) break;
  }
}

std::unique_ptr<ReplicaScheduler<ReplayEngine::Passes>> ReplayEngine::MakeScheduler(SchedulerKind kind) {
  return MakeReplicaScheduler<Passes>(kind);
}

}  // namespace kvsim
