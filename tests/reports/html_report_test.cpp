// The HTML report without a browser: every chart is present with real geometry, the numbers it
// prints agree with the JSON of the same run, and nothing degenerate (NaN, infinity) leaks in.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/testutil.h"

namespace kvsim {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(HtmlReportTest, ChartsHaveGeometryAndNumbersMatchTheJson) {
  const testing::TempDir dir;
  const std::string html_path = dir.File("report.html"), json_path = dir.File("summary.json");
  const auto r = testing::RunCli({"replay", "--gpu", "a100-40gb", "--max-model-len", "8192", "--rate-scale", "3",
                                  "--max-requests", "4000", "--quiet", "--omit-wall-time", "--report", html_path, "--json",
                                  json_path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = ReadFile(html_path);
  const auto j = nlohmann::json::parse(ReadFile(json_path));
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.find("<script"), std::string::npos);  // self-contained, no scripts needed
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));  // no network references
  for (const char* bad : {"nan", "inf\"", "NaN"}) EXPECT_EQ(html.find(bad), std::string::npos) << bad;

  // Seven charts: capacity bar, KV by category, running/waiting, latency CDFs, TTFT terms, two waste bars.
  // (Plain string scanning: std::regex trips GCC 12's -Wmaybe-uninitialized under ASan.)
  auto count = [&](const std::string& needle) {
    int n = 0;
    for (size_t at = html.find(needle); at != std::string::npos; at = html.find(needle, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("class=\"chart\""), 7);
  // Every path has coordinates; the stacked chart has six areas, the CDF chart three curves.
  int areas = 0, lines = 0;
  for (const char* kind : {"area", "line"}) {
    const std::string prefix = std::string("<path class=\"") + kind + "\" d=\"M";
    for (size_t at = html.find(prefix); at != std::string::npos; at = html.find(prefix, at + 1)) {
      const char next = html[at + prefix.size()];
      if (next >= '0' && next <= '9') (kind[0] == 'a' ? areas : lines) += 1;
    }
  }
  EXPECT_EQ(areas, 6);
  EXPECT_EQ(lines, 2 + 3);
  EXPECT_EQ(html.find("d=\"\""), std::string::npos);
  for (const char* axis : {"simulated time (s)", "share of KV pool", "seconds (log scale)", "fraction of requests"})
    EXPECT_NE(html.find(axis), std::string::npos) << axis;

  // Numbers printed in the report are the JSON's.
  const auto& rq = j["requests"];
  EXPECT_NE(html.find(std::to_string(rq["finished"].get<int64_t>()) + " / " + std::to_string(rq["rejected"].get<int64_t>()) +
                      " / " + std::to_string(rq["total"].get<int64_t>())),
            std::string::npos);
  char p99[32];
  std::snprintf(p99, sizeof p99, "<td>%.3f</td></tr>", j["latency_s"]["e2e"]["p99"].get<double>());
  EXPECT_NE(html.find(p99), std::string::npos) << p99;
  EXPECT_NE(html.find(std::to_string(rq["preemptions"].get<int64_t>())), std::string::npos);
  std::printf("report: %zu bytes; finished %lld, preemptions %lld, e2e p99 %.3f s\n", html.size(),
              static_cast<long long>(rq["finished"].get<int64_t>()), static_cast<long long>(rq["preemptions"].get<int64_t>()),
              j["latency_s"]["e2e"]["p99"].get<double>());
}

}  // namespace
}  // namespace kvsim

namespace kvsim {
namespace {

// A host tier small enough to fill: the report gains the tier chart (eight charts), and a replay
// without tiers keeps its seven.
TEST(HtmlReportTest, KvTiersGetAnOccupancyChart) {
  const testing::TempDir dir;
  const std::string html_path = dir.File("tiers.html");
  const auto r = testing::RunCli({"replay", "--trace", testing::SharedPath("traces/mooncake/conversation_trace.jsonl"),
                                  "--gpu", "h100", "--vllm-version", "0.24", "--num-gpu-blocks-override", "4000", "--max-model-len", "64000",
                                  "--max-requests", "300", "--kv-offload", "cpu=2GiB", "--quiet", "--report", html_path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = ReadFile(html_path);
  EXPECT_NE(html.find("KV tiers below the GPU over time"), std::string::npos);
  EXPECT_NE(html.find("share of the tier"), std::string::npos);
  int charts = 0;
  for (size_t at = html.find("class=\"chart\""); at != std::string::npos; at = html.find("class=\"chart\"", at + 1)) ++charts;
  EXPECT_EQ(charts, 8);
}

}  // namespace
}  // namespace kvsim
