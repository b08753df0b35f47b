// --shared-prefix and --conversations: hit counts derived by hand on workloads where nothing is
// evicted (a big pool, light load), and the session router keeping a conversation's turns on the
// replica that caches them. The flags' text is the CLI's (tests/cli/bad_input_test.cpp).
#include <gtest/gtest.h>

#include "kvcache/model/model_catalog.h"
#include "sim/run/replay_runner.h"

namespace kvsim {
namespace {

struct Light {
  Deployment deployment;
  ReplayOptions replay;
  explicit Light(int64_t requests) {
    DeploymentOptions d;
    d.gpu = "a100-80gb";
    deployment = ResolveDeployment(d, DataDirectory());
    replay.synthetic = requests;
    replay.rate = 1;
    replay.prompt_len = "fixed:100";
    replay.output_len = "fixed:50";
    replay.omit_wall_time = true;
  }
  ReplaySummary Run() {
    ValidateReplayOptions(replay, DataDirectory());
    return RunReplay(deployment, replay).summary;
  }
};

TEST(PrefixOverlayTest, SharedSystemPromptsHitAfterTheirFirstUse) {
  // 300 requests, 3 system prompts of 1,000 tokens: each prompt's 62 full 16-token blocks (992
  // tokens) miss once and hit for every later request that uses it.
  Light c(300);
  c.replay.prefix_overlay.shared_prompts = 3;
  c.replay.prefix_overlay.shared_prompt_tokens = 1000;
  const ReplaySummary s = c.Run();
  EXPECT_EQ(s.prefix_cache.queried_tokens, 300 * 1100);
  EXPECT_EQ(s.prefix_cache.hit_tokens, (300 - 3) * 992);
}

TEST(PrefixOverlayTest, ConversationTurnsHitTheirOwnHistory) {
  // 20 conversations of 2 turns, 1,000 s apart (turn 1 long finished). Turn 2's prompt is turn 1's
  // prompt and output plus 100 new tokens (250); it finds turn 1's 6 full prompt blocks (96
  // tokens): the output's blocks carry no key (the trace-style keys cover prompts only).
  Light c(20);
  c.replay.prefix_overlay.turns = 2;
  c.replay.prefix_overlay.think_s = 1000;
  const ReplaySummary s = c.Run();
  EXPECT_EQ(s.requests.total, 40);
  EXPECT_EQ(s.prefix_cache.queried_tokens, 20 * 100 + 20 * 250);
  EXPECT_EQ(s.prefix_cache.hit_tokens, 20 * 96);
}

TEST(PrefixOverlayTest, SessionRouterKeepsConversationsWhereTheirCacheIs) {
  Light c(40);
  c.replay.prefix_overlay.turns = 3;
  c.replay.prefix_overlay.think_s = 100;
  c.replay.replicas = 4;
  c.replay.router = RouterKind::kRoundRobin;
  const ReplaySummary round_robin = c.Run();
  c.replay.router = RouterKind::kSession;
  const ReplaySummary session = c.Run();
  // Round-robin sends turns of one conversation to different replicas; sessions stay: every later
  // turn hits its history's prompt blocks (turn 2: 96 tokens, turn 3: floor(250/16)*16 = 240).
  EXPECT_EQ(session.prefix_cache.hit_tokens, 40 * (96 + 240));
  EXPECT_LT(round_robin.prefix_cache.hit_tokens, session.prefix_cache.hit_tokens);
}

}  // namespace
}  // namespace kvsim
