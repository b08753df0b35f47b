// `--replicas 1` is byte-identical to no flag (acceptance 1 of the fleet issue), on three
// configurations: the bundled Azure trace (v1, paged), the v0 scheduler with a contiguous
// allocator, and a Mooncake trace with prefix caching.
#include <gtest/gtest.h>

#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::RunCli;

TEST(FleetCliTest, OneReplicaIsByteIdenticalToNoFlag) {
  const std::vector<std::vector<std::string>> configs = {
      {"--max-requests", "2000", "--gpu", "a100-40gb", "--rate-scale", "2"},
      {"--max-requests", "2000", "--scheduler", "vllm-v0", "--allocator", "contiguous", "--reservation", "pow2"},
      {"--trace", testing::SharedPath("traces/mooncake/conversation_trace.jsonl"), "--max-requests", "1000", "--gpu",
       "a100-40gb"}};
  for (const auto& config : configs) {
    std::vector<std::string> base = {"replay", "--omit-wall-time", "--json", "-"};
    base.insert(base.end(), config.begin(), config.end());
    std::vector<std::string> one = base;
    one.insert(one.end(), {"--replicas", "1"});
    const auto a = RunCli(base), b = RunCli(one);
    ASSERT_EQ(a.exit_code, 0) << a.err;
    EXPECT_EQ(a.out, b.out);
    EXPECT_EQ(a.out.find("\"fleet\""), std::string::npos);
  }
}

TEST(FleetCliTest, BadFleetOptionsExitTwo) {
  EXPECT_EQ(RunCli({"replay", "--replicas", "0", "--quiet"}).exit_code, 2);
  EXPECT_EQ(RunCli({"replay", "--router", "random", "--quiet"}).exit_code, 2);
  EXPECT_EQ(RunCli({"replay", "--gpu-hourly-cost", "-1", "--quiet"}).exit_code, 2);
}

}  // namespace
}  // namespace kvsim
