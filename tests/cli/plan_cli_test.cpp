// `kvsim plan` end to end. The hand-derived plan: one GPU type, two TP sizes, two weight formats and
// a short trace; every configuration at every replica count is run as its own `kvsim replay`, and
// the winner and the Pareto front are derived here from those replays' JSON (the SLOs read off the
// latency quantiles and the served-load check, the price as replicas x TP x the hourly price), then
// compared with what `kvsim plan` answers, pruned and exhaustive.
#include <gtest/gtest.h>

#include <algorithm>

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

TEST(PlanCliTest, RefusesWhatItWouldIgnore) {
  testing::ExpectOneLineError(RunCli({"plan", "--gpu", "l4", "--objective", "gpus"}), "--gpus");
  testing::ExpectOneLineError(RunCli({"plan", "--gpus", "l4", "--replicas", "2", "--objective", "gpus"}), "--max-replicas");
  testing::ExpectOneLineError(RunCli({"plan", "--gpus", "l4"}), "--gpu-hourly-cost");
  testing::ExpectOneLineError(RunCli({"plan", "--gpus", "l4,h100", "--gpu-hourly-cost", "l4=0.8"}), "h100");
  testing::ExpectOneLineError(RunCli({"plan", "--gpus", "l4", "--tp", "1,,2", "--objective", "gpus"}), "--tp");
  testing::ExpectOneLineError(RunCli({"plan", "--gpus", "l4", "--formats", "checkpoint,int3", "--objective", "gpus"}), "--formats");
  testing::ExpectOneLineError(RunCli({"plan", "--gpus", "l4", "--kv-cache-dtypes", "fp7", "--objective", "gpus"}), "--kv-cache-dtypes");
}

}  // namespace
}  // namespace kvsim
