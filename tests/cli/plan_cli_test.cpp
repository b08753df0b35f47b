// `kvsim plan` end to end. The hand-derived plan: one GPU type, two TP sizes, two weight formats and
// a short trace; every configuration at every replica count is run as its own `kvsim replay`, and
// the winner and the Pareto front are derived here from those replays' JSON (the SLOs read off the
// latency quantiles and the served-load check, the price as replicas x TP x the hourly price), then
// compared with what `kvsim plan` answers, pruned and exhaustive.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include <nlohmann/json.hpp>

#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::RunCli;

const std::vector<std::string> kTrace = {"--synthetic", "200", "--rate", "12", "--prompt-len", "uniform:200:800",
                                         "--output-len", "uniform:50:200", "--max-model-len", "4096"};
constexpr double kL4Usd = 0.8;      // a test price, USD per GPU-hour
constexpr double kTpotLimit = 0.06; // s
constexpr double kTtftLimit = 2.0;  // s

struct Derived {
  std::string label;
  int tp = 1;
  std::string format;
  bool found = false;
  int replicas = 0;
  double usd_per_hour = 0, ttft = 0, tpot = 0;
};

TEST(PlanCliTest, WinnerAndFrontMatchIndividualReplays) {
  std::vector<Derived> configs;
  for (int tp : {1, 2})
    for (const std::string format : {"checkpoint", "fp8"}) {
      Derived d;
      d.tp = tp;
      d.format = format;
      d.label = "l4 tp" + std::to_string(tp) + " " + format + " seqs=64 tokens=2048";
      for (int n = 1; n <= 3 && !d.found; ++n) {
        std::vector<std::string> args = {"replay", "--gpu", "l4", "--tensor-parallel-size", std::to_string(tp),
                                         "--max-num-seqs", "64", "--max-num-batched-tokens", "2048",
                                         "--replicas", std::to_string(n), "--gpu-hourly-cost", "0.8", "--json", "-"};
        if (format == "fp8") args.insert(args.end(), {"--quantization", "fp8"});
        args.insert(args.end(), kTrace.begin(), kTrace.end());
        const auto r = RunCli(args);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const nlohmann::json j = nlohmann::json::parse(r.out);
        const double ttft = j["latency_s"]["ttft"]["p99"].get<double>(), tpot = j["latency_s"]["tpot"]["p99"].get<double>();
        const bool served = j["load_check"]["served"].get<bool>();
        if (served && ttft <= kTtftLimit && tpot <= kTpotLimit) {
          d.found = true;
          d.replicas = n;
          d.usd_per_hour = n * tp * kL4Usd;
          d.ttft = ttft;
          d.tpot = tpot;
        }
      }
      configs.push_back(d);
    }
  // The winner: the lowest price, then the fewest GPUs, then the space's order (TP, then format).
  int winner = -1;
  for (size_t i = 0; i < configs.size(); ++i)
    if (configs[i].found && (winner < 0 || configs[i].usd_per_hour < configs[winner].usd_per_hour)) winner = static_cast<int>(i);
  ASSERT_GE(winner, 0) << "the case must have a feasible configuration";
  // The front: found plans no other beats on price, GPUs (proportional to price here), TTFT and TPOT.
  std::vector<std::string> front;
  for (const Derived& a : configs) {
    if (!a.found) continue;
    bool dominated = false;
    for (const Derived& b : configs)
      if (b.found && &a != &b && b.usd_per_hour <= a.usd_per_hour && b.ttft <= a.ttft && b.tpot <= a.tpot &&
          (b.usd_per_hour < a.usd_per_hour || b.ttft < a.ttft || b.tpot < a.tpot))
        dominated = true;
    if (!dominated) front.push_back(a.label);
  }
  for (const bool exhaustive : {false, true}) {
    std::vector<std::string> args = {"plan", "--gpus", "l4", "--tp", "1,2", "--formats", "checkpoint,fp8",
                                     "--max-num-seqs", "64", "--max-num-batched-tokens", "2048", "--max-replicas", "3",
                                     "--slo", "ttft-p99=2s,tpot-p99=60ms", "--gpu-hourly-cost", "l4=0.8", "--json", "-"};
    if (exhaustive) args.push_back("--exhaustive");
    args.insert(args.end(), kTrace.begin(), kTrace.end());
    const auto r = RunCli(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["winner"]["configuration"], configs[winner].label);
    EXPECT_EQ(j["winner"]["replicas"], configs[winner].replicas);
    EXPECT_NEAR(j["winner"]["usd_per_hour"].get<double>(), configs[winner].usd_per_hour, 1e-9);
    EXPECT_NE(j["winner"]["serve"].get<std::string>().find("vllm serve meta-llama/Llama-3.1-8B-Instruct"), std::string::npos);
    if (exhaustive) {  // the pruned search's front holds only what it replayed
      std::vector<std::string> got;
      for (const auto& row : j["front"]) got.push_back(row["configuration"]);
      std::sort(got.begin(), got.end());
      std::sort(front.begin(), front.end());
      EXPECT_EQ(got, front);
      EXPECT_EQ(j["replays"], j["points"]);
    }
  }
}

