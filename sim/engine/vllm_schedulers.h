// The vLLM schedulers as ReplicaScheduler policies (replica_scheduler.h), and the factory that picks
// one by SchedulerKind.
#ifndef KVSIM_SIM_ENGINE_VLLM_SCHEDULERS_H_
#define KVSIM_SIM_ENGINE_VLLM_SCHEDULERS_H_

#include <cstdint>
#include <memory>

#include "kvcache/base/error.h"
#include "sim/engine/replica_scheduler.h"
#include "sim/engine/engine_kinds.h"

namespace kvsim {

// vLLM v1 (vllm/v1/core/sched/scheduler.py, Scheduler.schedule; reference/serving-memory-facts.md
// §2.6): running requests first, in admission order, within max_num_batched_tokens (chunked
// prefill); then, only if no running request was preempted in this step, waiting requests in
// FCFS order with what is left of the budget.
template <SchedulingPasses Passes>
class VllmV1Scheduler final : public ReplicaScheduler<Passes> {
 public:
  bool Step(Passes& p) const override {
    int64_t budget = p.TokenBudget();
    p.CollectDueRequests();
    // When the pass in admission order reaches every lazy decoder with budget left, they need not be
    // visited: their one token each is certain, and only requests after the newest of them can be
    // cut. Otherwise the admission order decides which decoders are served: visit everyone.
    const bool lazy_served = p.LazyDecoding() && p.LazyDecodersReached(budget);
    p.ScheduleRunning(lazy_served ? RunningPass::kDueAndPrefilling : RunningPass::kEveryone, budget);
    if (!p.PreemptedThisStep()) p.AdmitWaiting(budget, /*whole_prompt=*/false);
    return p.ScheduledAny() || p.LazyDecoders() > 0;
  }
  SchedulerKind kind() const override { return SchedulerKind::kVllmV1; }
};

// vLLM v0 (vllm/core/scheduler.py, Scheduler._schedule_default): a step prefills whole prompts of
// waiting requests when any can be admitted, else decodes every running request (one token each,
// not limited by the prefill budget); preemption by recompute.
template <SchedulingPasses Passes>
class VllmV0Scheduler final : public ReplicaScheduler<Passes> {
 public:
  bool Step(Passes& p) const override {
    int64_t budget = p.TokenBudget();
    if (p.AdmitWaiting(budget, /*whole_prompt=*/true)) return true;
    int64_t unbounded = INT64_MAX;
    p.ScheduleRunning(RunningPass::kEveryone, unbounded);
    return p.ScheduledAny();
  }
  SchedulerKind kind() const override { return SchedulerKind::kVllmV0; }
};

// The scheduler for `kind`, over the view type `Passes`; an engine asks once, when it is built.
template <SchedulingPasses Passes>
std::unique_ptr<ReplicaScheduler<Passes>> MakeReplicaScheduler(SchedulerKind kind) {
  switch (kind) {
    case SchedulerKind::kVllmV1:
      return std::make_unique<VllmV1Scheduler<Passes>>();
    case SchedulerKind::kVllmV0:
      return std::make_unique<VllmV0Scheduler<Passes>>();
  }
  throw InternalError("MakeReplicaScheduler: unknown SchedulerKind");
}

}  // namespace kvsim

#endif  // KVSIM_SIM_ENGINE_VLLM_SCHEDULERS_H_
