// kvsim step with --speculative-config, run as a user runs it: the verify pass is the target's step
// at 1 + k tokens per decoding sequence (checked against the step model built here), the drafter's
// passes are timed on its own model (none for n-gram), and the time per output token divides by
// the expected tokens per step, 1 + the per-position acceptance rates.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/deployment.h"
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
  verify.draft_tokens = 48;  // logits at all 4 positions of each sequence
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

// propose() (vllm/v1/spec_decode/eagle.py) runs the head first over every token the target verified,
// 1 + 3 per sequence, then 2 passes of one token per sequence; one pass's host preparation (launches
// and graph replays) is exposed per step.
TEST(StepSpeculationCliTest, EagleHeadRunsAFirstPassOverTheVerifiedTokensThenKMinusOnePasses) {
  const nlohmann::json j = Step({"--speculative-config", kEagle3, "--spec-acceptance", "0.8"});
  const nlohmann::json& p = j.at("speculative").at("proposer");
  EXPECT_EQ(p.at("on_gpu"), true);
  EXPECT_EQ(p.at("passes"), 3);
  EXPECT_EQ(p.at("later_passes"), 2);
  EXPECT_EQ(p.at("first_pass").at("batch").at("new_tokens"), 16 * 4);
  EXPECT_EQ(p.at("first_pass").at("batch").at("context_tokens"), 16000);
  EXPECT_EQ(p.at("pass").at("batch").at("new_tokens"), 16);
  EXPECT_EQ(p.at("pass").at("batch").at("context_tokens"), 16000);
  const double one = p.at("pass").at("seconds").at("total").get<double>();
  const double first = p.at("first_pass").at("seconds").at("total").get<double>();
  const double host = p.at("exposed_host_seconds").get<double>();
  EXPECT_GT(one, 0);
  EXPECT_GE(first, one);  // four tokens per sequence through the same weights
  EXPECT_GT(host, 0);
  const double drafting = first + 2 * one + host;
  EXPECT_NEAR(p.at("seconds").get<double>(), drafting, 4e-9);
  EXPECT_TRUE(j.at("speculative").at("warnings").empty());
  const nlohmann::json& s = j.at("speculative");
  EXPECT_NEAR(s.at("step_seconds").get<double>(), s.at("verify").at("seconds").at("total").get<double>() + drafting, 5e-9);
  EXPECT_NEAR(s.at("seconds_per_output_token").at("speculative").get<double>(), s.at("step_seconds").get<double>() / 2.952,
              2e-9);
}

const nlohmann::json& Op(const nlohmann::json& operators, const std::string& name) {
  for (const nlohmann::json& op : operators)
    if (op.at("name") == name) return op;
  ADD_FAILURE() << "no operator " << name;
  static const nlohmann::json none = nlohmann::json::object();
  return none;
}

// yuhuili/EAGLE3-LLaMA3.1-Instruct-8B's config.json: one decoder layer, draft vocabulary 32,000.
constexpr const char* kEagle3Llama31Config = R"({
  "architectures": ["LlamaForCausalLMEagle3"], "hidden_act": "silu", "hidden_size": 4096,
  "intermediate_size": 14336, "max_position_embeddings": 2048, "model_type": "llama",
  "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 1, "rms_norm_eps": 1e-05,
  "tie_word_embeddings": false, "torch_dtype": "float16", "vocab_size": 128256, "draft_vocab_size": 32000})";

// Llama-3.1-8B-Instruct with the EAGLE-3 head on an H100, 16 sequences at context 1,000, k = 3.
nlohmann::json Eagle3Step(testing::TempDir& dir) {
  const std::string head = dir.Write("eagle3.json", kEagle3Llama31Config);
  return Step({"--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "h100", "--speculative-config",
               R"({"method":"eagle3","model":")" + head + R"(","num_speculative_tokens":3})", "--spec-acceptance", "0.8"});
}