// The P/D axis by hand: l4 TP 1, aggregated and P/D 1:1 (units of one prefill and one decode
// instance), each at 1..3 replicas or units run as its own `kvsim replay` (--prefill-replicas k
// --decode-replicas k for k units); the winner is the cheapest that meets the SLOs (price = GPUs x
// 0.8), ties broken by fewer GPUs, the first SLO's latency (TTFT p99), then the space's order.
TEST(PlanCliTest, PdWinnerMatchesIndividualReplays) {
  const std::vector<std::string> trace = {"--synthetic", "150", "--rate", "3", "--prompt-len", "uniform:500:1500",
                                          "--output-len", "uniform:50:150", "--max-model-len", "4096"};
  constexpr double kPdTtftLimit = 2.0, kPdTpotLimit = 0.1;  // s
  struct Row {
    std::string label;
    bool found = false;
    int count = 0;
    int64_t gpus = 0;
    double usd = 0, ttft = 0;
  };
  std::vector<Row> rows;
  for (const bool pd : {false, true}) {
    Row row;
    row.label = std::string("l4 tp1 checkpoint seqs=64 tokens=2048") + (pd ? " P/D 1:1" : "");
    for (int n = 1; n <= 3 && !row.found; ++n) {
      std::vector<std::string> args = {"replay", "--gpu", "l4", "--max-num-seqs", "64", "--max-num-batched-tokens", "2048",
                                       "--gpu-hourly-cost", "0.8", "--json", "-"};  // the price makes the JSON carry load_check
      if (pd) args.insert(args.end(), {"--prefill-replicas", std::to_string(n), "--decode-replicas", std::to_string(n)});
      else args.insert(args.end(), {"--replicas", std::to_string(n)});
      args.insert(args.end(), trace.begin(), trace.end());
      const auto r = RunCli(args);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      const nlohmann::json j = nlohmann::json::parse(r.out);
      const double ttft = j["latency_s"]["ttft"]["p99"].get<double>(), tpot = j["latency_s"]["tpot"]["p99"].get<double>();
      if (j["load_check"]["served"].get<bool>() && ttft <= kPdTtftLimit && tpot <= kPdTpotLimit) {
        row.found = true;
        row.count = n;
        row.gpus = n * (pd ? 2 : 1);
        row.usd = static_cast<double>(row.gpus) * kL4Usd;
        row.ttft = ttft;
      }
    }
    rows.push_back(row);
  }
  int winner = -1;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i].found) continue;
    if (winner < 0 || std::tuple(rows[i].usd, rows[i].gpus, rows[i].ttft) < std::tuple(rows[winner].usd, rows[winner].gpus, rows[winner].ttft))
      winner = static_cast<int>(i);
  }
  ASSERT_GE(winner, 0) << "the case must have a feasible configuration";
  for (const bool exhaustive : {false, true}) {
    std::vector<std::string> args = {"plan", "--gpus", "l4", "--tp", "1", "--max-num-seqs", "64", "--max-num-batched-tokens",
                                     "2048", "--pd-ratios", "1:1", "--max-replicas", "3", "--slo", "ttft-p99=2s,tpot-p99=100ms",
                                     "--gpu-hourly-cost", "l4=0.8", "--json", "-"};
    if (exhaustive) args.push_back("--exhaustive");
    args.insert(args.end(), trace.begin(), trace.end());
    const auto r = RunCli(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["winner"]["configuration"], rows[winner].label);
    EXPECT_EQ(j["winner"]["replicas"], rows[winner].count);
    EXPECT_EQ(j["winner"]["gpus"], rows[winner].gpus);
    EXPECT_NEAR(j["winner"]["usd_per_hour"].get<double>(), rows[winner].usd, 1e-9);
    ASSERT_EQ(j["configurations"].size(), 2u);
    const nlohmann::json& pd = j["configurations"][1];
    EXPECT_EQ(pd["configuration"], rows[1].label);
    EXPECT_EQ(pd["found"], rows[1].found);
    if (exhaustive && rows[1].found) {
      EXPECT_EQ(pd["replicas"], rows[1].count);
      EXPECT_EQ(pd["pd"]["prefill_instances"], rows[1].count);
      EXPECT_EQ(pd["pd"]["decode_instances"], rows[1].count);
    }
    // Both pools' launch lines carry the NixlConnector transfer config.
    EXPECT_NE(pd["serve"].get<std::string>().find("--kv-transfer-config '{\"kv_connector\":\"NixlConnector\""), std::string::npos)
        << pd["serve"];
    EXPECT_NE(pd["pd"]["decode_serve"].get<std::string>().find("NixlConnector"), std::string::npos);
    EXPECT_EQ(j["configurations"][0].count("pd"), 0u);
  }
}

