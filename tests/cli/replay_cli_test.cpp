// kvsim replay as a user runs it: malformed traces exit 2 with one line naming file, line and
// column; the JSON has every key the report promises.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::RunCli;

std::string Corpus(const std::string& name) { return std::string(KVSIM_TEST_DATA_DIR) + "/traces/" + name; }

TEST(ReplayCliTest, MalformedTracesExitTwoWithOneLine) {
  for (const char* file : {"azure_bad_timestamp.csv", "azure_negative_tokens.csv", "azure_unsorted.csv",
                           "azure_missing_column.csv", "vidur_non_numeric.csv", "mooncake_bad_json.jsonl",
                           "mooncake_missing_field.jsonl", "unknown_header.csv"}) {
    const auto r = RunCli({"replay", "--trace", Corpus(file), "--quiet"});
    EXPECT_EQ(r.exit_code, 2) << file;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
  }
  const auto missing = RunCli({"replay", "--trace", "/no/such/trace.csv"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("/no/such/trace.csv"), std::string::npos);
  const auto lenient = RunCli({"replay", "--trace", Corpus("azure_bad_timestamp.csv"), "--skip-bad-rows", "--quiet"});
  EXPECT_EQ(lenient.exit_code, 0) << lenient.err;
  EXPECT_NE(lenient.err.find("warning"), std::string::npos);
}

TEST(ReplayCliTest, BadOptionsExitTwo) {
  for (std::vector<std::string> args : {std::vector<std::string>{"replay", "--rate-scale", "0"},
                                        {"replay", "--allocator", "magic"},
                                        {"replay", "--scheduler", "fifo"},
                                        {"replay", "--synthetic", "10"},  // no --rate
                                        {"replay", "--repeat", "0"}}) {
    const auto r = RunCli(args);
    EXPECT_EQ(r.exit_code, 2) << args[1] << ": " << r.err;
  }
}

TEST(ReplayCliTest, JsonHasEveryPromisedKey) {
  const auto r = RunCli({"replay", "--synthetic", "300", "--rate", "20", "--quiet", "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const std::vector<std::vector<std::string>> keys = {
      {"requests", "total"}, {"requests", "finished"}, {"requests", "rejected"}, {"requests", "preemptions"},
      {"concurrency", "peak_running"}, {"concurrency", "mean_running"}, {"concurrency", "peak_waiting"},
      {"kv", "num_blocks"}, {"kv", "block_size"}, {"kv", "peak_used_blocks"}, {"kv", "peak_used_fraction"},
      {"memory_gib", "weights"}, {"memory_gib", "activation"}, {"memory_gib", "non_torch"}, {"memory_gib", "kv_pool"},
      {"memory_gib", "kv_peak_used"}, {"memory_gib", "peak_total"}, {"prefix_cache", "hit_rate"},
      {"throughput", "requests_per_s"}, {"throughput", "output_tokens_per_s"}, {"sim", "wall_s"}, {"sim", "events"},
      {"sim", "steps"}, {"waste", "token_states"}, {"waste_saturated", "free"}, {"config", "model"}};
  for (const auto& k : keys) EXPECT_TRUE(j.contains(k[0]) && j[k[0]].contains(k[1])) << k[0] << "." << k[1];
  for (const char* l : {"queue", "ttft", "tpot", "e2e"})
    for (const char* q : {"mean", "p50", "p90", "p99"}) EXPECT_TRUE(j["latency_s"][l].contains(q)) << l << "." << q;
  EXPECT_EQ(j["requests"]["total"], 300);
}

}  // namespace
}  // namespace kvsim