// vLLM v1 gives the drafter's attention layer a KV cache of its own (grouped with the target's in
// one KV cache config); a drafter pass reads that, and the target's forward reads its own layers'.
TEST(StepSpeculationCliTest, DrafterPassReadsOnlyItsOwnLayersKv) {
  testing::TempDir dir;
  const nlohmann::json j = Eagle3Step(dir);
  // One head layer: 8 KV heads x 128 dims x 2 (K, V) x 2 bytes = 4,096 B per token. 16 sequences
  // read their 1,000 cached tokens and the new one: 16 x 1,001 x 4,096 = 65,601,536 B, plus the
  // queries and outputs, 16 tokens x (32 + 32 heads x 128) x 2 B = 262,144 B: 65,863,680 B.
  const nlohmann::json& pass = Op(j.at("speculative").at("proposer").at("pass").at("operators"), "attention");
  EXPECT_EQ(pass.at("kernels"), 1);
  EXPECT_DOUBLE_EQ(pass.at("bytes").get<double>(), 65863680.0);
  // The verify pass: the target's 32 layers, each 16 x (1,000 + 4) x 4,096 = 65,798,144 B of K/V
  // and 64 tokens x 8,192 x 2 B = 1,048,576 B of queries and outputs: 32 x 66,846,720 B.
  const nlohmann::json& verify = Op(j.at("speculative").at("verify").at("operators"), "attention");
  EXPECT_EQ(verify.at("kernels"), 32);
  EXPECT_DOUBLE_EQ(verify.at("bytes").get<double>(), 32 * 66846720.0);
  // The plain step beside it reads the same 32 layers: 32 x (16 x 1,001 x 4,096 + 16 x 16,384) B.
  EXPECT_DOUBLE_EQ(Op(j.at("operators"), "attention").at("bytes").get<double>(), 32 * (65601536.0 + 262144.0));
  // Its own weights: the lm_head over the 32,000-entry draft vocabulary, and the first layer's
  // q/k/v over 2 x 4,096 features (token embedding ++ hidden state), (32 + 2 x 8) x 128 = 6,144
  // outputs: the layer's q/k/v over 4,096 and its embedding half, 6,144 x 4,096 x 2 B more.
  const nlohmann::json& ops = j.at("speculative").at("proposer").at("pass").at("operators");
  EXPECT_DOUBLE_EQ(Op(ops, "lm_head").at("flops").get<double>(), 2.0 * 16 * 32000 * 4096);
  EXPECT_DOUBLE_EQ(Op(ops, "qkv_proj").at("flops").get<double>(), 2.0 * 16 * 6144 * 4096);
  EXPECT_DOUBLE_EQ(Op(ops, "qkv_proj_embeds").at("flops").get<double>(), 2.0 * 16 * 6144 * 4096);
  EXPECT_DOUBLE_EQ(Op(ops, "qkv_proj_embeds").at("bytes").get<double>(),
                   6144.0 * 4096 * 2 + 16.0 * 4096 * 2 + 16.0 * 6144 * 2);  // weights, input, output
}

// EAGLE-1 (llama_eagle.py) joins the token embedding and the target's hidden state with fc
// [4,096, 8,192] on every pass, before its layer; MTP with eh_proj of the same shape.
TEST(StepSpeculationCliTest, EagleAndMtpPassesRunTheirJoiningProjection) {
  const nlohmann::json e = Step({"--speculative-config", kEagle3, "--spec-acceptance", "0.8"});
  const nlohmann::json& fc = Op(e.at("speculative").at("proposer").at("pass").at("operators"), "fc");
  EXPECT_DOUBLE_EQ(fc.at("flops").get<double>(), 2.0 * 16 * 4096 * 8192);
  EXPECT_DOUBLE_EQ(fc.at("bytes").get<double>(), 4096.0 * 8192 * 2 + 16.0 * 8192 * 2 + 16.0 * 4096 * 2);
  // MTP needs a model with MTP layers: DeepSeek-R1 (h 7,168), eh_proj [7,168, 14,336].
  const nlohmann::json m = Step({"--model", "deepseek-ai/DeepSeek-R1", "--speculative-config", R"({"method":"mtp","num_speculative_tokens":1})",
                                 "--spec-acceptance", "0.8"});
  const nlohmann::json& eh = Op(m.at("speculative").at("proposer").at("pass").at("operators"), "eh_proj");
  EXPECT_DOUBLE_EQ(eh.at("flops").get<double>(), 2.0 * 16 * 7168 * 14336);
}