TEST(PlanCliTest, RefusesWhatItWouldIgnore) {
  testing::ExpectOneLineError(RunCli({"plan", "--gpu", "l4", "--objective", "gpus"}), "--gpus");
  testing::ExpectOneLineError(RunCli({"plan", "--gpus", "l4", "--replicas", "2", "--objective", "gpus"}), "--max-replicas");
  testing::ExpectOneLineError(RunCli({"plan", "--gpus", "l4"}), "--gpu-hourly-cost");
  testing::ExpectOneLineError(RunCli({"plan", "--gpus", "l4,h100", "--gpu-hourly-cost", "l4=0.8"}), "h100");
  testing::ExpectOneLineError(RunCli({"plan", "--gpus", "l4", "--tp", "1,,2", "--objective", "gpus"}), "--tp");
  testing::ExpectOneLineError(RunCli({"plan", "--gpus", "l4", "--formats", "checkpoint,int3", "--objective", "gpus"}), "--formats");
  testing::ExpectOneLineError(RunCli({"plan", "--gpus", "l4", "--kv-cache-dtypes", "fp7", "--objective", "gpus"}), "--kv-cache-dtypes");
  testing::ExpectOneLineError(RunCli({"plan", "--gpus", "l4", "--pd-ratios", "1:0", "--objective", "gpus"}), "--pd-ratios");
  testing::ExpectOneLineError(RunCli({"plan", "--gpus", "l4", "--pd-ratios", "1-2", "--objective", "gpus"}), "--pd-ratios");
  testing::ExpectOneLineError(RunCli({"plan", "--gpus", "l4", "--pd-ratios", "1:2,1:2", "--objective", "gpus"}), "--pd-ratios");
  testing::ExpectOneLineError(RunCli({"plan", "--gpus", "l4", "--prefill-replicas", "1", "--objective", "gpus"}), "--pd-ratios");
  testing::ExpectOneLineError(RunCli({"plan", "--gpus", "l4", "--pd-ratios", "1:1", "--decode-tp", "2", "--objective", "gpus"}), "--decode-tp");
  testing::ExpectOneLineError(RunCli({"plan", "--gpus", "l4", "--kv-link", "nvlink", "--objective", "gpus"}), "--kv-link");
}

