// kvsim train run as a user runs it: the article's LLaMA-7B row through the executable, count-only
// mode, --find, the report files and bad input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::RunCli;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

nlohmann::json Json(const testing::CommandResult& r) {
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

// Llama-2-7b has LLaMA-7B's shapes: article 003's row, batch 64, sequence 2048, AdamW.
TEST(TrainCliTest, LlamaSevenBRowOfArticle003) {
  const auto j = Json(RunCli({"train", "--model", "meta-llama/Llama-2-7b-hf", "--micro-batch-size", "64", "--seq-len",
                              "2048", "--json", "-"}));
  EXPECT_EQ(j.at("parameters").get<int64_t>(), 6738415616);
  EXPECT_EQ(j.at("trainable_parameters").get<int64_t>(), 6738415616);
  const auto& b = j.at("per_gpu_bytes");
  EXPECT_NEAR(b.at("weights").get<double>() / kGiB, 12.55, 0.005);
  EXPECT_NEAR(b.at("gradients").get<double>() / kGiB, 12.55, 0.005);
  EXPECT_NEAR(b.at("optimizer").get<double>() / kGiB, 75.31, 0.005);
  EXPECT_NEAR(j.at("activations_by_formula").at("llm_memory_article").get<double>() / kGiB, 1545.81, 0.005);
  for (const char* key : {"activations", "optimizer_intermediates", "peak"}) EXPECT_GT(b.at(key).get<double>(), 0) << key;
  for (const char* key : {"korthikanti", "hf_heuristic"}) EXPECT_GT(j.at("activations_by_formula").at(key).get<double>(), 0);
  EXPECT_FALSE(j.at("fits").get<bool>());  // 1.5 TiB of activations on one A100
  EXPECT_LT(j.at("margin_bytes").get<double>(), 0);
}

// --params N: model states by the articles' rules, activations by the heuristic A·b·s·bytes.
TEST(TrainCliTest, CountOnlyUsesTheHeuristic) {
  const auto j = Json(RunCli({"train", "--params", "7.5e9", "--micro-batch-size", "2", "--seq-len", "1024", "--json", "-"}));
  EXPECT_EQ(j.at("parameters").get<double>(), 7.5e9);
  EXPECT_DOUBLE_EQ(j.at("per_gpu_bytes").at("weights").get<double>(), 2 * 7.5e9);
  const double a = 4.6894e-4 * 7.5e9 + 1.8494e6;
  EXPECT_NEAR(j.at("activations_by_formula").at("hf_heuristic").get<double>(), a * 2 * 1024 * 2, 1.0);
}

TEST(TrainCliTest, FindGivesTheLargestMicroBatch) {
  const auto base = std::vector<std::string>{"train", "--model", "Qwen/Qwen2.5-1.5B", "--seq-len", "2048", "--flash-attention",
                                             "--gpu", "a100-40gb", "--json", "-"};
  auto with = [&](std::vector<std::string> extra) {
    auto args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return Json(RunCli(args));
  };
  const auto j = with({"--find", "micro-batch-size"});
  const int64_t b = j.at("max_micro_batch_size").get<int64_t>();
  ASSERT_GT(b, 0);
  EXPECT_TRUE(with({"--micro-batch-size", std::to_string(b)}).at("fits").get<bool>());
  // One more does not fit the named GPU: the answer is still written, and the exit code says so.
  auto args = base;
  args.insert(args.end(), {"--micro-batch-size", std::to_string(b + 1)});
  const auto over = RunCli(args);
  EXPECT_EQ(over.exit_code, 2);
  EXPECT_NE(over.err.find("does not fit"), std::string::npos) << over.err;
  EXPECT_FALSE(nlohmann::json::parse(over.out).at("fits").get<bool>());
}

TEST(TrainCliTest, ReportWritesHtmlAndSvg) {
  testing::TempDir dir;
  const auto r = RunCli({"train", "--model", "Qwen/Qwen2.5-1.5B", "--finetune", "lora", "--report", dir.File("t.html")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = testing::ReadFile(dir.File("t.html"));
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("memory over one iteration"), std::string::npos);
  EXPECT_EQ(testing::ReadFile(dir.File("t.svg")).rfind("<svg", 0), 0u);
  EXPECT_NE(r.out.find("Korthikanti"), std::string::npos);  // formulas printed beside the count
}

TEST(TrainCliTest, BadInputExitsTwoNamingTheOption) {
  struct Case {
    std::vector<std::string> args;
    const char* mentions;
  } cases[] = {
      {{"train", "--zero", "4"}, "--zero"},
      {{"train", "--precision", "fp8"}, "--precision"},
      {{"train", "--params", "7e9", "--finetune", "lora"}, "--finetune"},
      {{"train", "--tensor-parallel-size", "1", "--sequence-parallel"}, "--sequence-parallel"},
      {{"train", "--find", "seq-len"}, "--find"},
      {{"train", "--model", "Qwen/Qwen2.5-72B", "--gpu", "l4", "--find", "micro-batch-size"}, "micro-batch 1"},
  };
  for (const auto& c : cases) {
    const auto r = RunCli(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args.back();
    EXPECT_NE(r.err.find(c.mentions), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace kvsim
