// The state of ReplayEngine's explicit decode runs (replay_engine_decode_runs.cpp), kept apart from
// replay_engine.h.
#ifndef KVSIM_SIM_ENGINE_EXPLICIT_DECODER_H_
#define KVSIM_SIM_ENGINE_EXPLICIT_DECODER_H_

#include <cstddef>
#include <cstdint>

#include "kvcache/kv_allocator.h"

namespace kvsim {

// A running request of the current run, in running order, with the fields its steps change.
// speed: the run keeps them here, compact, and copies them from and to the request's state in the
// engine (LoadRun, StoreRun) around anything else that reads them: a grow that may preempt, a
// finish, a step the scheduler's code completes.
struct ExplicitDecoder {
  uint32_t slot;        // the engine's slot of the request
  bool live;            // neither preempted nor finished
  RequestId id;
  int64_t room;         // tokens it may still add without a Grow (GrowRoom when last synced, less unsynced)
  int64_t left;         // output tokens still to sample
  int64_t computed;     // tokens computed, as the engine counts them (the allocator has computed − unsynced)
  int64_t unsynced;     // computed in the run, not yet handed to the allocator
  int64_t context;      // computed before the current step
};

// What a step's pass over the run's decoders sums: over the scheduled requests, `context` (computed
// before the step) and the tokens sampled past each request's first (`later_tokens`); the drafts
// accepted and the draws (a request that preempted itself drew too); `upto`: the decoders it went
// through (all, unless one preempted itself).
struct RunStepSums {
  int64_t context = 0, later_tokens = 0, accepted = 0, drawn = 0, events = 0;
  size_t upto = 0;
  bool finished = false;  // requests reached their length (when the pass advanced them)
};

}  // namespace kvsim

#endif  // KVSIM_SIM_ENGINE_EXPLICIT_DECODER_H_
