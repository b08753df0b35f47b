// ReplayEngine: the discrete-event replay of a request trace through a KV allocator under a
// vLLM-style scheduler. Integer-nanosecond clock; one engine step at a time; time never goes
// backwards.
//
// Scheduler `vllm` (vLLM v1, reference/serving-memory-facts.md §2.6), every step:
//   pass 1  running requests in admission order get tokens from the step budget
//           (max_num_batched_tokens): the rest of their prompt (chunked prefill) or one decode
//           token. When a request cannot get memory the most recently admitted running request is
//           preempted by recompute (its memory freed, back to the head of the queue), and the
//           request retries; if it was itself the victim, pass 1 stops.
//   pass 2  only if nothing was preempted: waiting requests in FCFS order are admitted (prefix
//           lookup, first chunk) while budget, max_num_seqs and memory allow; the first that does
//           not fit stops admission.
// A request's step that computes its last pending token samples one output token; it finishes
// when it has sampled all of its output tokens (capped so prompt + output <= max_model_len).
//
// Scheduler `vllm-v0`: a step either prefills whole prompts of waiting requests (FCFS, admission
// watermark in the allocator) or decodes every running request; preemption by recompute.
//
// Event skipping (lazy decode): a running request that only decodes and whose next tokens fit in
// memory it already holds (KvAllocator::GrowRoom) is not touched until its next event: a block
// boundary, or its last output token. Its tokens are accounted in aggregate meanwhile. Steps in
// which the budget runs out before the pass in admission order reaches the newest lazy decoder
// fall back to processing every request in order. The results are identical to stepping every
// request every step (Stepping::kToken).
//
// Quiet runs: when only lazy requests run, nothing is due and nothing can be admitted, the steps up
// to the next due event or arrival are taken in one call and reported as one StepRun: each step's
// time is still the step model's, but no scheduling pass runs and observers take the run whole.
// With held growth (counting-mode paged pools) a lazy request's block boundaries are not events
// either, as long as the pool has the blocks: the step's crossings are taken in one HoldBlocks call
// (they cannot fail, so the order of pass 1 does not matter); when the pool might be short, the
// requests crossing in that step grow explicitly, in running order with the others, as due events.
#ifndef KVSIM_SIM_REPLAY_ENGINE_H_
#define KVSIM_SIM_REPLAY_ENGINE_H_

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <queue>
#include <vector>

#include "kvcache/base/check.h"
#include "kvcache/held_growth.h"
#include "kvcache/kv_allocator.h"
#include "kvcache/offload/offload_tiers.h"
#include "sim/engine/arrival_backlog.h"
#include "sim/engine/engine_kinds.h"
#include "sim/engine/engine_options.h"
#include "sim/engine/explicit_decoder.h"
#include "sim/engine/lora_adapters.h"
#include "sim/engine/recv_polling.h"
#include "sim/engine/replica_scheduler.h"
#include "sim/engine/remote_kv.h"
#include "sim/engine/replay_observer.h"
#include "sim/engine/running_set.h"
#include "sim/engine/speculation.h"
#include "sim/timing/step_timer.h"
#include "workloads/request_source.h"

namespace kvsim {

class ReplayEngine final {
 public:
  // Every observer sees every step and request, in order; all references must outlive the engine.
  ReplayEngine(EngineOptions options, KvAllocator& allocator, const StepTimer& timer,
               std::vector<ReplayObserver*> observers);

