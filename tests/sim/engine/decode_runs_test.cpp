// Explicit decode runs (sim/engine/replay_engine_decode_runs.cpp) and LoRA's quiet runs change
// nothing: under event stepping, with speculative decoding the steps in which only decoders run
// skip the scheduler's passes, with LoRA alone decoders are lazy and quiet runs add the batch's LoRA
// terms to each step, and every step sample (start, duration, sampled tokens, queue, used blocks,
// every KV category, preemptions) and the whole summary equal token stepping's, which visits every
// request every step with the scheduler; and the acceptance draw's integer thresholds give the
// runs that std::uniform_real_distribution's double compared with each rate gives, from the
// numbers std::mt19937_64 gives.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kvcache/model/model_catalog.h"
#include "sim/engine/batched_mt19937_64.h"
#include "sim/engine/speculation.h"
#include "sim/run/replay_runner.h"
#include "tests/sim/engine/step_recorder.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

// The draw as it was first written: a double from the distribution, positions counted until the
// first rate it reaches.
int64_t ReferenceDraw(std::mt19937_64& rng, const std::vector<double>& rates) {
  const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  int64_t n = 0;
  while (n < static_cast<int64_t>(rates.size()) && u < rates[static_cast<size_t>(n)]) ++n;
  return n;
}

TEST(DecodeRunsTest, AcceptanceDrawEqualsTheDistributionsDouble) {
  const std::vector<std::vector<double>> rate_sets = {
      {0.8, 0.6, 0.4}, {1.0}, {0.0}, {0.7, 0.49, 0.343, 0.2401}, {1.0, 1.0, 0.5}, {0.999999, 0.5},
      {0.3, 0.5},  // rising: the second position is reached only through the first
      {0x1.fffffffffffffp-1, 0x1p-64, 0.0}};
  for (const auto& rates : rate_sets) {
    for (const uint64_t seed : {1u, 7u, 12345u}) {
      SpeculationOptions o;
      o.tokens = static_cast<int64_t>(rates.size());
      o.accepted_at = rates;
      o.seed = seed;
      AcceptanceDraw draw(o);
      std::mt19937_64 rng(seed ^ 0x5bd1e995u);
      for (int i = 0; i < 100000; ++i) ASSERT_EQ(draw.Next(), ReferenceDraw(rng, rates)) << "draw " << i << " seed " << seed;
    }
  }
  // The doubles at the ends of the engine's range, as libstdc++'s generate_canonical makes them.
  EXPECT_EQ(AcceptanceDraw::Uniform(0), 0.0);
  EXPECT_EQ(AcceptanceDraw::Uniform(uint64_t{1} << 63), 0.5);
  EXPECT_EQ(AcceptanceDraw::Uniform(UINT64_MAX), 0x1.fffffffffffffp-1);  // 2^64 rounds to 1: the double below it
}

// The batched engine gives the standard engine's numbers, across several refills of its state.
TEST(DecodeRunsTest, BatchedMersenneTwisterEqualsTheStandardOne) {
  for (const uint64_t seed : {uint64_t{0}, uint64_t{1}, uint64_t{0x5bd1e994}, UINT64_MAX}) {
    BatchedMt19937_64 batched(seed);
    std::mt19937_64 standard(seed);
    for (int i = 0; i < 5000; ++i) ASSERT_EQ(batched(), standard()) << "number " << i << " seed " << seed;
  }
}

using testing::StepRecorder;

struct Replayed {
  std::vector<decltype(testing::StepFields(StepSample{}))> steps;
  ReplaySummary::Sim sim;
  int64_t preemptions = 0;
};

Replayed Replay(DeploymentOptions deployment, ReplayOptions replay, Stepping stepping) {
  replay.stepping = stepping;
  ValidateReplayOptions(replay, DataDirectory());
  const Deployment d = ResolveDeployment(deployment, DataDirectory());
  StepRecorder recorder;
  ReplayHooks hooks;
  hooks.observers = {&recorder};
  const ReplayResult result = RunReplay(d, replay, hooks);
  return {recorder.steps, result.summary.sim, result.summary.requests.preemptions};
}