// An option every configuration's replay would refuse alike (host tiers need prefix keys; a synthetic
// trace has none) is refused as `kvsim replay` refuses it, with exit 2 before the search starts and
// no plan printed, not answered as "no configuration meets the SLOs".
TEST(PlanCliTest, RefusesAnOptionEveryReplayRefuses) {
  const std::vector<std::string> shared = {"--synthetic", "50", "--rate", "2", "--kv-offload", "cpu=64GiB"};
  std::vector<std::string> replay = {"replay"};
  replay.insert(replay.end(), shared.begin(), shared.end());
  const auto alone = RunCli(replay);
  ASSERT_EQ(alone.exit_code, 2) << alone.err;
  std::vector<std::string> plan = {"plan", "--gpus", "h100", "--tp", "1,2", "--max-num-seqs", "64", "--max-num-batched-tokens",
                                   "2048", "--slo", "tpot-p99=100ms", "--objective", "gpus"};
  plan.insert(plan.end(), shared.begin(), shared.end());
  const auto r = RunCli(plan);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("--kv-offload: tiers find prompt chunks by their prefix keys"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("configurations to search"), std::string::npos) << r.err;
}

// A pasted server line given to plan was refused by each configuration's parser with "put it after `--`
// or in --vllm-cmd", the forms given: plan says it takes none and why.
TEST(PlanCliTest, APastedServeLineIsRefusedSayingPlanChoosesTheDeployment) {
  for (const std::vector<std::string>& line : {std::vector<std::string>{"--", "vllm", "serve", "Qwen/Qwen3-8B"},
                                               std::vector<std::string>{"--vllm-cmd", "vllm serve Qwen/Qwen3-8B"}}) {
    std::vector<std::string> args = {"plan", "--gpus", "h100", "--slo", "ttft-p99=2s", "--synthetic", "5", "--rate", "1",
                                     "--gpu-hourly-cost", "2"};
    args.insert(args.end(), line.begin(), line.end());
    testing::ExpectOneLineError(testing::RunCli(args), "kvsim plan takes no pasted server command line (" + line[0] + ")");
  }
}

}  // namespace
}  // namespace kvsim

namespace kvsim {
namespace {

// Under --objective latency the ranking metric is said in the text and the JSON: the first SLO on a
// latency, or TTFT p99 when no SLO names one (a plan ranked silently by a metric the user never gave).
TEST(PlanCliTest, TheLatencyObjectiveSaysWhatItRanksBy) {
  testing::TempDir dir;
  const std::string json = dir.File("plan.json");
  std::vector<std::string> args = {"plan", "--objective", "latency", "--gpus", "l4", "--tp", "1", "--max-num-seqs", "64",
                                   "--max-replicas", "1", "--json", json};
  args.insert(args.end(), kTrace.begin(), kTrace.end());
  const auto none = testing::RunCli(args);
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_NE(none.out.find("objective latency (ranked by ttft p99: no --slo names a latency)"), std::string::npos) << none.out;
  EXPECT_EQ(nlohmann::json::parse(testing::ReadFile(json)).at("ranked_by"), "ttft p99");
  args.insert(args.end(), {"--slo", "tpot-p90=1s"});
  const auto tpot = testing::RunCli(args);
  ASSERT_EQ(tpot.exit_code, 0) << tpot.err;
  EXPECT_NE(tpot.out.find("objective latency (ranked by tpot p90)"), std::string::npos) << tpot.out;
  EXPECT_EQ(nlohmann::json::parse(testing::ReadFile(json)).at("ranked_by"), "tpot p90");
}

}  // namespace
}  // namespace kvsim