  // The event loop (sim/fleet/event_loop.h) delivers each arrival to one engine and steps the engine
  // whose next step starts first.
  // An arrival routed here; REQUIRES: its time is not after the engine's next step start (or the
  // engine is idle, and then its clock jumps to the arrival).
  void Deliver(TraceRequest&& r);
  bool Idle() const {  // a non-empty backlog implies a non-empty waiting_ (its head has a slot)
    KVSIM_DCHECK(!waiting_.empty() || backlog_.empty());
    return running_.empty() && waiting_.empty();
  }
  int64_t now_ns() const { return now_ns_; }  // start of the next step when not idle
  // A time before which every step the engine would start is a quiet decode step (none finishes, is
  // admitted or preempted: counts stay, KV use only grows). Known after a quiet run cut short by its
  // horizon, otherwise at most now_ns(); Deliver resets it.
  int64_t quiet_until_ns() const {
    int64_t span = 0, until = 0;
    if (__builtin_mul_overflow(quiet_steps_left_, quiet_step_ns_, &span) || __builtin_add_overflow(now_ns_, span, &until))
      return INT64_MAX;
    return until;
  }
  // One step (or the rejection of a request that can never be admitted), or a run of quiet decode
  // steps (nothing due, nothing to admit) that ends before the first step that would start at or
  // after `horizon_ns` (the next arrival: it must be delivered before a step that starts after it).
  // Returns true when a step was taken. REQUIRES: !Idle().
  bool StepOnce(int64_t horizon_ns = INT64_MAX);
  const EngineCounters& counters() const { return counters_; }
  int64_t running() const { return static_cast<int64_t>(running_.size()); }
  int64_t waiting() const { return static_cast<int64_t>(waiting_.size() + backlog_.size()); }
  int64_t waiting_tokens() const { return waiting_tokens_; }  // prompts (and recomputed outputs) still to admit
  const KvAllocator& allocator() const { return alloc_; }
  // KV tiers below the GPU (kvcache/offload/offload_tiers.h): looked up after the GPU prefix cache
  // at admission, a hit's load on the request's path (it holds its blocks and is skipped, as vLLM's
  // WAITING_FOR_REMOTE_KVS, until a scheduler pass has seen a step report the load finished:
  // ReleaseLoaded); every step's completed prompt chunks stored.
  // Null (the default): no tier, and no cost. REQUIRES: a paged allocator, scheduler vllm.
  void SetOffloadTiers(OffloadTiers* tiers) { tiers_ = tiers; }
  // A decode instance of a disaggregated deployment: every request's prompt but its last token
  // arrives from a prefill instance (RemoteKv), reserved at admission and waited for like a load.
  void SetRemoteKv(RemoteKv* remote) { remote_ = remote; }
  // After the last arrival, once idle: every block held for lazy decoders went to its request.
  bool HeldBlocksSettled() const { return !held_growth_ || lazy_count_ > 0 || held_growth_->HeldBlocks() == 0; }

 private:
  std::vector<std::vector<BlockKey>> spare_keys_;  // emptied key buffers, reused by EnsureKeys
  // Laid out by heat: the first cache line holds what every step reads of a running request, the
  // second its flags and the prompt length; the keys, the trace request and the record follow.
  struct alignas(64) Live {
    int64_t computed = 0;         // tokens computed (the allocator holds computed − unsynced)
    int64_t generated = 0;        // synced
    int64_t target = 0;           // output tokens to sample
    int64_t unsynced = 0;         // lazily decoded tokens not yet handed to the allocator
    int64_t order = -1;           // running order (admission sequence); -1 when waiting
    int64_t sync_step = 0;        // lazy: step after which `computed`/`generated` are exact
    int64_t phase = 0;            // lazy, held growth: steps ≡ phase (mod block size) cross into a new block
    int64_t scheduled_step = 0;   // the last step it was scheduled in
    uint64_t version = 0;         // of its pending event; stale events carry older numbers
    int64_t accepted = 0;         // speculative: drafts the target accepts in the current step
    bool in_use = false;
    bool lazy = false;
    bool prefilling = false;
    bool loading = false;         // its prompt's KV is being loaded until ready_ns (not scheduled)
    bool tier_load = false;       // the load is from the offload tiers: seen at a step's end (seen_ns)
    bool lora_waited = false;     // set aside at least once for want of an adapter slot
    TraceRequest req;
    int64_t ready_ns = 0;
    int64_t seen_ns = -1;         // a tier load: the end of the step whose get_finished reported it
    int64_t store_from = 0;       // offload: prompt tokens before this are stored or were loaded
    std::vector<BlockKey> keys;
    RequestRecord record;
  };
  using Slot = uint32_t;  // index into slots_: requests in flight live in a slab, not a hash map
  struct Event {
    int64_t step;
    int64_t order;
    Slot slot;
    uint64_t version;
    bool operator>(const Event& o) const { return step != o.step ? step > o.step : order > o.order; }
  };
  struct Scheduled { Slot slot; int64_t tokens; int64_t context; };  // context: computed tokens before this step

