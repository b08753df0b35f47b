// `kvsim capacity --trace`: the max-concurrency row at the trace's mean request length, checked
// against the trace file read here (mean of min(prompt + output, max-model-len) over the prompts
// shorter than max-model-len) and vLLM's rule for full-attention models: usable blocks over the
// blocks of one request of that length.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::RunCli;

TEST(CapacityTraceTest, RowAtTheTracesMeanLength) {
  const std::string trace = testing::SharedPath("traces/azure_2023/AzureLLMInferenceTrace_code.csv");
  const int64_t max_len = 4096;
  std::ifstream in(trace);
  std::string row;
  std::getline(in, row);  // TIMESTAMP,ContextTokens,GeneratedTokens
  double sum = 0;
  int64_t n = 0;
  while (std::getline(in, row)) {
    std::stringstream cells(row);
    std::string stamp, prompt, output;
    std::getline(cells, stamp, ',');
    std::getline(cells, prompt, ',');
    std::getline(cells, output, ',');
    const int64_t p = std::stoll(prompt), o = std::stoll(output);
    if (p >= max_len) continue;
    sum += static_cast<double>(std::min(p + o, max_len));
    ++n;
  }
  ASSERT_GT(n, 7000);  // of 8,819 rows
  const int64_t mean = std::llround(sum / static_cast<double>(n));

  const auto r = RunCli({"capacity", "--json", "-", "--gpu", "h100", "--max-model-len", std::to_string(max_len), "--trace", trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["trace_mean_tokens"].get<int64_t>(), mean);
  const double usable = j["usable_gpu_blocks"].get<double>();
  const double blocks_per_request = std::ceil(static_cast<double>(mean) / 16.0);
  bool found = false;
  int64_t previous = 0;
  for (const auto& at : j["max_concurrency_at"]) {
    EXPECT_GT(at["tokens"].get<int64_t>(), previous);  // in length order
    previous = at["tokens"].get<int64_t>();
    if (at["tokens"] != mean) continue;
    found = true;
    EXPECT_NEAR(at["requests"].get<double>(), usable / blocks_per_request, 1e-4);
  }
  EXPECT_TRUE(found);

  const auto text = RunCli({"capacity", "--gpu", "h100", "--max-model-len", std::to_string(max_len), "--trace", trace});
  EXPECT_NE(text.out.find("max concurrency @ " + std::to_string(mean) + " tokens (trace mean)"), std::string::npos) << text.out;
}

TEST(CapacityTraceTest, ATraceWithNoFittingPromptIsAnError) {
  const testing::TempDir dir;
  const std::string path = dir.File("long.csv");
  std::ofstream(path) << "num_prefill_tokens,num_decode_tokens\n9000,10\n";
  const auto r = RunCli({"capacity", "--max-model-len", "4096", "--trace", path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no request has a prompt shorter than max-model-len 4096"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kvsim
