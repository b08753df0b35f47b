// ReplayEngine's quiet runs and held block growth (replay_engine.h): the steps in which only lazy
// decoders run, taken as one run, and the blocks those decoders cross into, taken per step.
#include "sim/engine/replay_engine.h"

#include <algorithm>
#include <bit>

#include "kvcache/base/check.h"

namespace kvsim {

// Takes the blocks the lazy requests cross into at `step`, keeping `spare_blocks` free for the
// explicit requests. False (nothing taken) when the pool is short.
bool ReplayEngine::HoldCrossings(int64_t step, int64_t spare_blocks) {
  const int64_t blocks = CrossingBlocks(step);
  if (blocks + spare_blocks > held_growth_->FreeBlocks()) return false;
  // Counted as the explicit grows they replace.
  counters_.events += crossings_by_phase_[static_cast<size_t>(HeldPhase(step))];
  if (blocks > 0) {
    const bool held = held_growth_->HoldBlocks(blocks);
    KVSIM_DCHECK(held);
    (void)held;
  }
  held_step_ = step;
  return true;
}

// The lazy requests that cross into a new block this step become explicit and join work_ (both in
// running order). O(running): only when the pool is short.
void ReplayEngine::MakeCrossingsExplicit() {
  const int64_t phase = HeldPhase(step_);
  due_.clear();
  for (const auto [order, slot] : running_) {
    Live& l = slots_[slot];
    if (l.lazy && l.phase == phase) {
      MakeExplicit(l);
      due_.push_back(slot);
    }
  }
  if (due_.empty()) return;
  const size_t n = work_.size();
  work_.insert(work_.end(), due_.begin(), due_.end());
  std::inplace_merge(work_.begin(), work_.begin() + static_cast<long>(n), work_.end(),
                     [this](Slot a, Slot b) { return slots_[a].order < slots_[b].order; });
}

// At most the blocks this step's explicit requests (work_) can take: a block per group for every
// started block of their pending tokens, plus one for a partly filled first block.
int64_t ReplayEngine::ExplicitBlocksBound() const {
  int64_t blocks = 0;
  for (Slot slot : work_) {
    const Live& l = slots_[slot];
    if (!l.in_use || l.order < 0) continue;
    blocks += HeldBlocksIn(PendingTokens(l) + held_block_size_ - 1) + 1;
  }
  return blocks * slots_per_token_;
}

// True when the v1 scheduler's step would only let the lazy decoders decode: no prefill, no event
// due this step (its calendar bucket is empty and the far heap's top is later), everyone fits the
// budget, and admission cannot (empty queue or max_num_seqs reached). Skipping its passes and
// AfterStep for such a step changes nothing: both would find no work.
bool ReplayEngine::QuietDecodeStep() const {
  if (!lazy_decode_ || lazy_count_ == 0 || !prefilling_.empty()) return false;
  if (lazy_count_ != static_cast<int64_t>(running_.size())) return false;  // someone runs explicitly
  // (A non-empty backlog implies a non-empty waiting_: the head of the queue always has a slot.)
  // Admission finds nothing to do when the head of the queue arrived after this step's pass ran
  // (async scheduling: AdmitWaiting stops at it, and arrivals queue in time order behind it).
  // With LoRA, requests the pass would only set aside again for want of an adapter slot admit nothing
  // either.
  // (speed: in a tail call, so the plain path keeps its frameless code.)
  if (!waiting_.empty() && static_cast<int64_t>(running_.size()) < o_.max_num_seqs &&
      slots_[waiting_.front()].record.eligible_ns >= 0)
    return slots_[waiting_.front()].lora_waited && QuietDecodeStepPastLoraWaiters();
  if (lazy_count_ >= o_.max_num_batched_tokens) return false;  // pass 2 would see no budget either way; keep it simple
  if (EventDue(step_)) return false;
  return held_block_size_ == 0 || CrossingBlocks(step_) <= held_growth_->FreeBlocks();
}

// QuietDecodeStep's checks after admission's, when the head of the queue was set aside for want of
// an adapter slot: the rest of them, then whether admission would only set requests aside again.
[[gnu::noinline]] bool ReplayEngine::QuietDecodeStepPastLoraWaiters() const {
  if (lazy_count_ >= o_.max_num_batched_tokens || EventDue(step_)) return false;
  if (held_block_size_ != 0 && CrossingBlocks(step_) > held_growth_->FreeBlocks()) return false;
  return OnlyLoraWaiters();
}

// The distance from step_ to the next step whose calendar bucket holds an entry, 1 to
// kCalendarSteps − 1 (step_'s own bucket was emptied when it was processed or is checked before a
// quiet run); INT64_MAX when every bucket is empty (later events are in the far heap).
int64_t ReplayEngine::StepsToNextCalendarEvent() const {
  constexpr int kWords = static_cast<int>(kCalendarSteps / 64);
  const int64_t from = (step_ + 1) % kCalendarSteps;
  for (int i = 0; i <= kWords; ++i) {
    const int64_t word = (from / 64 + i) % kWords;
    uint64_t bits = calendar_occupied_[static_cast<size_t>(word)];
    if (i == 0) bits &= ~uint64_t{0} << (from % 64);                               // at or after `from`
    if (i == kWords) bits &= (from % 64 == 0) ? 0 : ~(~uint64_t{0} << (from % 64));  // the wrap: before it
    if (bits != 0) {
      const int64_t bucket = word * 64 + std::countr_zero(bits);
      return (bucket - from + kCalendarSteps) % kCalendarSteps + 1;
    }
  }
  return INT64_MAX;
}

// speed: the batch-only terms of a decode step depend on the batch size alone; kept per size.
const DecodeRunTimer& ReplayEngine::DecodeRunFor(int64_t batch) {
  const size_t i = static_cast<size_t>(batch);
  if (decode_runs_.size() <= i) decode_runs_.resize(i + 1);
  if (!decode_runs_[i]) decode_runs_[i] = timer_.DecodeRun(batch);
  return *decode_runs_[i];
}

// Whether a lazy request's event (possibly stale) is due at `step`: its calendar bucket holds
// something or the far heap's top is due. REQUIRES: step − step_ < kCalendarSteps.
bool ReplayEngine::EventDue(int64_t step) const {
  if (!calendar_[static_cast<size_t>(step % kCalendarSteps)].empty()) return true;
  return !far_events_.empty() && far_events_.top().step <= step;
}

// speed: a quiet step that must be taken alone (async scheduling: an arrival no pass has seen yet
// becomes eligible at the next step's start, which a run would swallow). It is the step StepOnce's
// passes would take, which find nothing to schedule or admit, timed and recorded as StepOnce does;
// a one-step run would cost more than those passes.
void ReplayEngine::QuietStepAlone() {
  if (held_block_size_ > 0) {
    const bool ok = HoldCrossings(step_, 0);  // QuietDecodeStep saw the blocks free
    KVSIM_DCHECK(ok);
    (void)ok;
  }
  const int64_t start = now_ns_;
  int64_t dt = DecodeRunFor(lazy_count_).Ns(LazyContextBeforeStep());
  if (adapter_slots_) [[unlikely]] {
    LoraQuietBatch();
    dt += QuietLoraStepNs(dt);
  }
  KVSIM_DCHECK(dt > 0);
  last_step_start_ns_ = now_ns_;
  now_ns_ += dt;
  ++counters_.steps;
  RecordStep(start, dt, lazy_count_);  // every lazy request samples its next token
}

// The LoRA terms of a quiet run's steps (all running requests decode, so the batch and its adapters
// are the same at every step), added to each of the `steps` durations timed without them. The run,
// timed without them, went at least as far as the horizon lets it go with them; it is cut where the
// clock with them reaches the horizon. Returns the steps kept, *now_ns the clock after them.
// speed: out of line, off the plain path.
[[gnu::noinline]] int64_t ReplayEngine::AddLoraToQuietRun(int64_t steps, int64_t horizon_ns, int64_t* now_ns) {
  LoraQuietBatch();
  int64_t* durations = run_durations_.data();
  int64_t now = now_ns_;
  // speed: from the third step on, a quiet step's LoRA terms repeat the second's when the host's
  // share does not depend on the base step (its kernels replayed in a graph): the first step loads
  // what is not resident, the second touches the batch once more in its order (no load), and after
  // that activating the same batch changes nothing.
  StepWork quiet;
  quiet.Add(1, 0, lazy_count_);
  const bool repeats = step_adapters_.empty() || !o_.lora.host ||
                       !o_.lora.host->LaunchesFromCpu({quiet.new_tokens, quiet.sequences, quiet.DecodeOnly()});
  int64_t repeated_ns = -1, repeated_steps = 0;
  for (int64_t j = 0; j < steps; ++j) {
    if (repeated_ns >= 0) {
      durations[j] += repeated_ns;
      ++repeated_steps;
    } else {
      const int64_t ns = QuietLoraStepNs(durations[j]);
      durations[j] += ns;
      if (j == 1 && repeats) repeated_ns = ns;
    }
    now += durations[j];
    if (now >= horizon_ns) {
      steps = j + 1;
      break;
    }
  }
  if (repeated_steps > 0 && !step_adapters_.empty()) {
    // The counters LoraBatchNs adds for each such step: no loads, the same kernels and host time.
    LoraCounters& c = counters_.lora;
    c.kernel_ns += repeated_steps * lora_step_kernel_.ns;
    c.host_ns += repeated_steps * (repeated_ns - lora_step_kernel_.ns);
    c.lora_steps += repeated_steps;
  }
  *now_ns = now;
  quiet_run_.first.lora_adapters = static_cast<int64_t>(step_adapters_.size());
  return steps;
}

// speed: the quiet step step_ and the quiet steps after it, while no event is due in the next one
// and it would start before the horizon. Nothing but the lazy decoders' context and the clock
// changes across the run, so each step costs one step-model call.
void ReplayEngine::RunQuietSteps(int64_t horizon_ns) {
  const bool held = held_block_size_ > 0;
  // Held growth: the first step's crossings are taken now (QuietDecodeStep saw the blocks free),
  // the later steps' counted against what stays free and taken in one call at the end.
  int64_t spare = 0;
  if (held) {
    const bool ok = HoldCrossings(step_, 0);
    KVSIM_DCHECK(ok);
    (void)ok;
    spare = held_growth_->FreeBlocks();
  }
  // speed: one StepRun kept by the engine (zeroing a fresh one was a measurable part of a short run);
  // every field is set below.
  StepRun& run = quiet_run_;
  StepSample& s = run.first;
  s.start_ns = now_ns_;
  s.later_tokens = lazy_count_;  // every lazy request samples its next token
  s.running = static_cast<int64_t>(running_.size());
  s.waiting = waiting();
  FillAccountingWithLazyTokens(step_, &s.kv);
  s.used_blocks = alloc_.UsedBlocks();
  s.preemptions_total = counters_.preemptions;
  if (tiers_) SampleOffloadTiers(s);  // no chunk is stored or evicted while only decodes run
  KVSIM_DCHECK(s.kv.Sum() == s.kv.capacity_slots);
  const DecodeRunTimer& decode = DecodeRunFor(lazy_count_);
  const int64_t lazy = lazy_count_;
  int64_t* durations = run_durations_.data();  // kMaxRunSteps long
  int64_t* added_blocks = run_added_blocks_.data();
  // The steps the run may take, the clock aside: step step_ + j (j >= 1) must have no event due
  // (the calendar's next occupied bucket, the far heap's top: nothing is scheduled during the run)
  // and, under held growth, room for the blocks its crossings take on top of the earlier steps'.
  int64_t limit = std::min<int64_t>(static_cast<int64_t>(kMaxRunSteps), StepsToNextCalendarEvent());
  if (!far_events_.empty()) limit = std::min(limit, far_events_.top().step - step_);
  const int64_t* crossings = crossings_by_phase_.data();
  if (held) {
    // Any held_block_size_ consecutive steps cross every lazy request's boundary once.
    const int64_t period = lazy * slots_per_token_;
    const int64_t full = period > 0 ? spare / period : limit;
    if (full < HeldBlocksIn(limit) + 1) {
      int64_t taken = full * period;
      for (int64_t j = full * held_block_size_ + 1; j < limit; ++j) {
        taken += crossings[HeldPhase(step_ + j)] * slots_per_token_;
        if (taken > spare) {
          limit = j;
          break;
        }
      }
    }
  }
  KVSIM_DCHECK(limit >= 1);
  // speed: the clock alone decides where the run ends within the limit, so this loop only times
  // steps; what the steps add up to is summed after it.
  int64_t now = now_ns_;
  int64_t steps = decode.TimeSteps(LazyContextBeforeStep(), lazy, limit, horizon_ns, &now, durations);
  if (adapter_slots_) [[unlikely]] steps = AddLoraToQuietRun(steps, horizon_ns, &now);
  const int64_t duration_sum = now - now_ns_;
  last_step_start_ns_ = now - durations[steps - 1];
  now_ns_ = now;
  // What the observers integrate in closed form: Σ j·dt_j and, under held growth, Σ added_j·dt_j
  // (added_j the blocks taken at steps 1..j). In 64 bits when they cannot overflow (a run under
  // 2^50 ns; the blocks it may take times its time under 2^62), else in 128.
  Int128 step_duration_sum = 0, added_duration_sum = 0;
  int64_t added = 0, crossed = 0;
  const bool narrow = duration_sum < (int64_t{1} << 50) && (!held || static_cast<Int128>(spare) * duration_sum < (Int128{1} << 62));
  auto sum_steps = [&](auto zero) {  // zero: int64_t or Int128, the accumulators' type
    decltype(zero) by_step = 0, by_blocks = 0;
    if (held) {
      added_blocks[0] = 0;
      int64_t phase = HeldPhase(step_ + 1);
      for (int64_t k = 1; k < steps; ++k) {
        crossed += crossings[phase];
        added += crossings[phase] * slots_per_token_;
        by_step += static_cast<decltype(zero)>(k) * durations[k];
        by_blocks += static_cast<decltype(zero)>(added) * durations[k];
        added_blocks[k] = added;
        if (++phase == held_block_size_) phase = 0;
      }
    } else {
      for (int64_t k = 1; k < steps; ++k) by_step += static_cast<decltype(zero)>(k) * durations[k];
    }
    step_duration_sum = by_step;
    added_duration_sum = by_blocks;
  };
  if (narrow) sum_steps(int64_t{0});
  else sum_steps(Int128{0});
  if (held) {
    KVSIM_DCHECK(added <= spare);
    counters_.events += crossed;  // as HoldCrossings counts them
    if (added > 0) {
      const bool ok = held_growth_->HoldBlocks(added);
      KVSIM_DCHECK(ok);
      (void)ok;
    }
  }
  // Cut by the horizon, the run could have gone on quietly to step `limit`: the steps left before it
  // each take at least the last one's time when step times do not fall as contexts grow.
  const bool nondecreasing = decode.Nondecreasing();
  if (steps < limit && nondecreasing) {
    quiet_steps_left_ = limit - steps;
    quiet_step_ns_ = durations[steps - 1];
  }
  step_ += steps - 1;
  if (held) held_step_ = step_;
  counters_.steps += steps;
  s.duration_ns = durations[0];
  run.durations = durations;
  run.steps = steps;
  run.durations_nondecreasing = nondecreasing;
  if (adapter_slots_) [[unlikely]] {
    // LoRA's host share need not rise with the step: the steps are sorted only if they are, and the
    // steps not taken are not bounded by the last one.
    run.durations_nondecreasing = nondecreasing && std::is_sorted(durations, durations + steps);
    quiet_steps_left_ = 0;
  }
  run.token_slots_per_step = lazy_count_ * slots_per_token_;
  run.duration_sum = duration_sum;
  run.step_duration_sum = step_duration_sum;
  run.added_blocks = held ? added_blocks : nullptr;
  run.block_slots = held ? held_block_size_ : 0;
  run.added_duration_sum = added_duration_sum;
  for (ReplayObserver* o : observers_) o->OnStepRun(run);
}

}  // namespace kvsim