// vLLM v1 computes the target's logits at every verified position (gpu_model_runner.py
// _calc_spec_decode_metadata: logits_indices = 1 + k rows per decoding request).
TEST(StepSpeculationCliTest, VerifyPassComputesLogitsAtEveryDraftPosition) {
  testing::TempDir dir;
  const nlohmann::json j = Eagle3Step(dir);
  const nlohmann::json& ops = j.at("speculative").at("verify").at("operators");
  // 16 sequences x (1 + 3) rows over Llama-3.1's 128,256-entry vocabulary (a multiple of 64) and
  // 4,096 hidden: 2 x 64 x 128,256 x 4,096 FLOPs; sampling reads 64 rows of fp32 logits 3 times.
  EXPECT_DOUBLE_EQ(Op(ops, "lm_head").at("flops").get<double>(), 2.0 * 64 * 128256 * 4096);
  EXPECT_DOUBLE_EQ(Op(ops, "sampler").at("bytes").get<double>(), 64.0 * 128256 * 4 * 3);
  // The plain step: one row per sequence.
  EXPECT_DOUBLE_EQ(Op(j.at("operators"), "lm_head").at("flops").get<double>(), 2.0 * 16 * 128256 * 4096);
}

// A drafter pass's bookkeeping around its forward (vllm/v1/spec_decode/eagle.py propose): 15 small
// eager kernels for positions, sequence lengths, the slot mapping and the input buffers, 4 more for
// EAGLE-3's draft-to-target logits map; each costs the 3 us kernel floor on the GPU. The host
// launches those, the head's attention (2) and lm_head + argmax (2) at 4 us, and replays 2 graph
// pieces at 20 us: 23 x 4 + 2 x 20 = 132 us for EAGLE-3, overlapping the pass's GPU time.
TEST(StepSpeculationCliTest, DrafterPassPaysItsInputUpdatesAndLaunches) {
  testing::TempDir dir;
  const nlohmann::json j = Eagle3Step(dir);
  const nlohmann::json& pass = j.at("speculative").at("proposer").at("pass");
  const nlohmann::json& updates = Op(pass.at("operators"), "input_updates");
  EXPECT_EQ(updates.at("kernels"), 19);
  EXPECT_NEAR(updates.at("seconds").get<double>(), 19 * 3e-6, 1e-12);
  const nlohmann::json& sec = pass.at("seconds");
  const double gpu = sec.at("total").get<double>() - sec.at("overhead").get<double>();
  EXPECT_NEAR(sec.at("overhead").get<double>(), std::max(0.0, 132e-6 - gpu), 1e-9);
  // EAGLE-1 (no draft vocabulary map): 15 updates, host 19 x 4 + 2 x 20 = 116 us.
  const nlohmann::json e = Step({"--speculative-config", kEagle3, "--spec-acceptance", "0.8"});
  const nlohmann::json& e_pass = e.at("speculative").at("proposer").at("pass");
  EXPECT_EQ(Op(e_pass.at("operators"), "input_updates").at("kernels"), 15);
  const double e_gpu = e_pass.at("seconds").at("total").get<double>() - e_pass.at("seconds").at("overhead").get<double>();
  EXPECT_NEAR(e_pass.at("seconds").at("overhead").get<double>(), std::max(0.0, 116e-6 - e_gpu), 1e-9);
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
