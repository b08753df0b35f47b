// ReplayEngine's explicit decode runs (replay_engine.h): with speculative decoding every decoding
// request draws its accepted drafts every step, and with LoRA the adapters' kernels depend on which
// requests run, so these requests are not decoded lazily as plain ones are; but a step in which
// only decoders run, none can finish and nothing can be admitted needs no scheduling pass either.
// Such steps are taken one after another here: each request, in running order, is scheduled as
// ScheduleExplicit would (the same draw from the same stream, the same tokens), and its KV grows
// are handed to the allocator only when they leave the slots it already holds, the rest at the
// run's end. Each step is then timed (LoRA's terms included) and recorded by CompleteStep, as
// StepOnce does. Under --stepping token every step takes the scheduler's passes (the reference the
// tests compare against).
#include <algorithm>
#include <type_traits>

#include "kvcache/base/check.h"
#include "sim/engine/grow_or_preempt.h"
#include "sim/engine/replay_engine.h"

namespace kvsim {
namespace {

// Whether `run` holds the running requests, in running order (a debug check).
template <typename Running>
bool SameDecoders(const std::vector<ExplicitDecoder>& run, const Running& running) {
  size_t i = 0;
  for (const auto [order, slot] : running)
    if (i >= run.size() || run[i++].slot != slot) return false;
  return i == run.size();
}

}  // namespace

// Whether step_ may start a run: vLLM v1's pass 1 would visit decoders only and give each its
// 1 + k tokens (1 without speculation; the budget holds them all), and pass 2 would admit nothing:
// the queue is empty, the batch is full, its head has not been seen by a pass yet (as in
// QuietDecodeStep), or, with LoRA, every request a pass could reach waits for an adapter slot and
// has been counted as waiting already (the pass would only skip them again). With KV tiers none of
// them may finish in it either (AfterStep makes their stores, so the run leaves such steps to the
// scheduler).
bool ReplayEngine::ExplicitDecodeStep() const {
  if (o_.stepping != Stepping::kEvent || o_.scheduler != SchedulerKind::kVllmV1) return false;
  if (running_.empty() || !prefilling_.empty() || !loading_.empty()) return false;
  const int64_t tokens = 1 + o_.speculation.tokens;
  if (static_cast<int64_t>(running_.size()) * tokens > o_.max_num_batched_tokens) return false;
  if (tiers_ != nullptr)
    for (const auto [order, slot] : running_)
      if (slots_[slot].target - slots_[slot].generated <= tokens) return false;
  if (waiting_.empty() || static_cast<int64_t>(running_.size()) >= o_.max_num_seqs) return true;
  if (!adapter_slots_) return slots_[waiting_.front()].record.eligible_ns < 0;
  return OnlyLoraWaiters();
}

// With LoRA, whether pass 2 would admit nothing: every waiting request it could reach waits for an
// adapter slot and has been counted as waiting already (the pass would only skip them again).
// speed: the walk is remembered until the queue changes (an arrival, an admission, a preemption,
// the head's rejection: its ends, lengths or the admission count), the running adapters' count, an
// arrival's eligibility or a request's first setting aside; a long queue waiting for slots is
// otherwise walked at every step.
bool ReplayEngine::OnlyLoraWaiters() const {
  LoraWaitersMemo key;
  key.admissions = next_order_;
  key.preemptions = counters_.preemptions;
  key.adapters = running_adapters_;
  key.waited = counters_.lora.waited_requests;
  key.unseen = unseen_arrivals_;
  key.waiting = waiting_.size();
  key.backlog = backlog_.size();
  key.front = waiting_.empty() ? 0 : slots_[waiting_.front()].req.id;
  key.back = waiting_.empty() ? 0 : slots_[waiting_.back()].req.id;
  LoraWaitersMemo& m = lora_waiters_memo_;
  key.only = m.only;
  if (key == m) {
    KVSIM_DCHECK(m.only == WalkLoraWaiters());
    return m.only;
  }
  key.only = WalkLoraWaiters();
  m = key;
  return m.only;
}

bool ReplayEngine::WalkLoraWaiters() const {
  // The requests the last admission pass set aside are still blocked (lora_set_aside_).
  KVSIM_DCHECK(LoraSetAsideStillBlocked());
  for (size_t i = lora_set_aside_; i < waiting_.size(); ++i) {
    const Live& l = slots_[waiting_[i]];
    if (l.record.eligible_ns < 0) return true;  // the pass stops here
    if (l.req.adapter == 0 || !AdapterSlotsFull(l.req.adapter) || !l.lora_waited) return false;
  }
  return backlog_.empty() || backlog_.Front().eligible_ns < 0;  // the pass would take the backlog's front next
}

// One step of the run: each live decoder, in running order, is scheduled as ScheduleExplicit would
// schedule it (its draw, 1 + accepted tokens kept). With kAdvance it is also advanced as AfterStep
// would advance it (speed: nothing the step's time and sample read depends on it; not with KV
// tiers, whose stores AfterStep makes). speed: the decoders' fields are the run's (LoadRun), and
// scheduled_ is not listed (ListRunScheduled lists it for what reads it: LoRA's first batch,
// FinishAdvanced and CompleteStep).
template <bool kAdvance>
void ReplayEngine::ScheduleRunStep(RunStepSums& sums) {
  AcceptanceDraw& draw = *acceptance_;
  ExplicitDecoder* const begin = decode_run_.data();
  ExplicitDecoder* const end = begin + decode_run_.size();
  // speed: the sums in locals, stored once (the decoders' stores could alias them); the draws and the
  // tokens kept follow from the others after the loop.
  int64_t context = 0, accepted = 0, events = 0, deferred = 0;
  int64_t unscheduled_run = 0;  // drawn by a request that then preempted itself
  bool finished = false;
  ExplicitDecoder* d = begin;
  for (; d != end; ++d) {
    if (!d->live) continue;  // preempted earlier in this step
    // speed: a draw accepts at most the k drafts (tokens − 1), so only its length caps it.
    const int64_t run = std::min(draw.Next(), d->left - 1);  // accepted drafts
    KVSIM_DCHECK(run <= o_.speculation.tokens);
    const int64_t kept = 1 + run;
    accepted += run;
    if (!kAdvance) slots_[d->slot].accepted = run;  // AfterStep samples them
    if (d->unsynced + kept <= d->room) {
      // They fill slots it holds: handed to the allocator later.
      d->unsynced += kept;
      deferred += kept;
    } else if (const int64_t room = grows_compose_ ? alloc_.GrowThenRoom(d->id, d->unsynced + kept)
                                                   : alloc_.Grow(d->id, d->unsynced + kept) ? 0 : -1;
               room >= 0) {
      // GrowOrPreempt's first Grow, which fits (its deferred tokens ride along).
      deferred -= d->unsynced;
      d->unsynced = 0;
      d->room = room;
    } else {
      // Memory is short: GrowOrPreempt, on the Lives, tries that Grow again (a failed Grow changes
      // nothing) and preempts until it fits.
      StoreRun(static_cast<size_t>(d - begin));
      deferred_tokens_ += deferred - d->unsynced;
      deferred = 0;
      const bool grown = GrowOrPreempt(d->slot, kept);
      if (preempted_this_step_) {
        // Preempted requests' deferred tokens were freed with them.
        deferred_tokens_ = 0;
        for (const ExplicitDecoder& e : decode_run_) deferred_tokens_ += slots_[e.slot].unsynced;
      }
      LoadRun();
      if (!grown) {  // it preempted itself: pass 1 ends
        unscheduled_run = run;
        break;
      }
      d->room = grows_compose_ ? alloc_.GrowRoom(d->id) : 0;
    }
    d->context = d->computed;
    context += d->computed;
    d->computed += kept;
    ++events;
    if (kAdvance) {
      KVSIM_DCHECK(slots_[d->slot].record.first_token_ns >= 0 && kept <= d->left);
      d->left -= kept;
      if (d->left <= 0) [[unlikely]] finished = true;
    }
  }
  deferred_tokens_ += deferred;
  const size_t upto = static_cast<size_t>(d - begin);
  const int64_t drawn = events + (upto < decode_run_.size() ? 1 : 0);
  // Each scheduled request kept 1 + its run; without kAdvance AfterStep counts them.
  const int64_t later_tokens = kAdvance ? events + accepted - unscheduled_run : 0;
  sums = {context, later_tokens, accepted, drawn, events, upto, finished};
}

// Steps from step_ on while every running request decodes, until a request is preempted or
// finishes, an arrival may become eligible, or the next step would start at or after `horizon_ns`.
// Requests that reach their output length finish at the end of their step, as AfterStep finishes
// them. Returns StepOnce's result: true when a step was taken. REQUIRES: ExplicitDecodeStep().
bool ReplayEngine::RunExplicitDecodeSteps(int64_t horizon_ns) {
  KVSIM_DCHECK(acceptance_.has_value());  // runs are taken only with speculation (lazy_decode_ off)
  const int64_t tokens = 1 + o_.speculation.tokens;
  if (decode_run_.empty()) {
    for (const auto [order, slot] : running_) {
      const Live& l = slots_[slot];
      KVSIM_DCHECK(l.unsynced == 0 && !l.lazy);
      decode_run_.push_back({slot, true, l.req.id, grows_compose_ ? alloc_.GrowRoom(l.req.id) : 0, 0, 0, 0, 0});
    }
  } else {
    // The run the last call left open (cut by an arrival; no scheduler pass since): the same
    // decoders, their rooms and deferred tokens as it left them.
    KVSIM_DCHECK(SameDecoders(decode_run_, running_));
  }
  LoadRun();
  const bool advance_here = tiers_ == nullptr;
  bool taken = false;
  bool cut_by_arrival = false;
  RunStepSums sums;
  for (bool first = true;; first = false) {
    if (!first) {
      // The next step is quiet too only if nothing that ended the last one changed.
      if (preempted_this_step_) break;
      if (unseen_arrivals_ != 0 || now_ns_ >= horizon_ns) {
        cut_by_arrival = true;
        break;
      }
      bool finishing = false;  // a request may finish in the next step (without advance_here)
      if (!advance_here)
        for (const ExplicitDecoder& d : decode_run_) finishing |= d.left <= tokens;
      if (finishing) break;
      // A finish ends the run: the room it freed may admit a waiting request, and a closed-loop
      // client sends its next request when its last one ends (the caller delivers it).
      if (sums.finished) break;
      ++step_;
      scheduled_.clear();
    }
    if (advance_here) ScheduleRunStep<true>(sums);
    else ScheduleRunStep<false>(sums);
    // Drafts are counted as drawn: a request that preempted itself (pass 1 ended at it) drew too.
    counters_.draft_tokens += sums.drawn * (tokens - 1);
    counters_.accepted_tokens += sums.accepted;
    counters_.events += sums.events;
    if (advance_here && !preempted_this_step_ && sums.events == static_cast<int64_t>(decode_run_.size())) {
      // Every decoder of the run scheduled, `tokens` each: the step's work from its sums.
      if (sums.finished || (adapter_slots_ && first)) {
        StoreRun(sums.upto);
        ListRunScheduled(sums.upto);
      }
      CompleteRunStep(sums.events, sums.context, sums.later_tokens, !first, sums.finished);
      if (sums.finished) LoadRun();
    } else {
      // (A step without work, its first request unable to grow even alone, ends the run: true if
      // steps were taken before it.)
      StoreRun(sums.upto);
      ListRunScheduled(sums.upto);
      const bool stepped = CompleteStepOutOfLine(sums.events != 0, horizon_ns, advance_here ? &sums.later_tokens : nullptr);
      LoadRun();
      if (!stepped) break;
    }
    taken = true;
  }
  StoreRun(sums.upto);
  // speed: a run cut by an arrival, in which nothing finished, stays open with its deferred tokens:
  // the next call is often a run of the same decoders again (the arrival not yet seen by a pass),
  // and StepOnce hands them over before the scheduler's passes otherwise. Not with KV tiers.
  if (!cut_by_arrival || sums.finished || !advance_here) SyncDeferredGrows();
  return taken;
}

// The run's decoders' fields from their Lives; a decoder preempted or finished is no longer live.
void ReplayEngine::LoadRun() {
  static_assert(std::is_same_v<decltype(ExplicitDecoder::slot), Slot>);
  for (ExplicitDecoder& d : decode_run_) {
    const Live& l = slots_[d.slot];
    d.live = l.in_use && l.order >= 0;
    d.left = l.target - l.generated;
    d.computed = l.computed;
    d.unsynced = l.unsynced;
  }
}

// Writes the live decoders' fields back to their Lives; those before `scheduled_upto` were
// scheduled in the current step.
void ReplayEngine::StoreRun(size_t scheduled_upto) {
  for (size_t i = 0; i < decode_run_.size(); ++i) {
    const ExplicitDecoder& d = decode_run_[i];
    if (!d.live) continue;
    Live& l = slots_[d.slot];
    KVSIM_DCHECK(l.in_use && l.order >= 0);
    l.generated = l.target - d.left;
    l.computed = d.computed;
    l.unsynced = d.unsynced;
    if (i < scheduled_upto) l.scheduled_step = step_;
  }
}

// scheduled_ as ScheduleExplicit would have listed the current step's requests: the live decoders
// before `upto`, `tokens` each (a decoder is preempted only before its turn in a step: victims are
// the newest).
void ReplayEngine::ListRunScheduled(size_t upto) {
  scheduled_.clear();
  for (size_t i = 0; i < upto; ++i) {
    const ExplicitDecoder& d = decode_run_[i];
    if (d.live) scheduled_.push_back({d.slot, 1 + o_.speculation.tokens, d.context});
  }
}

// The drafter's passes after the target's forward: one token per decoding request per pass, over
// the same contexts (EAGLE's first pass also re-reads the accepted tokens; their count is small
// beside the context and is left out).
int64_t ReplayEngine::ProposerNs(const std::vector<Scheduled>& scheduled) {
  const SpeculationOptions& sp = o_.speculation;
  if (!sp.proposer || sp.proposer_passes == 0) return 0;
  StepWork draft;
  for (const Scheduled& s : scheduled)
    if (s.tokens > 1 && !slots_[s.slot].prefilling) draft.Add(1, s.context);
  if (draft.sequences == 0) return 0;
  const int64_t ns = sp.proposer_passes * sp.proposer->StepNs(draft);
  counters_.drafting_ns += ns;
  ++counters_.verify_steps;
  return ns;
}

// speed: inlined into CompleteRunStep, which looks the timer up at every step of a verify run; it
// is built on a batch size's first use.
[[gnu::always_inline]] inline const DecodeRunTimer& ReplayEngine::VerifyRunFor(int64_t batch) {
  const size_t i = static_cast<size_t>(batch);
  if (i >= verify_runs_.size() || !verify_runs_[i]) [[unlikely]] {
    if (verify_runs_.size() <= i) verify_runs_.resize(i + 1);
    verify_runs_[i] = timer_.VerifyRun(batch, 1 + o_.speculation.tokens);
  }
  return *verify_runs_[i];
}

// CompleteStep for a step of an explicit decode run in which each of the run's B decoders was
// scheduled `tokens` = 1 + k tokens and nothing was preempted, given Σ of their contexts before the
// step: the StepWork its Adds would sum (attended: Σ tokens·c_i + tokens·(tokens + 1)/2), the
// drafter's passes over the same contexts, and, with `repeat`, LoRA's batch as the step before ran
// it. The requests that reached their length (`finishes`) finish at the step's end, in scheduled
// order, as AfterStep finishes them. The same time, counters and sample as CompleteStep's.
void ReplayEngine::CompleteRunStep(int64_t batch, int64_t context, int64_t later_tokens, bool repeat, bool finishes) {
  KVSIM_DCHECK(lazy_count_ == 0 && loading_.empty() && acceptance_.has_value());
  const SpeculationOptions& sp = o_.speculation;
  // speed: a verify step's batch-only terms are looked up once per batch size (VerifyRun).
  int64_t dt = VerifyRunFor(batch).Ns(context);
  if (sp.proposer && sp.proposer_passes != 0) {
    // ProposerNs: one token per decoding request per pass, over the same contexts.
    StepWork draft;
    draft.Add(1, 0, batch);
    draft.context_tokens = context;
    draft.attended += context;
    const int64_t ns = sp.proposer_passes * sp.proposer->StepNs(draft);
    counters_.drafting_ns += ns;
    ++counters_.verify_steps;
    dt += ns;
  }
  if (adapter_slots_) {
    // speed: the step's StepWork is built only for LoRA, which reads it.
    const int64_t tokens = 1 + sp.tokens;
    StepWork w;
    w.new_tokens = batch * tokens;
    w.context_tokens = context;
    w.attended = tokens * context + batch * (tokens * (tokens + 1) / 2);
    w.sequences = batch;
    w.draft_tokens = batch * (tokens - 1);
    dt += repeat ? RepeatLoraStepNs(w, dt) : LoraStepNs(scheduled_, w, dt);
  }
  KVSIM_DCHECK(dt > 0);
  const int64_t start = now_ns_;
  last_step_start_ns_ = now_ns_;
  now_ns_ += dt;
  if (finishes) FinishAdvanced();
  ++counters_.steps;
  // A later step of the run that finishes nothing leaves the request counts and the batch as they were.
  if (repeat && !finishes) RecordStep</*kCounts=*/false>(start, dt, later_tokens);
  else RecordStep(start, dt, later_tokens);
}

// The step's scheduled requests that a run advanced to their output length finish, in scheduled
// order, as AfterStep finishes them.
void ReplayEngine::FinishAdvanced() {
  for (const Scheduled& s : scheduled_) {
    Live& l = slots_[s.slot];
    if (!l.in_use || l.order < 0 || l.generated < l.target) continue;
    if (l.unsynced > 0) {
      // Its deferred tokens fill slots it holds: the allocator has them before it frees them.
      const bool grown = alloc_.Grow(l.req.id, l.unsynced);
      KVSIM_DCHECK(grown);
      (void)grown;
      deferred_tokens_ -= l.unsynced;
      l.unsynced = 0;
    }
    Finish(s.slot);
  }
}


// Hands the run's deferred tokens to the allocator (slots each request already held), and closes
// the run.
void ReplayEngine::SyncDeferredGrows() {
  for (const ExplicitDecoder& d : decode_run_) {
    Live& l = slots_[d.slot];
    if (l.unsynced == 0) continue;
    KVSIM_DCHECK(l.in_use && l.order >= 0);
    const bool grown = alloc_.Grow(l.req.id, l.unsynced);
    KVSIM_DCHECK(grown);
    (void)grown;
    l.unsynced = 0;
  }
  deferred_tokens_ = 0;
  decode_run_.clear();
}

}  // namespace kvsim
