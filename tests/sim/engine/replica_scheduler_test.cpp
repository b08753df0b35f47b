// The schedulers' step policies against a recording double of SchedulingPasses (replica_scheduler.h):
// each test sets what the engine would report (budget, lazy decoders, demand, what a pass schedules
// or preempts) and checks the passes the scheduler asks for, in order, with the budgets derived by
// hand from vLLM's rules. The engine's carrying-out of the passes is tested end to end in
// replay_engine_schedule_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/engine/replica_scheduler.h"
#include "sim/engine/vllm_schedulers.h"

namespace kvsim {
namespace {

// Follows the SchedulingPasses contract with figures set by the test, and records every call.
struct RecordingPasses {
  // What the engine would report.
  int64_t budget = 100;
  bool lazy_decoding = true;
  int64_t lazy_decoders = 0;
  int64_t demand = 0;            // tokens the pass in admission order needs to reach the newest lazy decoder
  int64_t running_tokens = 0;    // tokens the running pass would schedule, budget permitting
  bool running_preempts = false;
  int64_t admitted_tokens = 0;   // tokens admission would schedule (0: nothing fits)

  // What the scheduler asked for.
  std::vector<std::string> calls;
  std::vector<RunningPass> passes;
  std::vector<int64_t> running_budgets, admission_budgets;
  std::vector<bool> whole_prompts;
  bool scheduled = false, preempted = false;