// Returns the preemptions, so a case can say it has some.
int64_t ExpectSameSteps(const std::string& name, const DeploymentOptions& deployment, const ReplayOptions& replay) {
  SCOPED_TRACE(name);
  const Replayed event = Replay(deployment, replay, Stepping::kEvent), token = Replay(deployment, replay, Stepping::kToken);
  EXPECT_EQ(event.steps.size(), token.steps.size());
  EXPECT_GT(event.steps.size(), 1000u);
  for (size_t i = 0; i < std::min(event.steps.size(), token.steps.size()); ++i) {
    EXPECT_EQ(event.steps[i], token.steps[i]) << "step " << i;
    if (event.steps[i] != token.steps[i]) break;
  }
  EXPECT_EQ(event.sim.draft_tokens, token.sim.draft_tokens);
  EXPECT_EQ(event.sim.accepted_tokens, token.sim.accepted_tokens);
  EXPECT_EQ(event.sim.drafting_s, token.sim.drafting_s);
  EXPECT_EQ(event.sim.verify_steps, token.sim.verify_steps);
  // Explicit decode runs count an event per request and step as stepping every request does; lazy
  // decoders (LoRA without speculation, as plain replays) count only their events.
  if (!deployment.speculative_config.empty()) {
    EXPECT_EQ(event.sim.events, token.sim.events);
  }
  return event.preemptions;
}

DeploymentOptions Speculating(const char* config) {
  DeploymentOptions d;
  d.speculative_config = config;
  return d;
}
constexpr const char* kNgram3 = R"({"method": "ngram", "num_speculative_tokens": 3})";

TEST(DecodeRunsTest, EverySampleEqualsTokenStepping) {
  DeploymentOptions d = Speculating(kNgram3);
  d.gpu = "h100";
  ReplayOptions r;
  r.window.max_requests = 1500;
  r.spec_acceptance = "0.8,0.6,0.4";
  for (const uint64_t seed : {1u, 2u, 3u}) {
    r.seed = seed;
    ExpectSameSteps("h100, ngram k=3, seed " + std::to_string(seed), d, r);
  }
  r.seed = 1;
  r.async_scheduling = false;
  ExpectSameSteps("h100, ngram k=3, no async scheduling", d, r);
  r.async_scheduling = true;
  d.max_num_seqs = "8";
  ExpectSameSteps("h100, batch cap 8", d, r);
  // A drafter timed on the GPU (its passes over the same contexts), and one draft token.
  DeploymentOptions eagle = Speculating(R"({"method": "eagle3", "num_speculative_tokens": 1})");
  eagle.gpu = "h100";
  r.spec_acceptance = "0.7";
  ExpectSameSteps("h100, eagle3 k=1", eagle, r);
}

TEST(DecodeRunsTest, EverySampleEqualsTokenSteppingUnderPreemptionAndPrefixHits) {
  // The pool runs short: grows that leave a request's blocks fail and preempt during runs.
  DeploymentOptions small = Speculating(kNgram3);
  small.gpu = "a100-40gb";
  small.max_model_len = "8192";
  small.vllm_version = "0.24";     // an exact 512-block pool starts before PR #47272 (0.25)
  small.kv_cache_memory = "1GiB";
  ReplayOptions pressed;
  pressed.window.max_requests = 700;
  pressed.window.rate_scale = 3;
  pressed.spec_acceptance = "0.7";
  EXPECT_GT(ExpectSameSteps("a100-40gb, 1 GiB pool", small, pressed), 0);
  small.block_size = "32";
  pressed.seed = 4;
  EXPECT_GT(ExpectSameSteps("a100-40gb, 1 GiB pool, block size 32", small, pressed), 0);
  // Prefix caching with real hits (Mooncake's conversation trace carries block hashes).
  DeploymentOptions cached = Speculating(kNgram3);
  cached.gpu = "h100";
  ReplayOptions mooncake;
  mooncake.trace = testing::SharedPath("traces/mooncake/conversation_trace.jsonl");
  mooncake.window.max_requests = 400;
  mooncake.spec_acceptance = "0.6";
  ExpectSameSteps("h100, Mooncake conversations, prefix caching", cached, mooncake);
  // Sliding-window layers: grows do not compose, so every grow is handed over at once.
  DeploymentOptions windowed = Speculating(kNgram3);
  windowed.model = "google/gemma-2-9b-it";
  windowed.gpu = "h100";
  windowed.max_model_len = "8192";
  ReplayOptions r;
  r.window.max_requests = 800;
  r.spec_acceptance = "0.8";
  ExpectSameSteps("h100, gemma-2 sliding windows", windowed, r);
}

