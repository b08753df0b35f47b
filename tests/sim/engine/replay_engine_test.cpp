// The replay end to end on real traces: event skipping against token stepping, conservation of
// requests, and the waste figures paged and contiguous allocation give under load.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::RunCli;

nlohmann::json Replay(std::vector<std::string> args) {
  const testing::TempDir dir;
  const std::string path = dir.File("summary.json");
  args.insert(args.begin(), "replay");
  for (const char* a : {"--omit-wall-time", "--quiet", "--json"}) args.push_back(a);
  args.push_back(path);
  const auto r = RunCli(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(testing::ReadFile(path));
}

nlohmann::json WithoutStepping(nlohmann::json j) {
  j["sim"].erase("events");  // event stepping touches fewer requests: that is the point
  j["sim"].erase("stepping");
  if (j.contains("fleet"))
    for (auto& [k, v] : j["fleet"].items())
      if (v.is_array())
        for (auto& replica : v)
          if (replica.is_object() && replica.contains("sim")) replica["sim"].erase("events"), replica["sim"].erase("stepping");
  return j;
}

void ExpectSameWithBothSteppings(const std::vector<std::string>& args) {
  auto event = args, token = args;
  event.insert(event.end(), {"--stepping", "event"});
  token.insert(token.end(), {"--stepping", "token"});
  const auto a = Replay(event), b = Replay(token);
  EXPECT_EQ(WithoutStepping(a).dump(1), WithoutStepping(b).dump(1));
  EXPECT_LT(a["sim"]["events"].get<int64_t>(), b["sim"]["events"].get<int64_t>());
}

TEST(ReplayEngineTest, EventSkippingEqualsTokenSteppingOnTheAzureCodeTrace) {
  ExpectSameWithBothSteppings({"--trace", testing::SharedPath("traces/azure_2023/AzureLLMInferenceTrace_code.csv"),
                               "--gpu", "a100-40gb", "--max-model-len", "8192", "--rate-scale", "3"});
}

TEST(ReplayEngineTest, EventSkippingEqualsTokenSteppingWithPreemptionsPrefixesAndWindows) {
  // Preemptions: the conversation trace compressed on a 40 GB A100.
  ExpectSameWithBothSteppings({"--gpu", "a100-40gb", "--max-model-len", "8192", "--rate-scale", "2",
                               "--max-requests", "6000"});
  // Prefix caching from Mooncake hash_ids.
  ExpectSameWithBothSteppings({"--trace", testing::SharedPath("traces/mooncake/synthetic_trace.jsonl"), "--gpu", "h100",
                               "--max-model-len", "131072", "--max-requests", "800"});
  // Sliding-window layer groups (gpt-oss) and a contiguous buddy allocator.
  ExpectSameWithBothSteppings({"--model", "openai/gpt-oss-20b", "--gpu", "l40s", "--max-model-len", "16384",
                               "--rate-scale", "2", "--max-requests", "3000"});
  ExpectSameWithBothSteppings({"--gpu", "l4", "--max-model-len", "4096", "--allocator", "contiguous", "--reservation",
                               "pow2", "--placement", "buddy", "--max-requests", "3000", "--rate-scale", "2"});
}

// Quiet decode steps (only lazy decoders, nothing due) skip the scheduler passes: with a full
// batch and a queue left waiting (max_num_seqs reached), and with an idle queue.
TEST(ReplayEngineTest, QuietDecodeStepsEqualTokenSteppingAtTheBatchCap) {
  ExpectSameWithBothSteppings({"--gpu", "h100", "--max-num-seqs", "8", "--max-requests", "1500"});
  ExpectSameWithBothSteppings({"--gpu", "h100", "--max-requests", "1500"});
}

// Held growth and quiet runs in a fleet: each replica's runs end at the next arrival anywhere.
TEST(ReplayEngineTest, EventSkippingEqualsTokenSteppingInAFleet) {
  ExpectSameWithBothSteppings({"--gpu", "l4", "--max-model-len", "8192", "--replicas", "4", "--router", "least-kv",
                               "--max-requests", "3000", "--rate-scale", "4"});
}

// Acceptance of the latency sketch: on the bundled trace (19,366 requests, past the 4,096 kept
// exactly), every figure is the exact mode's but the quantiles, and those within the sketch's
// stated 0.5% (plus the microsecond rounding).
TEST(ReplayEngineTest, SketchedQuantilesAreWithinHalfAPercentAndNothingElseMoves) {
  auto sketched = Replay({"--gpu", "h100"}), exact = Replay({"--gpu", "h100", "--exact-quantiles"});
  EXPECT_EQ(sketched["sim"]["latency_quantiles"], "sketch (log buckets 1% wide: within 0.5%)");
  EXPECT_EQ(exact["sim"]["latency_quantiles"], "exact");
  int compared = 0;
  for (auto& [name, l] : exact["latency_s"].items()) {
    if (name == "ttft_components") continue;  // means, not quantiles
    for (const char* q : {"p50", "p90", "p99"}) {
      const double e = l[q].get<double>(), s = sketched["latency_s"][name][q].get<double>();
      EXPECT_LE(std::abs(s - e), 0.005 * e + 1e-6) << name << " " << q << ": sketch " << s << ", exact " << e;
      sketched["latency_s"][name].erase(q);
      l.erase(q);
      ++compared;
    }
  }
  EXPECT_EQ(compared, 21);  // queue, ttft, client_ttft, server_ttft, tpot, itl, e2e
  sketched["sim"].erase("latency_quantiles");
  exact["sim"].erase("latency_quantiles");
  EXPECT_EQ(sketched.dump(1), exact.dump(1));
}

TEST(ReplayEngineTest, EveryRequestEndsFinishedOrRejectedWithAReason) {
  const testing::TempDir dir;
  const std::string csv = dir.File("requests.csv");
  const auto j = Replay({"--gpu", "l4", "--max-model-len", "4096", "--rate-scale", "4", "--requests", csv});
  EXPECT_EQ(j["requests"]["total"], 19366);
  EXPECT_EQ(j["requests"]["finished"].get<int64_t>() + j["requests"]["rejected"].get<int64_t>(), 19366);
  // Rejected: exactly the prompts that do not leave room for one output token in 4,096, counted
  // from the trace file itself.
  std::istringstream trace(testing::ReadFile(testing::SharedPath("traces/azure_2023/AzureLLMInferenceTrace_conv.csv")));
  std::string row;
  std::getline(trace, row);  // TIMESTAMP,ContextTokens,GeneratedTokens
  int64_t too_long = 0;
  while (std::getline(trace, row)) {
    const size_t a = row.find(','), b = row.find(',', a + 1);
    too_long += std::stoll(row.substr(a + 1, b - a - 1)) >= 4096;
  }
  EXPECT_EQ(j["requests"]["rejected"].get<int64_t>(), too_long);
  EXPECT_EQ(j["requests"]["rejected_by_reason"]["prompt_tokens >= max_model_len"].get<int64_t>(), too_long);
  EXPECT_GT(j["requests"]["preemptions"].get<int64_t>(), 0);
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  std::set<uint64_t> ids;
  int64_t rows = 0;
  while (std::getline(in, line)) {
    ++rows;
    ids.insert(std::stoull(line.substr(0, line.find(','))));
    const bool finished = line.find(",finished") != std::string::npos;
    const bool rejected = line.find(",rejected: ") != std::string::npos;
    ASSERT_TRUE(finished != rejected) << line;
  }
  EXPECT_EQ(rows, 19366);
  EXPECT_EQ(ids.size(), 19366u);
}

// Acceptance: under load (requests queueing) paged allocation keeps token states >= 90% of the
// KV memory in use; the contiguous `max` reservation <= 40% (the vLLM paper's 20-38% band).
TEST(ReplayEngineTest, PagedKeepsTokenStatesWhereContiguousMaxWastes) {
  const std::vector<std::string> base = {"--gpu", "a100-40gb", "--max-model-len", "8192", "--rate-scale", "2"};
  auto share = [](const nlohmann::json& w) {
    const double used = w["token_states"].get<double>() + w["reserved"].get<double>() +
                        w["internal_fragmentation"].get<double>();
    return w["token_states"].get<double>() / used;
  };
  const auto paged = Replay(base);
  auto contiguous_args = base;
  contiguous_args.insert(contiguous_args.end(), {"--allocator", "contiguous", "--reservation", "max"});
  const auto contiguous = Replay(contiguous_args);
  EXPECT_GT(paged["waste_saturated"]["saturated_time_fraction"].get<double>(), 0.5);
  EXPECT_GE(share(paged["waste_saturated"]), 0.90);
  EXPECT_LE(share(contiguous["waste_saturated"]), 0.40);
  for (const auto* j : {&paged, &contiguous}) {
    double sum = 0;
    for (const char* k : {"token_states", "reserved", "internal_fragmentation", "external_fragmentation", "cached", "free"})
      sum += (*j)["waste"][k].get<double>();
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
  std::printf("token states / used while saturated: paged %.3f, contiguous max %.3f\n", share(paged["waste_saturated"]),
              share(contiguous["waste_saturated"]));
}

TEST(ReplayEngineTest, RunsAreByteIdentical) {
  auto run = [] {
    const testing::TempDir dir;
    const std::string series = dir.File("series.csv");
    const auto j = Replay({"--max-requests", "3000", "--rate-scale", "3", "--timeseries", series, "--sample-interval", "1"});
    return j.dump() + testing::ReadFile(series);
  };
  EXPECT_EQ(run(), run());
}

}  // namespace
}  // namespace kvsim
