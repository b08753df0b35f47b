// ReplicaScheduler: the policy of one engine step, i.e. which passes over the running and waiting
// requests a step runs, in which order, with which token budget. The engine (replay_engine.h)
// keeps the requests (slots, lazy decoders and their step calendar, held block crossings, the
// allocator) and carries each pass out; the scheduler sees it only through a SchedulingPasses view,
// so a policy is tested against a double of that view (tests/sim/engine/replica_scheduler_test.cpp)
// and a new policy is a new implementation (vllm_schedulers.h), not a new engine method.
//
// Contract: the engine calls Step once per scheduled step (not for quiet runs, in which no pass
// runs), after marking async arrivals eligible and before timing the step. Step returns true when
// the step has work: a request was scheduled, or lazy decoders decode. A step without work and
// without loads in flight means the waiting queue's head can never be admitted (the engine rejects
// it). Calls into the view are per pass, never per request.
//
// The interface is a template over the view's type: the engine's view is a final class whose
// calls are direct (one virtual call per step, Step itself), a test's view a recording double.
#ifndef KVSIM_SIM_ENGINE_REPLICA_SCHEDULER_H_
#define KVSIM_SIM_ENGINE_REPLICA_SCHEDULER_H_

#include <concepts>
#include <cstdint>

#include "sim/engine/engine_kinds.h"

namespace kvsim {

// Which running requests a running pass visits, in admission order.
enum class RunningPass {
  // The requests that cannot decode lazily this step: those still prefilling and the lazy decoders
  // whose event (a block boundary, the last token) is due. The other lazy decoders take their one
  // token each from the budget without being visited.
  kDueAndPrefilling,
  // Every running request, lazy decoders made explicit first.
  kEveryone,
};

// The engine as a scheduler sees it: the step's figures and its passes.
//   TokenBudget()       max_num_batched_tokens
//   LazyDecoding()      whether running requests may decode lazily (event stepping; off under token
//                       stepping and speculative decoding, where every request is visited)
//   CollectDueRequests() requests whose KV load ended run again; lazy decoders whose event is due
//                       this step become explicit. Called once, first.
//   LazyDecoders()      lazy decoders not due: one decode token each this step, without a pass
//   LazyDecodersReached(budget)  whether a pass over the running requests in admission order,
//                       each taking its pending tokens (a decoder one, a prefill its prompt left)
//                       from `budget`, would reach every lazy decoder with budget left
//   ScheduleRunning(pass, budget)  visits the pass's requests in admission order, scheduling each
//                       one's pending tokens (at most the budget left, which it lowers) and growing
//                       its KV; when memory is short the newest running request is preempted by
//                       recompute. Stops when the budget is spent or a request preempted itself.
//   AdmitWaiting(budget, whole_prompt)  admits waiting requests in FCFS order while budget,
//                       max_num_seqs and memory allow (the first that does not fit stops admission),
//                       scheduling each one's first prompt chunk, or its whole prompt with
//                       `whole_prompt` (a prompt past the budget left then stops admission). True
//                       when any was admitted.
//   PreemptedThisStep() a running pass preempted a request
//   ScheduledAny()      a pass of this step scheduled tokens
template <class P>
concept SchedulingPasses = requires(P& p, const P& view, RunningPass pass, int64_t& budget, bool whole_prompt) {
  { view.TokenBudget() } -> std::same_as<int64_t>;
  { view.LazyDecoding() } -> std::same_as<bool>;
  { p.CollectDueRequests() } -> std::same_as<void>;
  { view.LazyDecoders() } -> std::same_as<int64_t>;
  { view.LazyDecodersReached(budget) } -> std::same_as<bool>;
  { p.ScheduleRunning(pass, budget) } -> std::same_as<void>;
  { p.AdmitWaiting(budget, whole_prompt) } -> std::same_as<bool>;
  { view.PreemptedThisStep() } -> std::same_as<bool>;
  { view.ScheduledAny() } -> std::same_as<bool>;
};

template <SchedulingPasses Passes>
class ReplicaScheduler {
 public:
  virtual ~ReplicaScheduler() = default;
  // Plans one step through `passes`; true when the step has work (see the contract above).
  virtual bool Step(Passes& passes) const = 0;
  virtual SchedulerKind kind() const = 0;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_ENGINE_REPLICA_SCHEDULER_H_
