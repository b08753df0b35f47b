// The uncalibrated step model against measured A100 kernel timings (Vidur's profiles of
// Llama-2-7B and Llama-3-8B, ../shared/calibration/vidur-a100): `seconds.linear` of a decode batch
// with context 1 is the four projections of every layer, which the profile times per layer.
// Prints the ratio distribution per TP size and token range (the table in the README).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/deployment.h"
#include "kvcache/model/model_catalog.h"
#include "sim/kernel_profile.h"
#include "sim/step_model.h"

namespace kvsim {
namespace {

const std::string kProfiles = std::string(KVSIM_SHARED_DIR) + "/calibration/vidur-a100/";

struct RatioStats {
  int points = 0;
  double median = 0, within = 0, min = 0, max = 0;
};

RatioStats Summarize(std::vector<double> r) {
  std::sort(r.begin(), r.end());
  RatioStats s;
  s.points = static_cast<int>(r.size());
  s.median = r.size() % 2 ? r[r.size() / 2] : (r[r.size() / 2 - 1] + r[r.size() / 2]) / 2;
  s.within = static_cast<double>(std::count_if(r.begin(), r.end(), [](double x) { return x >= 0.8 && x <= 1.25; })) /
             static_cast<double>(r.size());
  s.min = r.front();
  s.max = r.back();
  return s;
}

const char* TokenRange(int64_t tokens) { return tokens <= 32 ? "1-32" : tokens <= 512 ? "33-512" : ">512"; }

void CheckModel(const std::string& model, const std::string& profile) {
  const std::vector<KernelProfileRow> rows = ReadKernelProfile(kProfiles + profile);
  std::map<int64_t, StepModel> models;
  std::map<std::pair<int64_t, std::string>, std::vector<double>> groups;
  std::vector<double> all;
  for (const KernelProfileRow& row : rows) {
    if (!models.count(row.tp)) {
      DeploymentOptions o;
      o.model = model;
      o.gpu = "a100-80gb";
      o.dtype = "float16";  // Vidur profiled fp16 weights
      o.tensor_parallel_size = static_cast<int>(row.tp);
      o.max_model_len = "4096";
      const Deployment d = ResolveDeployment(o, DataDirectory());
      models.emplace(row.tp, StepModel(d.model, PlanCapacity(d.model, d.gpu, d.config), d.gpu, StepModelOptions{}));
    }
    const StepModel& m = models.at(row.tp);
    const StepWork decode{row.tokens, row.tokens, 2 * row.tokens, row.tokens};  // context 1
    const double measured = row.linear_s() * 32;
    const double ratio = m.Breakdown(decode).linear / measured;
    groups[{row.tp, TokenRange(row.tokens)}].push_back(ratio);
    all.push_back(ratio);
  }
  std::printf("%s: predicted / measured seconds.linear, uncalibrated\n", model.c_str());
  std::printf("  TP  tokens   points  median  in[0.8,1.25]   min    max\n");
  for (const auto& [key, ratios] : groups) {
    const RatioStats s = Summarize(ratios);
    std::printf("  %2lld  %-7s  %5d   %5.3f   %5.1f%%      %5.3f  %5.3f\n", static_cast<long long>(key.first),
                key.second.c_str(), s.points, s.median, 100 * s.within, s.min, s.max);
    EXPECT_GE(s.median, 0.9) << "TP " << key.first << " tokens " << key.second;
    EXPECT_LE(s.median, 1.1) << "TP " << key.first << " tokens " << key.second;
    EXPECT_GE(s.within, 0.9) << "TP " << key.first << " tokens " << key.second;
    EXPECT_GE(s.min, 0.5) << "TP " << key.first << " tokens " << key.second;
  }
  const RatioStats s = Summarize(all);
  std::printf("  all          %5d   %5.3f   %5.1f%%      %5.3f  %5.3f\n", s.points, s.median, 100 * s.within, s.min, s.max);
}

TEST(StepModelProfileTest, Llama2_7bLinearMatchesMeasuredKernels) {
  CheckModel("meta-llama/Llama-2-7b-hf", "meta-llama__Llama-2-7b-hf.mlp.csv");
}

TEST(StepModelProfileTest, Llama3_8bLinearMatchesMeasuredKernels) {
  CheckModel(kProfiles + "meta-llama__Meta-Llama-3-8B.config.json", "meta-llama__Meta-Llama-3-8B.mlp.csv");
}

}  // namespace
}  // namespace kvsim
