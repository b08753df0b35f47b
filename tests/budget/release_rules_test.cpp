// The release table (kvcache/budget/release_rules.h) against the releases its sources name, the
// default release, `latest` and releases newer than the newest modelled, and the docs table that
// `kvsim releases --markdown` generates.
//   "GPU KV cache size": num_blocks // groups x block_size in 0.9 - 0.19, int(max_concurrency x
//     max_model_len) from 0.20 (vllm/v1/core/kv_cache_utils.py; a gpt-oss log of each era).
//   PR #38284 (0.21): CUDA-graph estimate charged by default, --gpu-memory-utilization 0.92.
//   PR #47272 (0.25): the start-up check leaves the null block out.
//   PR #25810 (0.11) / PR #30475 (0.13): the Qwen3-VL video placeholder budget, 0.11 and 0.12 only.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "kvcache/budget/release_rules.h"
#include "kvcache/budget/serving_engine.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

TEST(ReleaseRulesTest, EachRuleStartsInTheReleaseItsSourceNames) {
  auto has = [](const char* v, ReleaseRule r) { return HasRule(ParseVllmVersion(v), r); };
  EXPECT_FALSE(has("0.19", ReleaseRule::kConcurrencyTokenReport));
  EXPECT_TRUE(has("0.20.0", ReleaseRule::kConcurrencyTokenReport));
  EXPECT_TRUE(has("0.19", ReleaseRule::kGroupedTokenReport));
  EXPECT_FALSE(has("0.20", ReleaseRule::kGroupedTokenReport));
  EXPECT_FALSE(has("0.8", ReleaseRule::kGroupedTokenReport));
  EXPECT_FALSE(has("0.20", ReleaseRule::kUtilization092));
  EXPECT_TRUE(has("v0.21.0", ReleaseRule::kUtilization092));
  EXPECT_TRUE(has("0.21", ReleaseRule::kCudaGraphEstimateCharged));
  EXPECT_FALSE(has("0.24", ReleaseRule::kNullBlockOutOfCheck));
  EXPECT_TRUE(has("0.25", ReleaseRule::kNullBlockOutOfCheck));
  EXPECT_FALSE(has("0.10.2", ReleaseRule::kEncoderPlaceholderBudget));
  EXPECT_TRUE(has("0.11", ReleaseRule::kEncoderPlaceholderBudget));
  EXPECT_TRUE(has("0.12", ReleaseRule::kEncoderPlaceholderBudget));
  EXPECT_FALSE(has("0.13", ReleaseRule::kEncoderPlaceholderBudget));
  // The V0 engine has none of the V1 rules, whatever its number.
  for (const ReleaseRuleEntry& e : ReleaseRules()) {
    EXPECT_FALSE(has("v0", e.rule)) << NameOf(e.rule);
    EXPECT_FALSE(has("0.6.4", e.rule)) << NameOf(e.rule);
  }
}

TEST(ReleaseRulesTest, TableDeclaresEveryRuleOnceOldestFirstWithItsSource) {
  std::set<ReleaseRule> seen;
  int previous = 0;
  for (const ReleaseRuleEntry& e : ReleaseRules()) {
    EXPECT_TRUE(seen.insert(e.rule).second) << NameOf(e.rule);
    EXPECT_GE(e.first_minor, previous) << NameOf(e.rule);
    EXPECT_LE(e.first_minor, kNewestModelledVllmMinor) << NameOf(e.rule);
    EXPECT_TRUE(e.last_minor == 0 || e.last_minor >= e.first_minor) << NameOf(e.rule);
    EXPECT_NE(std::string(e.source), "") << NameOf(e.rule);
    previous = e.first_minor;
  }
  EXPECT_EQ(seen.size(), EnumValues<ReleaseRule>().size());
}

TEST(ReleaseRulesTest, DefaultAndLatestAreTheNewestModelled) {
  EXPECT_EQ(std::string(kDefaultVllmVersion), kNewestModelledVllm);
  const VllmVersion latest = ParseVllmVersion("latest");
  EXPECT_EQ(latest.minor, kNewestModelledVllmMinor);
  EXPECT_EQ(latest.text, kNewestModelledVllm);
  EXPECT_TRUE(latest.newer_than_modelled.empty());
  EXPECT_EQ(VllmVersion{}.minor, kNewestModelledVllmMinor);
}

TEST(ReleaseRulesTest, NewerReleaseIsPlannedAsTheNewestModelledWithANote) {
  const std::string newer = "0." + std::to_string(kNewestModelledVllmMinor + 1) + ".2";
  const VllmVersion v = ParseVllmVersion(newer);
  EXPECT_EQ(v.minor, kNewestModelledVllmMinor);
  EXPECT_EQ(v.newer_than_modelled, newer);

  const auto r = testing::RunCli({"capacity", "--json", "-", "--model", "Qwen/Qwen3-8B", "--gpu", "h100",
                                  "--vllm-version", newer, "--max-model-len", "8192"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["settings"]["vllm_version"], kNewestModelledVllm);
  bool noted = false;
  for (const auto& n : j["notes"]) noted |= n.get<std::string>().find(newer + " is newer than") != std::string::npos;
  EXPECT_TRUE(noted) << j["notes"].dump();

  const auto text = testing::RunCli({"capacity", "--model", "Qwen/Qwen3-8B", "--gpu", "h100", "--max-model-len", "8192"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find(std::string("engine vllm ") + kNewestModelledVllm), std::string::npos) << text.out;
}

TEST(ReleaseRulesTest, DocsCarryTheGeneratedTable) {
  const auto r = testing::RunCli({"releases", "--markdown"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const ReleaseRuleEntry& e : ReleaseRules()) EXPECT_NE(r.out.find(NameOf(e.rule)), std::string::npos);
  const std::string docs = testing::ReadFile(std::string(KVSIM_TEST_SOURCE_DIR) + "/../docs/CAPACITY_MODEL.md");
  EXPECT_NE(docs.find(r.out), std::string::npos)
      << "docs/CAPACITY_MODEL.md: regenerate the release table with `kvsim releases --markdown`";
  EXPECT_EQ(testing::RunCli({"releases", "--bogus"}).exit_code, 2);
}

}  // namespace
}  // namespace kvsim
