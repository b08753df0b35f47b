// Speculative decoding in replay (sim/engine/speculation.h), on a fixed step time so every figure
// follows by hand from vLLM v1's rule: a decoding request verifies k drafts plus its last token per
// step and gains 1 + accepted tokens.
#include <gtest/gtest.h>

#include "kvcache/base/error.h"
#include "sim/engine/speculation.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::RunCli;

nlohmann::json Replay(std::vector<std::string> args) {
  const testing::TempDir dir;
  const std::string path = dir.File("summary.json");
  args.insert(args.begin(), "replay");
  for (const char* a : {"--omit-wall-time", "--quiet", "--exact-quantiles", "--json"}) args.push_back(a);
  args.push_back(path);
  const auto r = RunCli(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(testing::ReadFile(path));
}

std::vector<std::string> OneRequest(const char* output_len) {
  return {"--synthetic", "1", "--rate", "1", "--prompt-len", "fixed:100", "--output-len", output_len, "--step-time-ms", "10"};
}

TEST(SpeculationTest, AcceptingEveryDraftGivesKPlusOneTokensPerStep) {
  // 9 output tokens. Plain: the prefill step samples the first, 8 decode steps the rest: 9 steps,
  // E2E 90 ms, TPOT (90 - 10) / 8 = 10 ms.
  const auto plain = Replay(OneRequest("fixed:9"));
  EXPECT_NEAR(plain["latency_s"]["e2e"]["mean"].get<double>(), 0.090, 1e-9);
  // k = 3, every draft accepted: the prefill step, then 4 tokens per step: 1 + 4 + 4 = 9 in 3
  // steps; E2E 30 ms, TPOT (30 - 10) / 8 = 2.5 ms.
  auto args = OneRequest("fixed:9");
  for (const char* a : {"--speculative-config", R"({"method": "ngram", "num_speculative_tokens": 3})", "--spec-acceptance", "1"})
    args.push_back(a);
  const auto spec = Replay(args);
  EXPECT_NEAR(spec["latency_s"]["e2e"]["mean"].get<double>(), 0.030, 1e-9);
  EXPECT_NEAR(spec["latency_s"]["tpot"]["mean"].get<double>(), 0.0025, 1e-9);
  EXPECT_EQ(spec["sim"]["steps"].get<int64_t>(), 3);
  // Rate 0: a decode step gains one token, as without speculation (the step time is fixed here).
  args.back() = "0";
  EXPECT_NEAR(Replay(args)["latency_s"]["e2e"]["mean"].get<double>(), 0.090, 1e-9);
}

TEST(SpeculationTest, AcceptedShareFollowsThePerPositionRates) {
  // Rates 0.8, 0.6, 0.4 per position: E[accepted of 3] = 0.8 + 0.6 + 0.4 = 1.8, a share of 60%.
  // 200 requests of 2,000 output tokens: about 100,000 verify steps, so the share is within 1%
  // (binomial-like spread ~0.2%); the last step of a request may cut drafts, a 0.1% effect.
  const auto j = Replay({"--synthetic", "200", "--rate", "50", "--prompt-len", "fixed:100", "--output-len", "fixed:2000",
                         "--step-time-ms", "10", "--speculative-config",
                         R"({"method": "ngram", "num_speculative_tokens": 3})", "--spec-acceptance", "0.8,0.6,0.4"});
  EXPECT_NEAR(j["speculation"]["acceptance"].get<double>(), 0.6, 0.01);
}

TEST(SpeculationTest, AcceptanceRatesFromOneRateOrAList) {
  const std::vector<double> one = AcceptanceRates({0.5}, 3);
  EXPECT_DOUBLE_EQ(one[0], 0.5);
  EXPECT_DOUBLE_EQ(one[2], 0.125);
  EXPECT_THROW(AcceptanceRates({0.5, 0.6}, 2), Error);  // a later position cannot be likelier
  EXPECT_THROW(AcceptanceRates({0.5, 0.4}, 3), Error);  // one rate per position
}

TEST(SpeculationTest, ReplayRefusesSpeculationWithoutAcceptance) {
  const auto r = RunCli({"replay", "--synthetic", "5", "--rate", "1", "--speculative-config",
                         R"({"method": "ngram", "num_speculative_tokens": 3})"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--spec-acceptance"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kvsim
