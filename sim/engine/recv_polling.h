// When the engine's scheduler takes in the requests that arrived: every step (vLLM; SGLang's
// default), or, with SGLang's --scheduler-recv-interval N > 1, only at some of its loop's
// iterations.
//
// SGLang (python/sglang/srt/managers/scheduler_recv_skipper.py, SchedulerRecvSkipper, as in
// releases 0.5.6 and 0.5.7; the weights were constants there before sgl-project/sglang PR #13855,
// Nov 2025, made them environment variables in sglang/srt/environ.py with the same defaults): at
// the start of each scheduler iteration a counter grows by the weight of the previous batch's
// forward mode, 1 for a decode batch (SGLANG_SCHEDULER_RECV_SKIPPER_WEIGHT_DECODE; also a
// TARGET_VERIFY batch and no batch) and 1000 for any other (..._WEIGHT_DEFAULT: a prefill or mixed
// batch); the iteration receives new requests only when the counter reaches N, which resets it.
// So after a step with a prefill the next iteration receives (1000 >= N), and during decode one
// iteration in N does: a request arriving while the batch decodes waits up to N decode steps
// before any pass sees it. An idle scheduler spins through iterations without a batch in
// microseconds, so an arrival at an idle engine is received at once.
//
// Steps are numbered as the engine numbers them (1, 2, ...); the iteration before step s is
// "iteration s". The class keeps the iteration whose receive last reset the counter (the anchor):
// with only decode steps since, iteration s receives exactly when s - anchor is a multiple of N.
// The phase is kept across runs of decode steps the engine takes without visiting this class.
#ifndef KVSIM_SIM_ENGINE_RECV_POLLING_H_
#define KVSIM_SIM_ENGINE_RECV_POLLING_H_

#include <cstdint>

#include "kvcache/base/check.h"

namespace kvsim {

class RecvPolling {
 public:
  // A prefill's weight: an interval past it would need the counter's value across prefills, which
  // this class does not keep (the flag's callers refuse such an interval).
  static constexpr int64_t kNonDecodeWeight = 1000;

  // `interval`: SGLang's --scheduler-recv-interval (<= 1: every iteration receives).
  explicit RecvPolling(int64_t interval = 1) : interval_(interval) { KVSIM_DCHECK(interval <= kNonDecodeWeight); }

  // Whether arrivals can wait unseen for a later iteration at all.
  bool skips() const { return interval_ > 1; }

  // Whether iteration `step` (the one before step `step`) receives new requests; `idle`: no batch
  // runs (nothing running), so the scheduler spins and receives at once. Call it for the
  // iterations at which something waits to be received; those between need no call.
  bool Receives(int64_t step, bool idle) {
    if (!skips()) return true;
    if (idle) {
      anchor_ = step;
      return true;
    }
    KVSIM_DCHECK(step >= anchor_);
    if ((step - anchor_) % interval_ != 0) return false;
    anchor_ = step;
    return true;
  }

  // Step `step` ran a batch with prompt tokens in it (a prefill or mixed batch): its weight passes
  // any interval up to 1000, so iteration `step` + 1 receives and resets the counter.
  void AfterNonDecodeStep(int64_t step) { anchor_ = step + 1; }

  // An arrival at an idle engine is received at once; the counter restarts at the iteration
  // before step `next_step`, the first the engine runs.
  void ReceivedWhileIdle(int64_t next_step) { anchor_ = next_step; }

 private:
  int64_t interval_;
  int64_t anchor_ = 1;  // every replay starts idle: its first arrival sets the phase
};

}  // namespace kvsim

#endif  // KVSIM_SIM_ENGINE_RECV_POLLING_H_