  int64_t TokenBudget() const { return budget; }
  bool LazyDecoding() const { return lazy_decoding; }
  void CollectDueRequests() { calls.push_back("collect"); }
  int64_t LazyDecoders() const { return lazy_decoders; }
  bool LazyDecodersReached(int64_t b) const { return demand <= b; }
  void ScheduleRunning(RunningPass pass, int64_t& b) {
    calls.push_back("running");
    passes.push_back(pass);
    running_budgets.push_back(b);
    if (pass == RunningPass::kDueAndPrefilling) b -= lazy_decoders;  // the contract: lazy decoders take theirs
    const int64_t tokens = std::min(running_tokens, b);
    b -= tokens;
    scheduled = scheduled || tokens > 0;
    preempted = running_preempts;
  }
  bool AdmitWaiting(int64_t& b, bool whole_prompt) {
    calls.push_back("admit");
    admission_budgets.push_back(b);
    whole_prompts.push_back(whole_prompt);
    if (admitted_tokens == 0 || (whole_prompt && admitted_tokens > b)) return false;
    b -= std::min(admitted_tokens, b);
    scheduled = true;
    return true;
  }
  bool PreemptedThisStep() const { return preempted; }
  bool ScheduledAny() const { return scheduled; }
};

static_assert(SchedulingPasses<RecordingPasses>);

using Calls = std::vector<std::string>;

bool Step(SchedulerKind kind, RecordingPasses& p) {
  const std::unique_ptr<ReplicaScheduler<RecordingPasses>> scheduler = MakeReplicaScheduler<RecordingPasses>(kind);
  return scheduler->Step(p);
}

TEST(ReplicaSchedulerTest, FactoryGivesTheSchedulerOfEachKind) {
  EXPECT_EQ(MakeReplicaScheduler<RecordingPasses>(SchedulerKind::kVllmV1)->kind(), SchedulerKind::kVllmV1);
  EXPECT_EQ(MakeReplicaScheduler<RecordingPasses>(SchedulerKind::kVllmV0)->kind(), SchedulerKind::kVllmV0);
}

// Budget 100; 30 lazy decoders, 1 due decoder and a prefill with 20 prompt tokens left: demand
// 30 + 1 + 20 = 51 fits, so only the due and prefilling requests are visited (with 100, the lazy
// decoders taking 30 of it), and admission gets 100 − 30 − 21 = 49.
TEST(ReplicaSchedulerTest, V1VisitsOnlyDueAndPrefillingWhenEveryoneFitsThenAdmitsWithTheRest) {
  RecordingPasses p;
  p.lazy_decoders = 30;
  p.demand = 51;
  p.running_tokens = 21;
  EXPECT_TRUE(Step(SchedulerKind::kVllmV1, p));
  EXPECT_EQ(p.calls, (Calls{"collect", "running", "admit"}));
  EXPECT_EQ(p.passes, std::vector<RunningPass>{RunningPass::kDueAndPrefilling});
  EXPECT_EQ(p.running_budgets, std::vector<int64_t>{100});
  EXPECT_EQ(p.admission_budgets, std::vector<int64_t>{49});
  EXPECT_EQ(p.whole_prompts, std::vector<bool>{false});  // chunked prefill
}

// The pass reaches the newest lazy decoder with exactly the budget (vLLM serves all 100 tokens up to
// it); one token more and the order decides which decoders are served: every running request is
// visited with the full budget of 100.
TEST(ReplicaSchedulerTest, V1VisitsEveryoneInOrderOnlyWhenDemandPassesTheBudget) {
  RecordingPasses fits;
  fits.lazy_decoders = 40;
  fits.demand = 100;
  Step(SchedulerKind::kVllmV1, fits);
  EXPECT_EQ(fits.passes, std::vector<RunningPass>{RunningPass::kDueAndPrefilling});

  RecordingPasses over;
  over.lazy_decoders = 40;
  over.demand = 101;
  over.running_tokens = 100;
  Step(SchedulerKind::kVllmV1, over);
  EXPECT_EQ(over.passes, std::vector<RunningPass>{RunningPass::kEveryone});
  EXPECT_EQ(over.running_budgets, std::vector<int64_t>{100});
  EXPECT_EQ(over.admission_budgets, std::vector<int64_t>{0});  // 100 − 100: admission sees none
}

// Token stepping (no lazy decoding): every running request is visited even when a demand of 1 fits.
TEST(ReplicaSchedulerTest, V1WithoutLazyDecodingVisitsEveryone) {
  RecordingPasses p;
  p.lazy_decoding = false;
  p.demand = 1;
  p.running_tokens = 1;
  Step(SchedulerKind::kVllmV1, p);
  EXPECT_EQ(p.passes, std::vector<RunningPass>{RunningPass::kEveryone});
  EXPECT_EQ(p.admission_budgets, std::vector<int64_t>{99});
}

// vLLM v1 admits no waiting request in a step that preempted (scheduler.py: `if not preempted_reqs`).
TEST(ReplicaSchedulerTest, V1AdmitsNothingInAStepThatPreempted) {
  RecordingPasses p;
  p.demand = 150;
  p.running_tokens = 60;
  p.running_preempts = true;
  p.admitted_tokens = 10;
  EXPECT_TRUE(Step(SchedulerKind::kVllmV1, p));
  EXPECT_EQ(p.calls, (Calls{"collect", "running"}));
}

// A step has work when something was scheduled or lazy decoders decode; an empty step (nothing
// runs, the queue's head does not fit) has none, which is what makes the engine reject that head.
TEST(ReplicaSchedulerTest, V1StepHasWorkWhenAnythingIsScheduledOrLazyDecodersDecode) {
  RecordingPasses empty;
  EXPECT_FALSE(Step(SchedulerKind::kVllmV1, empty));
  EXPECT_EQ(empty.admission_budgets, std::vector<int64_t>{100});

  RecordingPasses lazy_only;
  lazy_only.lazy_decoders = 3;
  lazy_only.demand = 3;
  EXPECT_TRUE(Step(SchedulerKind::kVllmV1, lazy_only));
  EXPECT_EQ(lazy_only.admission_budgets, std::vector<int64_t>{97});

  RecordingPasses admitted;
  admitted.admitted_tokens = 40;
  EXPECT_TRUE(Step(SchedulerKind::kVllmV1, admitted));
}

// vLLM v0 prefers prefill: when whole prompts can be admitted the step prefills only (no decode
// pass), with the full budget of 100.
TEST(ReplicaSchedulerTest, V0PrefillStepAdmitsWholePromptsAndDecodesNothing) {
  RecordingPasses p;
  p.admitted_tokens = 80;
  p.running_tokens = 5;  // would decode, but a prefill step does not
  EXPECT_TRUE(Step(SchedulerKind::kVllmV0, p));
  EXPECT_EQ(p.calls, (Calls{"admit"}));
  EXPECT_EQ(p.admission_budgets, std::vector<int64_t>{100});
  EXPECT_EQ(p.whole_prompts, std::vector<bool>{true});
}

// A 120-token prompt does not fit a budget of 100 whole: nothing is admitted, so the step decodes
// every running request, unlimited by the prefill budget (v0's decode batch is max_num_seqs).
TEST(ReplicaSchedulerTest, V0DecodesEveryoneWhenNoWholePromptFits) {
  RecordingPasses p;
  p.admitted_tokens = 120;
  p.running_tokens = 300;  // 300 decoders, more than the prefill budget
  EXPECT_TRUE(Step(SchedulerKind::kVllmV0, p));
  EXPECT_EQ(p.calls, (Calls{"admit", "running"}));
  EXPECT_EQ(p.passes, std::vector<RunningPass>{RunningPass::kEveryone});
  EXPECT_EQ(p.running_budgets, std::vector<int64_t>{INT64_MAX});
}

// v0 has no lazy decoders or loads: it never collects due requests; with nothing to admit and
// nothing running its step has no work.
TEST(ReplicaSchedulerTest, V0EmptyStepHasNoWorkAndCollectsNothing) {
  RecordingPasses p;
  EXPECT_FALSE(Step(SchedulerKind::kVllmV0, p));
  EXPECT_EQ(p.calls, (Calls{"admit", "running"}));
}

}  // namespace
}  // namespace kvsim