  void Arrive(TraceRequest&& r);
  // The admission of a request that has generated nothing yet, without prefix keys.
  AdmitRequest FreshAdmission(uint64_t id, int64_t prompt_tokens, int64_t target) const {
    AdmitRequest q;
    q.id = id;
    q.prompt_tokens = prompt_tokens;
    q.final_tokens = prompt_tokens + target - 1;  // the last sampled token never enters the KV cache
    q.max_tokens_limit = prompt_tokens + std::max<int64_t>(1, o_.max_model_len - prompt_tokens);
    return q;
  }
  // vLLM's default max_tokens leaves room for the prompt within max_model_len.
  int64_t TargetOf(int64_t prompt_tokens, int64_t output_tokens) const { return std::min(output_tokens, o_.max_model_len - prompt_tokens); }
  // Gives the backlog's front a full slot at the back of waiting_ (admission is about to consider it).
  void PromoteFront();
  // A request joins the back of waiting_ with a slot of its own (an arrival, or the backlog's front).
  void TakeSlot(TraceRequest&& r, int64_t target, int64_t in_flight_end_ns, int64_t eligible_ns);
  // Async scheduling: the newest arrival the scheduler pass of the step starting now could see, and
  // the eligibility times of the arrivals it could not see yet (in arrival order).
  int64_t PassCutoffNs() const { return !o_.async_scheduling || running_.empty() ? now_ns_ : last_step_start_ns_; }
  void MarkEligible();
  void MarkBacklogEligible(int64_t cutoff);
  // The passes a scheduler step is made of (replay_engine_passes.cpp), and the view through which
  // the scheduler reaches them and nothing else (SchedulingPasses, replica_scheduler.h).
  void CollectDueRequests();
  bool LazyDecodersReached(int64_t budget) const;
  bool LazyDecodersReachedInOrder(int64_t budget) const;
  void ScheduleRunning(RunningPass pass, int64_t& budget);
  bool AdmitWaiting(int64_t& budget, bool whole_prompt);
  OffloadTiers::Match MatchBelowGpu(const Live& l, AdmitRequest& q, int64_t budget);
  bool StartsLoading(Live& l, Slot slot, const OffloadTiers::Match& match, const AdmitPlan& plan, int64_t prompt_tokens);
  class Passes final {
   public:
    explicit Passes(ReplayEngine& e) : e_(e) {}
    int64_t TokenBudget() const { return e_.o_.max_num_batched_tokens; }
    bool LazyDecoding() const { return e_.lazy_decode_; }
    void CollectDueRequests() { e_.CollectDueRequests(); }
    int64_t LazyDecoders() const { return e_.lazy_count_; }
    bool LazyDecodersReached(int64_t budget) const { return e_.LazyDecodersReached(budget); }
    void ScheduleRunning(RunningPass pass, int64_t& budget) { e_.ScheduleRunning(pass, budget); }
    bool AdmitWaiting(int64_t& budget, bool whole_prompt) { return e_.AdmitWaiting(budget, whole_prompt); }
    bool PreemptedThisStep() const { return e_.preempted_this_step_; }
    bool ScheduledAny() const { return !e_.scheduled_.empty(); }

