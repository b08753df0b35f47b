// The engine's choices a replay names: which scheduler runs, which allocator holds the KV and how the
// engine steps. Apart from the replay's settings (sim/run/replay_options.h), which also name the
// fleet's router, so the engine and the summary read them without depending on the fleet.
#ifndef KVSIM_SIM_ENGINE_ENGINE_KINDS_H_
#define KVSIM_SIM_ENGINE_ENGINE_KINDS_H_

#include "kvcache/base/enum_names.h"

namespace kvsim {

enum class SchedulerKind {
  kVllmV1,  // vLLM v1: running first, chunked prefill, preemption by recompute (default)
  kVllmV0,  // vLLM v0: whole-prompt prefill steps, 1% admission watermark
};
template <>
struct EnumNames<SchedulerKind> {
  static constexpr EnumEntry<SchedulerKind> kEntries[] = {{SchedulerKind::kVllmV1, "vllm"},
                                                          {SchedulerKind::kVllmV0, "vllm-v0"}};
};

enum class AllocatorKind { kPaged, kContiguous };
template <>
struct EnumNames<AllocatorKind> {
  static constexpr EnumEntry<AllocatorKind> kEntries[] = {{AllocatorKind::kPaged, "paged"},
                                                          {AllocatorKind::kContiguous, "contiguous"}};
};

enum class Stepping {
  kEvent,  // skip identical decode steps of requests that only fill slots they hold (default)
  kToken,  // every running request every step: the reference the event mode must equal
};
template <>
struct EnumNames<Stepping> {
  static constexpr EnumEntry<Stepping> kEntries[] = {{Stepping::kEvent, "event"}, {Stepping::kToken, "token"}};
};

}  // namespace kvsim

#endif  // KVSIM_SIM_ENGINE_ENGINE_KINDS_H_
