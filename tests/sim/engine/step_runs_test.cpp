// Quiet decode runs and held block growth report the same steps as token stepping: an observer that
// takes runs through the default StepRun expansion sees, step by step, exactly the samples token
// stepping produces (start, duration, sampled tokens, queue, used blocks, every KV category,
// preemptions), under memory pressure, at the batch cap and on an idle queue.
#include <gtest/gtest.h>

#include <vector>

#include "kvcache/model/model_catalog.h"
#include "sim/run/replay_runner.h"
#include "tests/sim/engine/step_recorder.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::StepRecorder;

std::vector<decltype(testing::StepFields(StepSample{}))> Steps(DeploymentOptions deployment, ReplayOptions replay, Stepping stepping) {
  replay.stepping = stepping;
  ValidateReplayOptions(replay, DataDirectory());
  const Deployment d = ResolveDeployment(deployment, DataDirectory());
  StepRecorder recorder;
  ReplayHooks hooks;
  hooks.observers = {&recorder};
  RunReplay(d, replay, hooks);
  return recorder.steps;
}

void ExpectSameSteps(const std::string& name, DeploymentOptions deployment, ReplayOptions replay) {
  SCOPED_TRACE(name);
  const auto event = Steps(deployment, replay, Stepping::kEvent), token = Steps(deployment, replay, Stepping::kToken);
  ASSERT_EQ(event.size(), token.size());
  ASSERT_GT(event.size(), 1000u);
  for (size_t i = 0; i < event.size(); ++i) ASSERT_EQ(event[i], token[i]) << "step " << i;
}

TEST(StepRunsTest, EverySampleEqualsTokenStepping) {
  DeploymentOptions d;
  d.gpu = "h100";
  ReplayOptions r;
  r.window.max_requests = 1500;
  ExpectSameSteps("h100, idle queue", d, r);
  d.max_num_seqs = "8";
  ExpectSameSteps("h100, batch cap 8", d, r);
  DeploymentOptions small;
  small.gpu = "a100-40gb";
  small.max_model_len = "8192";
  small.vllm_version = "0.24";  // an exact 512-block pool starts before PR #47272 (0.25)
  small.kv_cache_memory = "1GiB";  // the pool runs short: crossings fall back to explicit grows, preemptions
  ReplayOptions pressed;
  pressed.window.max_requests = 700;
  pressed.window.rate_scale = 3;
  ExpectSameSteps("a100-40gb, 1 GiB pool", small, pressed);
  small.block_size = "32";
  ExpectSameSteps("a100-40gb, 1 GiB pool, block size 32", small, pressed);
  // A budget below most prompts: prompts are prefilled in chunks behind running decoders, so the
  // demand passes the budget on most steps and admission order decides who is served.
  DeploymentOptions chunked = d;
  chunked.max_num_seqs = "64";
  chunked.max_num_batched_tokens = "256";
  ExpectSameSteps("h100, 256-token budget", chunked, r);
  small.max_num_batched_tokens = "384";
  ExpectSameSteps("a100-40gb, 1 GiB pool, 384-token budget", small, pressed);
}

}  // namespace
}  // namespace kvsim