   private:
    ReplayEngine& e_;
  };
  std::unique_ptr<ReplicaScheduler<Passes>> scheduler_;  // chosen once, by EngineOptions::scheduler
  static std::unique_ptr<ReplicaScheduler<Passes>> MakeScheduler(SchedulerKind kind);
  bool QuietDecodeStep() const;
  bool QuietDecodeStepPastLoraWaiters() const;
  // Explicit decode runs, with speculation or LoRA (replay_engine_decode_runs.cpp).
  bool ExplicitDecodeStep() const;
  bool RunExplicitDecodeSteps(int64_t horizon_ns);
  bool GrowOrPreempt(Slot slot, int64_t kept);  // grow_or_preempt.h
  void SyncDeferredGrows();
  void CompleteRunStep(int64_t batch, int64_t context, int64_t later_tokens, bool repeat, bool finishes);
  void FinishAdvanced();
  template <bool kAdvance> void ScheduleRunStep(RunStepSums& sums);  // explicit_decoder.h
  void LoadRun();
  void StoreRun(size_t scheduled_upto);
  void ListRunScheduled(size_t upto);
  std::vector<ExplicitDecoder> decode_run_;
  int64_t deferred_tokens_ = 0;  // Σ unsynced: computed in a run, not yet given to the allocator
  // After the scheduler's passes: times, applies and records the step (false: none taken); with
  // `advanced_later_tokens` the requests were already advanced that many tokens past their first.
  bool CompleteStep(bool work, int64_t horizon_ns, const int64_t* advanced_later_tokens);
  bool CompleteStepOutOfLine(bool work, int64_t horizon_ns, const int64_t* advanced_later_tokens);  // for another file
  bool EventDue(int64_t step) const;
  void RunQuietSteps(int64_t horizon_ns);
  int64_t AddLoraToQuietRun(int64_t steps, int64_t horizon_ns, int64_t* now_ns);
  void QuietStepAlone();
  // Returns the tokens sampled this step that were not a request's first (the ITL samples).
  int64_t AfterStep(const std::vector<Scheduled>& scheduled);
  void MakeLazy(Live& l);
  void MakeExplicit(Live& l);
  void Preempt(Slot slot);
  void Finish(Slot slot);
  Slot NewSlot();
  bool ScheduleExplicit(Slot slot, int64_t& budget, std::vector<Scheduled>& scheduled);
  void Reject(TraceRequest r, const std::string& reason);
  // Prefix keys from the trace's block ids, computed once, when admission first considers `l`.
  // (Inline guards: a trace without block ids pays one test per admission and completion.)
  void EnsureKeys(Live& l) {
    if (!l.req.block_ids.empty() && l.keys.empty()) ComputeKeys(l);
  }
  void ReleaseKeys(Live& l) {
    if (l.keys.capacity() != 0) ReleaseKeyBuffer(l);
  }
  void ComputeKeys(Live& l);
  void ReleaseKeyBuffer(Live& l);
  AdmitRequest AdmissionFor(const Live& l) const;
  int64_t PendingTokens(const Live& l) const { return l.req.prompt_tokens + l.generated - l.computed; }
  int64_t LazyContextBeforeStep() const;
  KvAccounting AccountingWithLazyTokens(int64_t step) const;
  // The same, written into *out (RecordStep's sample).
  void FillAccountingWithLazyTokens(int64_t step, KvAccounting* out) const;
  template <bool kCounts = true> void RecordStep(int64_t start_ns, int64_t duration_ns, int64_t later_tokens);
  void SampleOffloadTiers(StepSample& s) const;
  void Done(const RequestRecord& record) {
    for (ReplayObserver* o : observers_) o->OnRequestDone(record);
  }

