// kvsim step with --speculative-config, run as a user runs it: the verify pass is the target's step
// at 1 + k tokens per decoding sequence (checked against the step model built here), the drafter's
// passes are timed on its own model (none for n-gram), and the time per output token divides by
// the expected tokens per step, 1 + the per-position acceptance rates.
#include <gtest/gtest.h>

#include <memory>

#include <nlohmann/json.hpp>

#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/deployment.h"
#include "kvcache/budget/speculative_memory.h"
#include "kvcache/model/model_catalog.h"
#include "sim/timing/step_model.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::RunCli;

constexpr const char* kNgram3 = R"({"method":"ngram","num_speculative_tokens":3})";
constexpr const char* kEagle3 = R"({"method":"eagle","num_speculative_tokens":3})";

nlohmann::json Step(std::vector<std::string> extra) {
  std::vector<std::string> args = {"step", "--decode-seqs", "16", "--decode-context", "1000", "--json", "-"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = RunCli(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

// The default deployment of `kvsim step` (Llama-3.1-8B-Instruct on an A100 80GB) with the given
// --speculative-config, planned as the command plans it.
struct Target {
  Deployment d;
  CapacityResult cap;
  explicit Target(const std::string& speculative_config) {
    DeploymentOptions o;
    o.speculative_config = speculative_config;
    d = ResolveDeployment(o, DataDirectory());
    cap = PlanCapacity(d.model, d.gpu, d.config);
  }
};

TEST(StepSpeculationCliTest, VerifyPassIsTheStepModelAtOnePlusKTokensPerSequence) {
  const nlohmann::json j = Step({"--speculative-config", kNgram3, "--spec-acceptance", "0.8"});
  const nlohmann::json& s = j.at("speculative");
  // 16 sequences x (1 + 3) tokens; each attends its 1,000 cached tokens and the causal triangle of
  // its 4 new ones: 16 x (4 x 1000 + 4 x 5 / 2) = 64,160 pairs.
  EXPECT_EQ(s.at("verify").at("batch").at("new_tokens"), 64);
  EXPECT_EQ(s.at("verify").at("batch").at("context_tokens"), 16000);
  EXPECT_EQ(s.at("verify").at("batch").at("attended_pairs"), 64160);
  const Target t(kNgram3);
  const StepModel model(t.d.model, t.cap, t.d.gpu, StepModelOptions{});
  StepWork verify;
  verify.Add(4, 1000, 16);
  const StepBreakdown b = model.Breakdown(verify);
  const nlohmann::json& sec = s.at("verify").at("seconds");
  EXPECT_NEAR(sec.at("total").get<double>(), b.total(), 1e-9);
  EXPECT_NEAR(sec.at("linear").get<double>(), b.linear, 1e-9);
  EXPECT_NEAR(sec.at("attention").get<double>(), b.attention, 1e-9);
  EXPECT_NEAR(sec.at("lm_head").get<double>(), b.lm_head, 1e-9);
  const std::vector<OperatorCost> ops = model.Operators(verify);
  ASSERT_EQ(s.at("verify").at("operators").size(), ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    EXPECT_EQ(s.at("verify").at("operators")[i].at("name"), ops[i].name);
    EXPECT_NEAR(s.at("verify").at("operators")[i].at("seconds").get<double>(), ops[i].seconds, 1e-9) << ops[i].name;
  }
  // More query tokens over the same weights and cache: the verify step is no shorter than the plain one.
  EXPECT_GE(sec.at("total").get<double>(), j.at("seconds").at("total").get<double>());
}

TEST(StepSpeculationCliTest, NgramDraftsOnTheCpuAndExpectedTokensFollowTheRates) {
  const nlohmann::json j = Step({"--speculative-config", kNgram3, "--spec-acceptance", "0.8"});
  const nlohmann::json& s = j.at("speculative");
  EXPECT_EQ(s.at("method"), "ngram");
  EXPECT_EQ(s.at("num_speculative_tokens"), 3);
  // One rate 0.8 for k = 3: positions accepted with 0.8, 0.64, 0.512; 1 + their sum = 2.952.
  EXPECT_NEAR(s.at("acceptance_rates")[2].get<double>(), 0.512, 1e-12);
  EXPECT_NEAR(s.at("expected_tokens_per_step").get<double>(), 1 + 0.8 + 0.64 + 0.512, 1e-12);
  EXPECT_EQ(s.at("proposer").at("on_gpu"), false);
  EXPECT_EQ(s.at("proposer").at("passes"), 0);
  EXPECT_EQ(s.at("proposer").at("seconds").get<double>(), 0.0);
  EXPECT_EQ(s.at("proposer").at("what"), "n-gram matching on the CPU (no GPU time)");
  EXPECT_EQ(s.at("warnings").at(0), "--speculative-config: the ngram proposer's own time is not modelled (n-gram "
                                    "matching runs on the CPU)");
  // Per output token: the plain step gives one token; the speculative one 2.952 for its verify pass.
  const double plain = j.at("seconds").at("total").get<double>();
  const double verify = s.at("verify").at("seconds").at("total").get<double>();
  EXPECT_NEAR(s.at("seconds_per_output_token").at("plain").get<double>(), plain, 1e-9);
  EXPECT_NEAR(s.at("seconds_per_output_token").at("speculative").get<double>(), verify / 2.952, 1e-9);
  // 16 decoding sequences are far from compute bound: 64 tokens cost little more than 16, so 2.952
  // tokens per step pay.
  EXPECT_LT(verify, 2 * plain);
  EXPECT_EQ(s.at("pays"), true);
  EXPECT_NEAR(s.at("speedup").get<double>(), plain / (verify / 2.952), 1e-6);
}

TEST(StepSpeculationCliTest, RatesPerPositionAndNothingAcceptedNeverPays) {
  const nlohmann::json list = Step({"--speculative-config", kNgram3, "--spec-acceptance", "0.8,0.6,0.4"});
  EXPECT_NEAR(list.at("speculative").at("expected_tokens_per_step").get<double>(), 2.8, 1e-12);
  // Rate 0: one token per step, as without speculation, for a verify pass at least as long.
  const nlohmann::json none = Step({"--speculative-config", kNgram3, "--spec-acceptance", "0"});
  EXPECT_EQ(none.at("speculative").at("expected_tokens_per_step").get<double>(), 1.0);
  EXPECT_EQ(none.at("speculative").at("pays"), false);
}

TEST(StepSpeculationCliTest, EagleHeadRunsKPassesOfOneTokenPerSequence) {
  const nlohmann::json j = Step({"--speculative-config", kEagle3, "--spec-acceptance", "0.8"});
  const nlohmann::json& p = j.at("speculative").at("proposer");
  EXPECT_EQ(p.at("on_gpu"), true);
  EXPECT_EQ(p.at("passes"), 3);
  EXPECT_EQ(p.at("pass").at("batch").at("new_tokens"), 16);
  EXPECT_EQ(p.at("pass").at("batch").at("context_tokens"), 16000);
  // Independently: the EAGLE head (one layer of the target's shape) on the same GPU, without a
  // step overhead of its own, timed on 16 sequences x 1 token at context 1,000, three times.
  const Target t(kEagle3);
  StepModelOptions o;
  o.efficiency.step_overhead_ms = 0;
  const StepModel head(*ProposerModel(t.d.model, t.d.config.speculative), t.cap, t.d.gpu, o);
  StepWork pass;
  pass.Add(1, 1000, 16);
  const double one = head.Breakdown(pass).total();
  EXPECT_NEAR(p.at("pass").at("seconds").at("total").get<double>(), one, 1e-9);
  EXPECT_NEAR(p.at("seconds").get<double>(), 3 * one, 3e-9);
  EXPECT_GT(one, 0);
  EXPECT_TRUE(j.at("speculative").at("warnings").empty());
  const nlohmann::json& s = j.at("speculative");
  EXPECT_NEAR(s.at("step_seconds").get<double>(), s.at("verify").at("seconds").at("total").get<double>() + 3 * one, 3e-9);
  EXPECT_NEAR(s.at("seconds_per_output_token").at("speculative").get<double>(), s.at("step_seconds").get<double>() / 2.952,
              2e-9);
}

// The plain step's fields are the same with or without speculation; only `speculative` is added.
// (n-gram: a drafter with layers of its own would add them to the KV layout the plain step reads.)
TEST(StepSpeculationCliTest, PlainStepFieldsAreUnchanged) {
  nlohmann::json spec = Step({"--speculative-config", kNgram3, "--spec-acceptance", "0.7"});
  const nlohmann::json plain = Step({});
  ASSERT_TRUE(spec.contains("speculative"));
  EXPECT_FALSE(plain.contains("speculative"));
  spec.erase("speculative");
  EXPECT_EQ(spec, plain);
}

TEST(StepSpeculationCliTest, TextShowsVerifyProposerAndWhetherItPays) {
  const auto r = RunCli({"step", "--decode-seqs", "16", "--decode-context", "1000", "--speculative-config", kNgram3,
                         "--spec-acceptance", "0.8"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* text : {"Verify pass: 16 decode sequences x 4 tokens", "= 64 new tokens, 16000 context tokens read",
                           "Proposer: n-gram matching on the CPU (no GPU time): 0 ms on the GPU",
                           "1 + 0.800 + 0.640 + 0.512 = 2.952", "Speculation pays at this batch"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
  const auto plain = RunCli({"step", "--decode-seqs", "16", "--decode-context", "1000"});
  EXPECT_EQ(r.out.substr(0, r.out.find("\nSpeculative decoding")),
            plain.out.substr(0, plain.out.find("\nMB = 10^6")));  // the plain step's table, unchanged
}

TEST(StepSpeculationCliTest, RefusesWhatItCannotTime) {
  auto refused = [](const std::vector<std::string>& extra, const std::string& must_contain) {
    std::vector<std::string> args = {"step"};
    args.insert(args.end(), extra.begin(), extra.end());
    testing::ExpectOneLineError(RunCli(args), must_contain);
  };
  refused({"--decode-seqs", "4", "--speculative-config", kNgram3}, "--spec-acceptance");
  refused({"--decode-seqs", "4", "--spec-acceptance", "0.8"}, "needs a --speculative-config");
  refused({"--prefill-seqs", "1", "--prefill-tokens", "512", "--speculative-config", kNgram3, "--spec-acceptance", "0.8"},
          "--decode-seqs");
  refused({"--decode-seqs", "4", "--speculative-config", kNgram3, "--spec-acceptance", "0.8,0.6"}, "one per draft position");
  refused({"--decode-seqs", "4", "--speculative-config", R"({"method":"ngram"})", "--spec-acceptance", "0.8"},
          "num_speculative_tokens");
  // 500,000 sequences are within the plain step's limit of 10^6 new tokens; at 1 + 3 tokens each they are not.
  refused({"--decode-seqs", "500000", "--speculative-config", kNgram3, "--spec-acceptance", "0.8"},
          "the verify pass (4 tokens per decoding sequence) has more than 1000000 new tokens");
}

}  // namespace
}  // namespace kvsim
