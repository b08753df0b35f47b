// Every step sample of a replay as a comparable tuple: what tests of the engine's shortcuts (runs of
// steps taken at once, decode-only runs) compare against stepping every request every step.
#ifndef KVSIM_TESTS_SIM_ENGINE_STEP_RECORDER_H_
#define KVSIM_TESTS_SIM_ENGINE_STEP_RECORDER_H_

#include <tuple>
#include <vector>

#include "sim/engine/replay_observer.h"

namespace kvsim::testing {

inline auto StepFields(const StepSample& s) {
  const KvAccounting& k = s.kv;
  return std::make_tuple(s.start_ns, s.duration_ns, s.later_tokens, s.running, s.waiting, s.used_blocks,
                         s.preemptions_total, k.capacity_slots, k.token_slots, k.reserved_slots,
                         k.internal_fragmentation_slots, k.external_fragmentation_slots, k.cached_slots, k.free_slots,
                         k.shared_saved_slots);
}

class StepRecorder final : public ReplayObserver {
 public:
  void OnStep(const StepSample& s) override { steps.push_back(StepFields(s)); }
  std::vector<decltype(StepFields(StepSample{}))> steps;
};

}  // namespace kvsim::testing

#endif  // KVSIM_TESTS_SIM_ENGINE_STEP_RECORDER_H_