  EngineOptions o_;
  bool lazy_decode_ = true;
  std::optional<AcceptanceDraw> acceptance_;  // with speculative decoding
  // LoRA: GPU slots and host cache; running requests per adapter and how many adapters have any.
  std::optional<AdapterSlots> adapter_slots_;
  std::vector<int64_t> adapter_running_;
  int64_t running_adapters_ = 0;
  std::vector<uint32_t> step_adapters_;  // scratch
  std::vector<std::pair<int64_t, uint32_t>> step_adapter_firsts_;  // scratch: (earliest order, adapter)
  LazyAdapterSet lazy_adapters_;
  LoraKernelMemo lora_kernel_memo_;
  LoraStepWork lora_step_work_;             // the last step's, with its kernels' time
  LoraKernelMemo::Time lora_step_kernel_;
  // A waiting request on adapter `a` cannot join while max_loras other adapters run (vLLM skips it).
  bool AdapterSlotsFull(uint32_t a) const {
    return running_adapters_ >= o_.lora.max_loras && (a >= adapter_running_.size() || adapter_running_[a] == 0);
  }
  // The leading waiting_ requests the last admission pass set aside for want of an adapter slot.
  // They stay blocked until an adapter leaves the running set (a slot may free) or the front of the
  // queue changes (a preemption, a rejection); admissions, which only fill slots, keep them blocked.
  size_t lora_set_aside_ = 0;
  bool LoraSetAsideStillBlocked() const;  // debug check
  void AdapterJoins(uint32_t a);
  void AdapterLeaves(uint32_t a);
  // `base_ns`: the step without LoRA (whose GPU time may hide LoRA's launches from the CPU).
  int64_t LoraStepNs(const std::vector<Scheduled>& scheduled, const StepWork& work, int64_t base_ns);
  int64_t RepeatLoraStepNs(const StepWork& work, int64_t base_ns);  // the last step's batch again
  int64_t QuietLoraStepNs(int64_t base_ns);  // a quiet step's, after LoraQuietBatch()
  void LoraQuietBatch();
  bool OrderStepAdapters(const std::vector<Scheduled>& scheduled, LoraStepWork& w);
  void WalkStepAdapters(const std::vector<Scheduled>& scheduled, LoraStepWork& w, std::vector<uint32_t>& adapters) const;
  bool LoraBatchMatchesWalk(const std::vector<Scheduled>& scheduled, const LoraStepWork& w) const;  // debug check
  // The running set LoraQuietBatch last read (running requests, admissions, preemptions: a request
  // joins only by admission), or -1 after another step's batch replaced it.
  std::array<int64_t, 3> lora_quiet_batch_of_{-1, -1, -1};
  bool OnlyLoraWaiters() const;  // replay_engine_decode_runs.cpp
  bool WalkLoraWaiters() const;
  // OnlyLoraWaiters' last answer and what it depends on: every change to the queue, its requests'
  // eligibility and lora_waited marks, and the running adapters moves one of these.
  struct LoraWaitersMemo {
    int64_t admissions = -1, preemptions = 0, adapters = 0, waited = 0, unseen = 0;
    size_t waiting = 0, backlog = 0;
    uint64_t front = 0, back = 0;  // request ids at the queue's ends
    bool only = false;
    bool operator==(const LoraWaitersMemo&) const = default;
  };
  mutable LoraWaitersMemo lora_waiters_memo_;
  int64_t LoraBatchNs(const StepWork& work, int64_t base_ns);
  int64_t ProposerNs(const std::vector<Scheduled>& scheduled);
  KvAllocator& alloc_;
  const StepTimer& timer_;
  std::vector<ReplayObserver*> observers_;

