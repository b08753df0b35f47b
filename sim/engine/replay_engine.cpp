#include "sim/engine/replay_engine.h"

#include <algorithm>
#include <bit>

#include "kvcache/base/check.h"
#include "kvcache/prefix_keys.h"

namespace kvsim {

ReplayEngine::ReplayEngine(EngineOptions o, KvAllocator& allocator, const StepTimer& timer,
                           std::vector<ReplayObserver*> observers)
    : scheduler_(MakeScheduler(o.scheduler)),
      o_(o),
      lazy_decode_(o.stepping == Stepping::kEvent && o.scheduler == SchedulerKind::kVllmV1 && o.speculation.tokens == 0),
      alloc_(allocator),
      timer_(timer),
      observers_(std::move(observers)) {
  recv_ = RecvPolling(o.scheduler_recv_interval);
  grows_compose_ = alloc_.GrowsCompose();
  slots_per_token_ = alloc_.slots_per_token();
  if (lazy_decode_) held_growth_ = alloc_.held_growth();
  if (held_growth_) held_block_size_ = held_growth_->HeldBlockSize();
  if (held_block_size_ > 0 && std::has_single_bit(static_cast<uint64_t>(held_block_size_))) held_block_mask_ = held_block_size_ - 1;
  if (held_block_size_ > 0) crossings_by_phase_.assign(static_cast<size_t>(held_block_size_), 0);
  if (lazy_decode_) run_durations_.resize(kMaxRunSteps);
  if (o.speculation.tokens > 0) acceptance_.emplace(o.speculation);
  if (held_block_size_ > 0) run_added_blocks_.resize(kMaxRunSteps);
  if (o.lora.enabled()) adapter_slots_.emplace(o.lora.max_loras, std::max(o.lora.max_cpu_loras, o.lora.max_loras));
}

void ReplayEngine::Reject(TraceRequest r, const std::string& reason) {
  RequestRecord rec;
  rec.id = r.id;
  rec.arrival_ns = r.arrival_ns;
  rec.prompt_tokens = r.prompt_tokens;
  rec.output_tokens = r.output_tokens;
  rec.rejected_reason = reason;
  Done(rec);
}

void ReplayEngine::ComputeKeys(Live& l) {
  if (!spare_keys_.empty()) {
    l.keys = std::move(spare_keys_.back());
    spare_keys_.pop_back();
  }
  KeysFromTraceBlocks(l.req.block_ids, l.req.block_id_tokens, l.req.prompt_tokens, o_.block_size, l.keys);
  // vLLM hashes the adapter into every block's key (kv_cache_utils.py, the LoRA extra keys): the
  // same prompt under another adapter has other KV and shares no cached block.
  if (l.req.adapter != 0)
    for (BlockKey& k : l.keys) k = ChainKey(k, 0x10a0000000000000ULL | l.req.adapter);
}

void ReplayEngine::ReleaseKeyBuffer(Live& l) {
  // A few buffers are kept for the next admissions; a long prompt's is given back.
  constexpr size_t kSpareBuffers = 16, kSpareKeys = 4096;
  if (spare_keys_.size() < kSpareBuffers && l.keys.capacity() <= kSpareKeys) {
    l.keys.clear();
    spare_keys_.push_back(std::move(l.keys));
  }
  std::vector<BlockKey>().swap(l.keys);  // (`= {}` would keep the capacity)
}

AdmitRequest ReplayEngine::AdmissionFor(const Live& l) const {
  AdmitRequest q = FreshAdmission(l.req.id, l.req.prompt_tokens, l.target);
  q.prompt_tokens += l.generated;  // a resumed request recomputes what it generated
  q.prefix_keys = l.keys;
  if (!l.keys.empty()) q.prefix_key_group = KeyGroupOfTraceBlocks(l.req.block_id_tokens, o_.block_size);
  return q;
}

int64_t ReplayEngine::LazyContextBeforeStep() const {
  return lazy_sum_computed_ + lazy_count_ * (step_ - 1) - lazy_sum_sync_;
}

void ReplayEngine::MakeLazy(Live& l) {
  if (l.unsynced > 0) {
    const bool grown = alloc_.Grow(l.req.id, l.unsynced);
    KVSIM_DCHECK(grown);  // lazy tokens fit in memory the request already held
    (void)grown;
    l.unsynced = 0;
  }
  l.lazy = true;
  l.sync_step = step_;
  ++lazy_count_;
  if (adapter_slots_ && l.req.adapter != 0) lazy_adapters_.Join(l.req.adapter, l.order);
  lazy_sum_computed_ += l.computed;
  lazy_sum_sync_ += step_;
  const int64_t remaining = l.target - l.generated;
  const Slot slot = static_cast<Slot>(&l - slots_.data());
  l.version = next_version_++;
  if (held_block_size_ > 0) {
    // Blocks are crossed without events up to the last block, which it enters with `fill` tokens
    // computed (tokens of the full blocks before it); the event is that step, or the last token's.
    const int64_t last_kv_token = l.req.prompt_tokens + l.target - 1;
    const int64_t fill = (last_kv_token - 1) - HeldPhase(last_kv_token - 1);
    l.phase = HeldPhase(step_ + 1 - l.computed);
    ++crossings_by_phase_[static_cast<size_t>(l.phase)];
    ScheduleEvent({step_ + (l.computed <= fill ? fill - l.computed + 1 : remaining), l.order, slot, l.version});
    return;
  }
  const int64_t room = alloc_.GrowRoom(l.req.id);
  ScheduleEvent({step_ + std::min(room + 1, remaining), l.order, slot, l.version});
}

void ReplayEngine::ScheduleEvent(const Event& e) {
  if (e.step - step_ < kCalendarSteps) {
    const size_t bucket = static_cast<size_t>(e.step % kCalendarSteps);
    calendar_[bucket].push_back({e.slot, static_cast<uint32_t>(e.version)});
    calendar_occupied_[bucket / 64] |= uint64_t{1} << (bucket % 64);
  } else {
    far_events_.push(e);
  }
}

void ReplayEngine::MakeExplicit(Live& l) {
  // Bring the request up to the end of the previous step: the tokens it decoded lazily.
  const int64_t lag = (step_ - 1) - l.sync_step;
  lazy_count_ -= 1;
  if (adapter_slots_ && l.req.adapter != 0) lazy_adapters_.Leave(l.req.adapter, l.order);
  lazy_sum_computed_ -= l.computed;
  lazy_sum_sync_ -= l.sync_step;
  l.computed += lag;
  l.generated += lag;
  l.lazy = false;
  l.version = 0;
  if (held_block_size_ > 0) {
    // Its crossings up to the previous step were held; this step's are not yet (see HoldCrossings).
    KVSIM_DCHECK(held_step_ < step_);
    --crossings_by_phase_[static_cast<size_t>(l.phase)];
    if (lag > 0) held_growth_->GrowFromHeld(l.req.id, lag);
    return;
  }
  // The allocator gets them together with the request's next tokens (one Grow instead of two).
  l.unsynced += lag;
}

void ReplayEngine::Preempt(Slot slot) {
  Live& l = slots_[slot];
  if (l.lazy) MakeExplicit(l);
  alloc_.FreePreempted(l.req.id);
  ReleaseKeys(l);  // a preempted request may wait long: its keys are computed again at readmission
  l.computed = 0;
  l.unsynced = 0;
  ++l.record.preemptions;
  ++counters_.preemptions;
  ++counters_.events;
  running_.Erase(l.order);
  if (l.req.adapter != 0) AdapterLeaves(l.req.adapter);
  if (l.prefilling) {
    prefilling_.erase(std::find(prefilling_.begin(), prefilling_.end(), slot));
    l.prefilling = false;
  }
  if (l.loading) {
    loading_.erase(std::find(loading_.begin(), loading_.end(), slot));
    l.loading = false;
  }
  l.order = -1;
  waiting_.push_front(slot);
  lora_set_aside_ = 0;
  waiting_tokens_ += l.req.prompt_tokens + l.generated;
  preempted_this_step_ = true;
}

void ReplayEngine::Finish(Slot slot) {
  Live& l = slots_[slot];
  // Output chunks were stored as they filled; their content is not in the trace, so they only take room.
  if (tiers_) tiers_->StoreUnkeyed(tiers_->OutputChunks(static_cast<int64_t>(l.keys.size()), l.req.prompt_tokens + l.generated - 1));
  alloc_.Free(l.req.id);
  l.record.finished_ns = now_ns_;
  l.record.output_tokens = l.generated;
  Done(l.record);
  running_.Erase(l.order);
  if (l.req.adapter != 0) AdapterLeaves(l.req.adapter);
  l.in_use = false;
  ReleaseKeys(l);
  if (l.req.block_ids.capacity() != 0) std::vector<uint64_t>().swap(l.req.block_ids);
  free_slots_.push_back(slot);
  ++counters_.events;
}

int64_t ReplayEngine::AfterStep(const std::vector<Scheduled>& scheduled) {
  int64_t later_tokens = 0;
  // Decoders this step considered but did not schedule (the budget ran out) decode lazily again
  // from the next step on.
  if (lazy_decode_) {
    for (Slot slot : work_) {
      Live& l = slots_[slot];
      if (l.in_use && l.order >= 0 && !l.lazy && !l.prefilling && l.scheduled_step != step_ &&
          l.computed == l.req.prompt_tokens + l.generated - 1)
        MakeLazy(l);
    }
  }
  for (const Scheduled& s : scheduled) {
    Live& l = slots_[s.slot];
    if (tiers_ && l.in_use && l.computed > l.store_from) {
      // The connector stores the chunks this step completed, after the step.
      tiers_->StorePrompt(l.keys, l.store_from, l.computed);
      l.store_from = l.computed;
    }
    if (!l.in_use || l.order < 0) continue;
    if (l.computed < l.req.prompt_tokens + l.generated) continue;  // prefill continues next step
    if (l.prefilling) {
      prefilling_.erase(std::find(prefilling_.begin(), prefilling_.end(), s.slot));
      l.prefilling = false;
    }
    if (acceptance_) [[unlikely]] {  // the verified drafts, before the one token sampled after them
      l.generated += l.accepted;
      later_tokens += l.accepted;
      l.accepted = 0;
    }
    ++l.generated;
    if (l.record.first_token_ns < 0) l.record.first_token_ns = now_ns_;
    else ++later_tokens;
    if (l.generated >= l.target) {
      Finish(s.slot);
    } else if (lazy_decode_) {
      MakeLazy(l);
    }
  }
  // Lazy requests sampled one token each this step; those that finish are due as events.
  return later_tokens;
}

KvAccounting ReplayEngine::AccountingWithLazyTokens(int64_t step) const {
  KvAccounting a;
  FillAccountingWithLazyTokens(step, &a);
  return a;
}

void ReplayEngine::FillAccountingWithLazyTokens(int64_t step, KvAccounting* out) const {
  // Tokens decoded lazily since each request's last sync, and those a speculative run has not yet
  // handed to the allocator, are the engine's to report: they filled slots the allocator still
  // counts as reserved.
  const int64_t lag = (lazy_count_ * step - lazy_sum_sync_ + deferred_tokens_) * slots_per_token_;
  alloc_.FillAccounting(out, lag);
}

void ReplayEngine::SampleOffloadTiers(StepSample& s) const {
  static_assert(OffloadTiers::kMaxTiers <= StepSample::kMaxOffloadTiers, "every tier fits a step sample");
  s.offload_tiers = static_cast<int>(tiers_->tiers());
  for (size_t i = 0; i < tiers_->tiers(); ++i) s.offload_used_fraction[i] = tiers_->UsedFraction(i);
}

// speed: the accounting is written field by field into the sample itself, which is reused: zeroing a
// fresh sample each step, copying the accounting into it or adjusting two of its fields after the
// allocator wrote them all stalled on loads of just-stored data (store forwarding). Without kCounts
// (a verify run's later step: nothing admitted, preempted or finished) the counts stay the last's.
template <bool kCounts>
void ReplayEngine::RecordStep(int64_t start_ns, int64_t duration_ns, int64_t later_tokens) {
  StepSample& sample = step_sample_;
  sample.start_ns = start_ns;
  sample.duration_ns = duration_ns;
  sample.later_tokens = later_tokens;
  if (kCounts) {
    sample.running = static_cast<int64_t>(running_.size());
    sample.waiting = waiting();
    sample.preemptions_total = counters_.preemptions;
    sample.lora_adapters = adapter_slots_ ? static_cast<int64_t>(step_adapters_.size()) : 0;
  }
  KVSIM_DCHECK(sample.running == running() && sample.waiting == waiting() && sample.preemptions_total == counters_.preemptions &&
               sample.lora_adapters == (adapter_slots_ ? static_cast<int64_t>(step_adapters_.size()) : 0));
  sample.used_blocks = alloc_.UsedBlocks();
  FillAccountingWithLazyTokens(step_, &sample.kv);
  if (tiers_) SampleOffloadTiers(sample);
  KVSIM_DCHECK(sample.kv.Sum() == sample.kv.capacity_slots);  // every slot in exactly one category
  for (ReplayObserver* o : observers_) o->OnStep(sample);
}
template void ReplayEngine::RecordStep<true>(int64_t, int64_t, int64_t);
template void ReplayEngine::RecordStep<false>(int64_t, int64_t, int64_t);

void ReplayEngine::Deliver(TraceRequest&& r) {
  quiet_steps_left_ = 0;
  if (Idle()) now_ns_ = std::max(now_ns_, r.arrival_ns);
  Arrive(std::move(r));
}

// The arrivals the pass of the step starting now sees become eligible now; arrivals come in time
// order, so they leave the front of the queue.
// speed: inlined into StepOnce, its only caller, which runs it on most steps under async scheduling.
[[gnu::always_inline]] inline void ReplayEngine::MarkEligible() {
  const int64_t cutoff = PassCutoffNs();
  while (!not_yet_eligible_.empty() && slots_[not_yet_eligible_.front()].record.arrival_ns <= cutoff) {
    slots_[not_yet_eligible_.front()].record.eligible_ns = now_ns_;
    not_yet_eligible_.pop_front();
    --unseen_arrivals_;
  }
}

// Backlog entries come after every slotted arrival: they wait for those to be marked first.
// speed: out of line, so MarkEligible stays small enough to inline into StepOnce, which calls it on
// most steps under async scheduling (the default).
[[gnu::noinline]] void ReplayEngine::MarkBacklogEligible(int64_t cutoff) {
  if (!not_yet_eligible_.empty()) return;
  while (!unseen_backlog_.empty() && backlog_.At(unseen_backlog_.front()).arrival_ns <= cutoff) {
    backlog_.At(unseen_backlog_.front()).eligible_ns = now_ns_;
    unseen_backlog_.pop_front();
    --unseen_arrivals_;
  }
}

bool ReplayEngine::StepOnce(int64_t horizon_ns) {
  quiet_steps_left_ = 0;
  KVSIM_DCHECK(!waiting_.empty() || backlog_.empty());  // the backlog never waits behind an empty waiting_
  KVSIM_DCHECK(unseen_arrivals_ == static_cast<int64_t>(not_yet_eligible_.size() + unseen_backlog_.size()));
  if (unseen_arrivals_ != 0 && recv_.Receives(step_ + 1, running_.empty())) {
    if (!not_yet_eligible_.empty()) MarkEligible();
    if (!unseen_backlog_.empty()) MarkBacklogEligible(PassCutoffNs());
  }
  ++step_;
  preempted_this_step_ = false;
  scheduled_.clear();
  // speed: a step where only lazy decoders run and nothing is due schedules nothing explicitly,
  // and neither do the quiet steps after it.
  if (QuietDecodeStep()) {
    if (unseen_arrivals_ != 0) QuietStepAlone();
    else RunQuietSteps(horizon_ns);
    return true;
  }
  // speed: with speculation or LoRA, a step in which only decoders run skips the passes too.
  if (!lazy_decode_) [[unlikely]] {
    if ((acceptance_ || adapter_slots_) && ExplicitDecodeStep()) return RunExplicitDecodeSteps(horizon_ns);
    if (!decode_run_.empty()) SyncDeferredGrows();  // a run left open, before the passes read the pool
  }
  Passes passes(*this);
  return CompleteStep(scheduler_->Step(passes), horizon_ns, nullptr);
}

// The step's scheduling passes have run (`work`: Step's result): times it and records it.
[[gnu::always_inline]] inline bool ReplayEngine::CompleteStep(bool work, int64_t horizon_ns,
                                                              const int64_t* advanced_later_tokens) {
  const std::vector<Scheduled>& scheduled = scheduled_;
  if (!work && !loading_.empty()) {
    // Nothing runs: the connector's set-up delays only the transfers it started (their ready times).
    if (remote_) [[unlikely]] remote_->TakeStepHostNs();
    --step_;
    WaitForLoads(horizon_ns);
    return false;
  }
  if (!work && running_.empty()) {
    // Nothing runs and the head of the queue cannot be admitted into an empty pool: it never will.
    if (waiting_.empty()) PromoteFront();
    const Slot slot = waiting_.front();
    waiting_.pop_front();
    lora_set_aside_ = 0;
    waiting_tokens_ -= slots_[slot].req.prompt_tokens + slots_[slot].generated;
    slots_[slot].in_use = false;
    free_slots_.push_back(slot);
    --step_;
    Reject(std::move(slots_[slot].req), "cannot be admitted into an empty pool");
    if (waiting_.empty() && !backlog_.empty()) PromoteFront();  // the head of the queue keeps a slot
    return false;
  }
  StepWork w;
  for (const Scheduled& s : scheduled) w.Add(s.tokens, s.context);
  const int64_t lazy_context = LazyContextBeforeStep();
  w.sequences += lazy_count_;
  w.new_tokens += lazy_count_;
  w.context_tokens += lazy_context;
  w.attended += lazy_context + lazy_count_;
  const int64_t start = now_ns_;
  if (acceptance_) [[unlikely]] {
    // A decoding request's tokens past its first are drafts, whose logits the verify pass computes too.
    for (const Scheduled& s : scheduled)
      if (s.tokens > 1 && !slots_[s.slot].prefilling) w.draft_tokens += s.tokens - 1;
  }
  // speed: a decode-only step (every request samples one token, so no drafts) takes the batch's
  // cached terms.
  int64_t dt = w.DecodeOnly() ? DecodeRunFor(w.sequences).Ns(w.context_tokens) : timer_.StepNs(w);
  // A prompt token in the step (beyond each request's one token and its drafts to verify).
  if (recv_.skips() && w.new_tokens > w.sequences + w.draft_tokens) [[unlikely]] recv_.AfterNonDecodeStep(step_);
  if (acceptance_) [[unlikely]] dt += ProposerNs(scheduled);  // the drafter's passes follow the target's
  if (adapter_slots_) [[unlikely]] dt += LoraStepNs(scheduled, w, dt);
  if (remote_) [[unlikely]] dt += remote_->TakeStepHostNs();  // the connector posts before the forward
  KVSIM_DCHECK(dt > 0);  // time never goes back
  last_step_start_ns_ = now_ns_;
  now_ns_ += dt;
  const int64_t lazy_tokens = lazy_count_;  // every lazy request samples its next token
  if (advanced_later_tokens) [[unlikely]] FinishAdvanced();  // a decode run's step: AfterStep's work was done
  const int64_t later_tokens = lazy_tokens + (advanced_later_tokens ? *advanced_later_tokens : AfterStep(scheduled));
  ++counters_.steps;
  RecordStep(start, dt, later_tokens);
  return true;
}

bool ReplayEngine::CompleteStepOutOfLine(bool work, int64_t horizon_ns, const int64_t* advanced_later_tokens) {
  return CompleteStep(work, horizon_ns, advanced_later_tokens);
}

}  // namespace kvsim
