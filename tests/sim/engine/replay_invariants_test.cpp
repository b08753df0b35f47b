// Replay invariants checked at every step, over several traces and configurations: the allocator
// runs inside CheckedAllocator (its invariant walk and failed-call contract after every operation),
// and an observer checks after every step that
//   - simulated time never goes back (each step starts at or after the previous one's end),
//   - the KV pool is conserved (every slot in exactly one waste category, the same pool size),
//   - finished + rejected + in flight (running + waiting) = arrived (every request with an arrival
//     time at or before the step's start), and every request ends exactly once,
//   - each request's timestamps are ordered: arrival <= admitted <= first token <= finished.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "kvcache/model/model_catalog.h"
#include "sim/run/replay_runner.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

class InvariantObserver final : public ReplayObserver {
 public:
  // `arrivals`: every request's arrival, as the run sees it (rate-scaled), in order.
  explicit InvariantObserver(std::vector<int64_t> arrivals) : arrivals_(std::move(arrivals)) {}

  void OnStep(const StepSample& s) override {
    ++steps_;
    Expect(s.start_ns >= end_ns_, "time went back");
    Expect(s.duration_ns > 0, "a step took no time");
    end_ns_ = s.start_ns + s.duration_ns;
    Expect(s.kv.Sum() == s.kv.capacity_slots, "a KV slot is in no category or in two");
    if (capacity_ < 0) capacity_ = s.kv.capacity_slots;
    Expect(s.kv.capacity_slots == capacity_, "the pool changed size");
    Expect(s.used_blocks >= 0 && s.kv.free_slots >= 0, "negative usage");
    const auto arrived = std::upper_bound(arrivals_.begin(), arrivals_.end(), s.start_ns) - arrivals_.begin();
    Expect(finished_ + rejected_ + s.running + s.waiting == arrived, "finished + rejected + in flight != arrived");
  }

  void OnRequestDone(const RequestRecord& r) override {
    if (!r.rejected_reason.empty()) {
      ++rejected_;
      return;
    }
    ++finished_;
    Expect(r.arrival_ns <= r.admitted_ns && r.admitted_ns <= r.first_token_ns && r.first_token_ns <= r.finished_ns,
           "request timestamps out of order");
  }

  int64_t steps_ = 0, finished_ = 0, rejected_ = 0, violations_ = 0;
  std::string first_violation_;

 private:
  void Expect(bool ok, const char* what) {
    if (ok) return;
    if (violations_++ == 0) first_violation_ = std::string(what) + " at step " + std::to_string(steps_);
  }
  std::vector<int64_t> arrivals_;
  int64_t end_ns_ = 0, capacity_ = -1;
};

struct Case {
  std::string name;
  DeploymentOptions deployment;
  ReplayOptions replay;
};

Case MakeCase(std::string name, std::string gpu, std::string kv_memory, int64_t max_requests, double rate_scale) {
  Case c;
  c.name = std::move(name);
  c.deployment.gpu = std::move(gpu);
  c.deployment.max_model_len = "8192";
  c.deployment.kv_cache_memory = std::move(kv_memory);  // a small pool: pressure, and cheap invariant walks
  c.deployment.vllm_version = "0.24";  // a pool of exactly one request starts before PR #47272 (0.25)
  c.replay.window.max_requests = max_requests;
  c.replay.window.rate_scale = rate_scale;
  return c;
}

void RunChecked(Case c, int64_t min_preemptions) {
  SCOPED_TRACE(c.name);
  ValidateReplayOptions(c.replay, DataDirectory());
  const Deployment d = ResolveDeployment(c.deployment, DataDirectory());
  ReplayHooks hooks;
  hooks.preloaded = PreloadTrace(c.replay);
  std::vector<int64_t> arrivals;
  for (const TraceRequest& r : hooks.preloaded->requests)
    arrivals.push_back(c.replay.window.rate_scale == 1.0
                           ? r.arrival_ns
                           : std::llround(static_cast<double>(r.arrival_ns) / c.replay.window.rate_scale));
  InvariantObserver check(arrivals);
  hooks.observers = {&check};
  hooks.check_invariants = true;
  const ReplayResult result = RunReplay(d, c.replay, hooks);
  EXPECT_EQ(check.violations_, 0) << check.first_violation_;
  EXPECT_GT(check.steps_, 100);
  EXPECT_EQ(check.finished_ + check.rejected_, static_cast<int64_t>(arrivals.size())) << "a request never ended";
  EXPECT_EQ(result.summary.requests.finished, check.finished_);
  EXPECT_GE(result.summary.requests.preemptions, min_preemptions);
}

TEST(ReplayInvariantsTest, PagedV1UnderMemoryPressureEventAndTokenStepping) {
  for (Stepping stepping : {Stepping::kEvent, Stepping::kToken}) {
    Case c = MakeCase("azure conv, a100-40gb, 1 GiB pool", "a100-40gb", "1GiB", 700, 3);
    c.replay.stepping = stepping;
    RunChecked(c, 1);
  }
}

TEST(ReplayInvariantsTest, PagedV0Scheduler) {
  Case c = MakeCase("azure conv, v0 scheduler", "a100-40gb", "1GiB", 700, 3);
  c.replay.scheduler = SchedulerKind::kVllmV0;
  RunChecked(c, 1);
}

TEST(ReplayInvariantsTest, ContiguousAllocators) {
  for (Reservation reservation : {Reservation::kMax, Reservation::kPow2}) {
    Case c = MakeCase("azure code, contiguous", "l4", "2GiB", 800, 2);
    c.replay.trace = testing::SharedPath("traces/azure_2023/AzureLLMInferenceTrace_code.csv");
    c.replay.allocator = AllocatorKind::kContiguous;
    c.replay.reservation = reservation;
    c.replay.placement = reservation == Reservation::kPow2 ? Placement::kBuddy : Placement::kFirstFit;
    RunChecked(c, 0);
  }
}

TEST(ReplayInvariantsTest, PrefixCachingAndSlidingWindowGroups) {
  Case mooncake = MakeCase("mooncake prefix caching", "h100", "2GiB", 300, 1);
  mooncake.replay.trace = testing::SharedPath("traces/mooncake/synthetic_trace.jsonl");
  // 2 GiB holds 1,024 blocks = 16,384 tokens: vLLM refuses a max-model-len one request cannot fill,
  // so the longer Mooncake prompts are rejected (and counted) instead.
  mooncake.deployment.max_model_len = "16384";
  RunChecked(mooncake, 0);
  Case window = MakeCase("gpt-oss sliding window groups", "l40s", "1GiB", 600, 2);
  window.deployment.model = "openai/gpt-oss-20b";
  RunChecked(window, 0);
}

}  // namespace
}  // namespace kvsim
