// What a replay reports as it runs: one StepSample per engine step and one RequestRecord per
// request that ends (finished or rejected), handed to ReplayObservers. Observers only look: the
// statistics (replay_stats.h), the CSV outputs and the report's charts are observers, and none of
// them can change what the engine does.
#ifndef KVSIM_SIM_REPLAY_OBSERVER_H_
#define KVSIM_SIM_REPLAY_OBSERVER_H_

#include <cstdint>
#include <string>

#include "kvcache/base/wide_int.h"
#include "kvcache/kv_allocator.h"

namespace kvsim {

struct RequestRecord {
  uint64_t id = 0;
  int64_t arrival_ns = 0;
  int64_t in_flight_end_ns = -1; // end of the step running when it arrived (its arrival on an idle engine)
  int64_t eligible_ns = -1;      // start of the first step whose scheduler pass could see it
  int64_t admitted_ns = -1;      // first admission
  int64_t first_token_ns = -1;
  int64_t finished_ns = -1;
  int64_t prompt_tokens = 0;
  int64_t output_tokens = 0;     // generated (after truncation to max_model_len)
  int64_t cached_tokens = 0;     // prompt tokens served by the prefix cache at first admission
  int64_t preemptions = 0;
  uint32_t adapter = 0;          // LoRA adapter (0: the base model)
  std::string rejected_reason;   // empty: finished
};

// The latencies of a finished request, in seconds.
struct RequestLatencies {
  double queue_s = 0;  // arrival to first admission
  double ttft_s = 0;   // arrival to first output token
  // ttft_s in parts (they sum to it): the rest of the step running at arrival, async scheduling's
  // extra step (EngineOptions::async_scheduling), waiting for budget, seats or memory, and the
  // request's own prefill steps up to its first sampled token.
  double step_in_flight_s = 0, async_scheduling_s = 0, wait_s = 0, prefill_s = 0;
  double tpot_s = 0;   // mean time per output token after the first; 0 for one-token outputs
  double e2e_s = 0;    // arrival to last token
  bool has_tpot = false;
};

// The parts of a finished request's time to first token (RequestLatencies), in ns: exact, so that
// a sum over a million requests is too.
struct TtftPartsNs {
  int64_t step_in_flight = 0, async_scheduling = 0, wait = 0, prefill = 0;
};
inline TtftPartsNs TtftPartsOf(const RequestRecord& r) {
  // Records made without the engine (tests) leave the two marks unset: no step in flight, no delay.
  const int64_t in_flight_end = r.in_flight_end_ns >= 0 ? r.in_flight_end_ns : r.arrival_ns;
  const int64_t eligible = r.eligible_ns >= 0 ? r.eligible_ns : in_flight_end;
  return {in_flight_end - r.arrival_ns, eligible - in_flight_end, r.admitted_ns - eligible, r.first_token_ns - r.admitted_ns};
}

// REQUIRES: r finished (rejected_reason empty).
inline RequestLatencies LatenciesOf(const RequestRecord& r) {
  RequestLatencies l;
  l.queue_s = static_cast<double>(r.admitted_ns - r.arrival_ns) / 1e9;
  l.ttft_s = static_cast<double>(r.first_token_ns - r.arrival_ns) / 1e9;
  l.e2e_s = static_cast<double>(r.finished_ns - r.arrival_ns) / 1e9;
  const TtftPartsNs parts = TtftPartsOf(r);
  l.step_in_flight_s = static_cast<double>(parts.step_in_flight) / 1e9;
  l.async_scheduling_s = static_cast<double>(parts.async_scheduling) / 1e9;
  l.wait_s = static_cast<double>(parts.wait) / 1e9;
  l.prefill_s = static_cast<double>(parts.prefill) / 1e9;
  l.has_tpot = r.output_tokens > 1;
  if (l.has_tpot)
    l.tpot_s = static_cast<double>(r.finished_ns - r.first_token_ns) / 1e9 / static_cast<double>(r.output_tokens - 1);
  return l;
}

struct StepSample {
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
  int64_t later_tokens = 0;      // tokens sampled this step after each request's first: each waited duration_ns
  int64_t running = 0;
  int64_t waiting = 0;
  int64_t used_blocks = 0;       // KvAllocator::UsedBlocks()
  KvAccounting kv;               // after the step
  int64_t preemptions_total = 0;
  int64_t lora_adapters = 0;     // distinct LoRA adapters among the requests this step ran
  // KV tiers below the GPU (--kv-offload), fastest first: the share of each tier's chunks in use.
  static constexpr int kMaxOffloadTiers = 4;
  int offload_tiers = 0;
  double offload_used_fraction[kMaxOffloadTiers] = {};
};

// A run of quiet decode steps (ReplayEngine): consecutive steps in which nothing changes but the
// clock and the tokens the running requests decode. Step j (from 0) starts when step j − 1 ends and
// lasts durations[j]; its sample is `first` with that start and duration and j·token_slots_per_step
// more token slots (as many fewer reserved ones: the decoded tokens fill slots their blocks held).
// When the decoders cross into new blocks during the run (held growth), added_blocks[j] blocks more
// than in the first step are in use at step j, each block_slots slots moved from free to reserved.
struct StepRun {
  StepSample first;
  const int64_t* durations = nullptr;
  int64_t steps = 0;
  bool durations_nondecreasing = false;  // each step at least as long as the one before
  int64_t token_slots_per_step = 0;
  const int64_t* added_blocks = nullptr;  // nullptr: none
  int64_t block_slots = 0;
  // For observers that integrate in closed form: Σ durations[j], Σ j·durations[j] and
  // Σ added_blocks[j]·durations[j] (ns; block·ns).
  int64_t duration_sum = 0;
  Int128 step_duration_sum = 0, added_duration_sum = 0;

  // Step j's sample, given its start.
  StepSample Step(int64_t j, int64_t start_ns) const {
    StepSample s = first;
    s.start_ns = start_ns;
    s.duration_ns = durations[j];
    s.kv.token_slots += j * token_slots_per_step;
    s.kv.reserved_slots -= j * token_slots_per_step;
    if (added_blocks) {
      s.used_blocks += added_blocks[j];
      s.kv.reserved_slots += added_blocks[j] * block_slots;
      s.kv.free_slots -= added_blocks[j] * block_slots;
    }
    return s;
  }
};

class ReplayObserver {
 public:
  virtual ~ReplayObserver() = default;
  virtual void OnStep(const StepSample& sample) { (void)sample; }
  // Observers that can take a run whole override this (speed); the default sees every step.
  virtual void OnStepRun(const StepRun& run) {
    int64_t start = run.first.start_ns;
    for (int64_t j = 0; j < run.steps; ++j) {
      OnStep(run.Step(j, start));
      start += run.durations[j];
    }
  }
  virtual void OnRequestDone(const RequestRecord& record) { (void)record; }
  // A request's first admission: prompt tokens looked up in the prefix cache and found there.
  virtual void OnPrefixLookup(int64_t queried_tokens, int64_t hit_tokens) { (void)queried_tokens, (void)hit_tokens; }
  // A preempted request's re-admission: its prompt (and recomputed output) looked up again.
  virtual void OnPrefixRelookup(int64_t queried_tokens, int64_t hit_tokens) { (void)queried_tokens, (void)hit_tokens; }
};

}  // namespace kvsim

#endif  // KVSIM_SIM_REPLAY_OBSERVER_H_