  int64_t now_ns_ = 0;
  // quiet_until_ns(): after a quiet run cut by its horizon, the quiet steps it could still have taken
  // and the time of its last step (a lower bound of theirs); 0 otherwise.
  int64_t quiet_steps_left_ = 0;
  int64_t quiet_step_ns_ = 0;
  int64_t last_step_start_ns_ = 0;   // start of the step that ended at now_ns_
  // Async scheduling: arrivals no pass has seen yet, in arrival order: slotted ones, then backlog
  // entries (by Seq). Every backlog entry arrived after every slotted arrival: an arrival takes a
  // slot only while the backlog is empty.
  std::deque<Slot> not_yet_eligible_;
  std::deque<uint64_t> unseen_backlog_;
  int64_t unseen_arrivals_ = 0;  // both queues' entries: one test on the hot paths
  RecvPolling recv_;             // which steps' passes may see new arrivals (SGLang's recv interval)
  int64_t step_ = 0;                 // index of the step being built / last done
  std::vector<Live> slots_;
  std::vector<Slot> free_slots_;
  // The waiting queue is waiting_ then backlog_: requests with a full slot (preempted ones, at the
  // front, and those admission has considered) before the arrivals no pass has looked at yet, kept
  // compact (arrival_backlog.h). An arrival takes a slot directly while the backlog is empty and
  // waiting_ is short (EngineOptions::slotted_arrivals; speed: a queue that keeps up never encodes
  // an arrival).
  std::deque<Slot> waiting_;
  ArrivalBacklog backlog_;
  std::vector<uint64_t> backlog_ids_;  // scratch for a promoted entry's block ids
  RunningSet<Slot> running_;               // by admission order
  std::vector<Slot> prefilling_;           // running requests still computing their prompt, by order
  std::vector<Slot> due_, work_;           // per-step scratch
  std::vector<Scheduled> scheduled_;
  std::vector<int64_t> run_durations_;     // the steps of the current quiet run (kMaxRunSteps long)
  std::vector<std::unique_ptr<DecodeRunTimer>> decode_runs_;  // by batch size, built on first use
  const DecodeRunTimer& DecodeRunFor(int64_t batch);
  std::vector<std::unique_ptr<DecodeRunTimer>> verify_runs_;  // by batch size, 1 + k tokens each
  const DecodeRunTimer& VerifyRunFor(int64_t batch);
  // The sample RecordStep fills for the observers: every field is set at each step except the KV tiers'
  // shares, which stay zero without tiers (speed: no zeroing of the whole sample each step).
  StepSample step_sample_;
  StepRun quiet_run_;  // the current quiet run, reported to the observers (RunQuietSteps sets every field)
  static constexpr size_t kMaxRunSteps = 4096;
  int64_t waiting_tokens_ = 0;
  // Lazy requests' next events: a calendar of per-step buckets for the near future (a block's
  // worth of steps), a heap for anything further.
  // Calendar entries are 8 bytes: the bucket says the step, the order is looked up, and the low
  // 32 bits of the version suffice (fewer than 2^32 events are scheduled within a lap).
  struct CalendarEntry {
    Slot slot;
    uint32_t version;
  };
  static constexpr int64_t kCalendarSteps = 256;
  std::vector<std::vector<CalendarEntry>> calendar_ = std::vector<std::vector<CalendarEntry>>(kCalendarSteps);
  // Which calendar buckets hold entries (bit step % kCalendarSteps), so a quiet run finds the next
  // due step with a few word scans instead of testing every step's bucket.
  std::array<uint64_t, kCalendarSteps / 64> calendar_occupied_{};
  int64_t StepsToNextCalendarEvent() const;  // from step_; INT64_MAX when none
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> far_events_;
  void ScheduleEvent(const Event& e);
  int64_t next_order_ = 0;
  uint64_t next_version_ = 1;  // never reused, even when a slot is
  int64_t lazy_count_ = 0, lazy_sum_computed_ = 0, lazy_sum_sync_ = 0;
  // Held growth (kvcache/held_growth.h; null and 0 when the allocator does not offer it): a lazy request
  // crosses block boundaries without an event; each step the blocks its lazy requests cross into
  // are held at once, counted by the step's residue modulo the block size. Events remain for
  // entering the last block (where reserved slots stop at the request's end) and for the last token.
  HeldGrowth* held_growth_ = nullptr;
  int64_t held_block_size_ = 0;
  int64_t held_block_mask_ = -1;             // held_block_size_ − 1 when a power of two, else −1
  // x modulo the held block size, in [0, size) for negative x too. speed: a mask, not a division,
  // when the size is a power of two (all but hybrid models' raised sizes): it runs at every event
  // of every lazy decoder and at every quiet step.
  int64_t HeldPhase(int64_t x) const {
    return held_block_mask_ >= 0 ? (x & held_block_mask_) : (x % held_block_size_ + held_block_size_) % held_block_size_;
  }
  // x / held block size, rounded down (x >= 0), likewise by shift when it can.
  int64_t HeldBlocksIn(int64_t x) const {
    return held_block_mask_ >= 0 ? x >> std::countr_zero(static_cast<uint64_t>(held_block_size_)) : x / held_block_size_;
  }
  std::vector<int64_t> crossings_by_phase_;  // lazy requests per phase
  std::vector<int64_t> run_added_blocks_;    // cumulative blocks held during the current quiet run (kMaxRunSteps long)
  int64_t held_step_ = -1;                   // the last step whose crossings were held
  int64_t CrossingBlocks(int64_t step) const {
    return crossings_by_phase_[static_cast<size_t>(HeldPhase(step))] * slots_per_token_;
  }
  bool HoldCrossings(int64_t step, int64_t spare_blocks);
  void MakeCrossingsExplicit();
  int64_t ExplicitBlocksBound() const;
  // Offload tiers (null: none); requests whose load is in flight, and the step that waits for one.
  OffloadTiers* tiers_ = nullptr;
  RemoteKv* remote_ = nullptr;
  std::vector<Slot> loading_;
  void ReleaseLoaded();
  void WaitForLoads(int64_t horizon_ns);
  bool preempted_this_step_ = false;
  EngineCounters counters_;
  bool grows_compose_ = true;
  int64_t slots_per_token_ = 1;  // the allocator's (one per layer group), fixed
};

}  // namespace kvsim

#endif  // KVSIM_SIM_REPLAY_ENGINE_H_