TEST(DecodeRunsTest, LoraEverySampleEqualsTokenStepping) {
  // 16 adapters over 4 slots: requests wait for a slot while others decode, adapters load.
  DeploymentOptions d;
  d.gpu = "h100";
  d.enable_lora = true;
  d.max_loras = "4";
  ReplayOptions r;
  r.window.max_requests = 1500;
  r.adapters = 16;
  r.adapter_popularity = "zipf:1.1";
  for (const uint64_t seed : {1u, 2u}) {
    r.seed = seed;
    ExpectSameSteps("h100, 16 adapters on 4 slots, seed " + std::to_string(seed), d, r);
  }
  d.max_loras = "2";
  d.max_cpu_loras = "3";  // host-cache misses read from disk
  r.adapter_popularity = "uniform";
  ExpectSameSteps("h100, 16 adapters on 2 slots, 3 in host memory", d, r);
  // With speculation, under preemption.
  DeploymentOptions small = Speculating(kNgram3);
  small.gpu = "a100-40gb";
  small.max_model_len = "8192";
  small.vllm_version = "0.24";
  small.kv_cache_memory = "1GiB";
  small.enable_lora = true;
  small.max_loras = "4";
  ReplayOptions pressed;
  pressed.window.max_requests = 700;
  pressed.window.rate_scale = 3;
  pressed.spec_acceptance = "0.7";
  pressed.adapters = 16;
  pressed.adapter_popularity = "zipf:1.1";
  EXPECT_GT(ExpectSameSteps("a100-40gb, 1 GiB pool, LoRA and ngram", small, pressed), 0);
}

TEST(DecodeRunsTest, LoraQuietRunsEqualTokenSteppingUnderPreemptionPrefixHitsAndEagerLaunches) {
  // LoRA alone decodes lazily: quiet runs add the batch's LoRA terms to every step and are cut where
  // the clock with them reaches the next arrival. Under preemption (a 1 GiB pool), over seeds.
  DeploymentOptions small;
  small.gpu = "a100-40gb";
  small.max_model_len = "8192";
  small.vllm_version = "0.24";
  small.kv_cache_memory = "1GiB";
  small.enable_lora = true;
  small.max_loras = "4";
  ReplayOptions pressed;
  pressed.window.max_requests = 700;
  pressed.window.rate_scale = 3;
  pressed.adapters = 16;
  pressed.adapter_popularity = "zipf:1.1";
  for (const uint64_t seed : {1u, 5u}) {
    pressed.seed = seed;
    EXPECT_GT(ExpectSameSteps("a100-40gb, 1 GiB pool, LoRA, seed " + std::to_string(seed), small, pressed), 0);
  }
  // Without CUDA graphs the LoRA launches' host time depends on the base step's (lora_host.h).
  DeploymentOptions eager;
  eager.gpu = "h100";
  eager.enable_lora = true;
  eager.max_loras = "2";
  eager.enforce_eager = true;
  ReplayOptions r;
  r.window.max_requests = 1200;
  r.adapters = 8;
  ExpectSameSteps("h100, eager, 8 adapters on 2 slots", eager, r);
  // Prefix caching with real hits (Mooncake's conversations), LoRA alone and with n-gram drafts.
  DeploymentOptions cached;
  cached.gpu = "h100";
  cached.enable_lora = true;
  cached.max_loras = "4";
  ReplayOptions mooncake;
  mooncake.trace = testing::SharedPath("traces/mooncake/conversation_trace.jsonl");
  mooncake.window.max_requests = 400;
  mooncake.adapters = 16;
  ExpectSameSteps("h100, Mooncake conversations, LoRA", cached, mooncake);
  cached.speculative_config = kNgram3;
  mooncake.spec_acceptance = "0.6";
  ExpectSameSteps("h100, Mooncake conversations, LoRA and ngram", cached, mooncake);
}

TEST(DecodeRunsTest, SummaryIsByteIdenticalToTokenStepping) {
  const testing::TempDir dir;
  auto summary = [&](const char* stepping) {
    const std::string path = dir.File(std::string(stepping) + ".json");
    const auto r = testing::RunCli({"replay", "--max-requests", "600", "--gpu", "a100-40gb", "--max-model-len", "4096",
                                    "--kv-cache-memory", "1GiB", "--rate-scale", "3", "--speculative-config", kNgram3,
                                    "--spec-acceptance", "0.8,0.6,0.4", "--enable-lora", "--max-loras", "4",
                                    "--adapters", "16", "--seed", "9", "--stepping", stepping,
                                    "--omit-wall-time", "--quiet", "--json", path});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(testing::ReadFile(path));
  };
  nlohmann::json event = summary("event"), token = summary("token");
  EXPECT_GT(event["requests"]["preemptions"].get<int64_t>(), 0);
  event["sim"].erase("stepping");
  token["sim"].erase("stepping");
  EXPECT_EQ(event.dump(1), token.dump(1));
}

}  // namespace
}  // namespace kvsim
