// ReplayEngine::GrowOrPreempt, inline for ScheduleExplicit's hot path and shared with the explicit
// decode runs; included by those two files only.
#ifndef KVSIM_SIM_ENGINE_GROW_OR_PREEMPT_H_
#define KVSIM_SIM_ENGINE_GROW_OR_PREEMPT_H_

#include "kvcache/base/check.h"
#include "sim/engine/replay_engine.h"

namespace kvsim {

// A scheduled request's grow by its deferred and `kept` new tokens: when memory is short the newest
// running request is preempted, until it fits; false when that was the request itself. Lazily decoded
// tokens ride along with this step's when one Grow can take both.
inline bool ReplayEngine::GrowOrPreempt(Slot slot, int64_t kept) {
  Live& l = slots_[slot];
  bool grown = l.unsynced > 0 && grows_compose_ && alloc_.Grow(l.req.id, l.unsynced + kept);
  if (!grown && l.unsynced > 0) {
    const bool synced = alloc_.Grow(l.req.id, l.unsynced);  // always fits: slots it already held
    KVSIM_DCHECK(synced);
    (void)synced;
  }
  l.unsynced = 0;
  while (!grown && !(grown = alloc_.Grow(l.req.id, kept))) {
    const Slot victim = running_.Last();
    Preempt(victim);
    if (victim == slot) {
      l.accepted = 0;
      return false;
    }
  }
  return true;
}

}  // namespace kvsim

#endif  // KVSIM_SIM_ENGINE_GROW_OR_PREEMPT_H_
