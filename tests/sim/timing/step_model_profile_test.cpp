// The uncalibrated step model against measured A100 kernel timings (Vidur's profiles of
// Llama-2-7B and Llama-3-8B, ../shared/calibration/vidur-a100): `seconds.linear` of a decode batch
// with context 1 is the four projections of every layer, which the profile times per layer.
// Prints the ratio distribution per TP size and token range (the table in the README).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/deployment.h"
#include "kvcache/model/model_catalog.h"
#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "sim/timing/kernel_profile.h"
#include "sim/timing/profile_fit.h"
#include "sim/timing/step_model.h"
#include "tests/testutil.h"

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

// Predicted / measured seconds.linear of every profile row, grouped by (TP, token range).
using RatioGroups = std::map<std::pair<int64_t, std::string>, std::vector<double>>;
RatioGroups LinearRatios(const std::string& model, const std::string& profile, const StepModelOptions& options,
                         std::vector<double>* all) {
  const std::vector<KernelProfileRow> rows = ReadKernelProfile(kProfiles + profile);
  std::map<int64_t, StepModel> models;
  RatioGroups groups;
  for (const KernelProfileRow& row : rows) {
    if (!models.count(row.tp)) {
      DeploymentOptions o;
      o.model = model;
      o.gpu = "a100-80gb";
      o.dtype = "float16";  // Vidur profiled fp16 weights
      o.tensor_parallel_size = static_cast<int>(row.tp);
      o.max_model_len = "4096";
      const Deployment d = ResolveDeployment(o, DataDirectory());
      models.emplace(row.tp, StepModel(d.model, PlanCapacity(d.model, d.gpu, d.config), d.gpu, options));
    }
    const StepModel& m = models.at(row.tp);
    const StepWork decode{row.tokens, row.tokens, 2 * row.tokens, row.tokens};  // context 1
    const double measured = row.linear_s() * 32;
    const double ratio = m.Breakdown(decode).linear / measured;
    groups[{row.tp, TokenRange(row.tokens)}].push_back(ratio);
    all->push_back(ratio);
  }
  return groups;
}

void CheckModel(const std::string& model, const std::string& profile) {
  std::vector<double> all;
  const RatioGroups groups = LinearRatios(model, profile, StepModelOptions{}, &all);
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

// Calibrated on one model's profile, the other model's seconds.linear stays within a median of
// 0.95-1.05 (the held-out check, both ways round).
void CheckCrossModel(const std::string& fit_profile, const std::string& model, const std::string& profile) {
  DeploymentOptions o;
  o.gpu = "a100-80gb";
  const GpuSpec gpu = ResolveDeployment(o, DataDirectory()).gpu;
  const Calibration c =
      FitKernelProfiles({{fit_profile, ReadKernelProfile(kProfiles + fit_profile)}}, gpu, KernelEfficiency{});
  StepModelOptions options;
  options.efficiency = c.efficiency;
  options.calibration = fit_profile;
  options.calibration_gpu = c.gpu_id;
  std::vector<double> all;
  LinearRatios(model, profile, options, &all);
  const RatioStats s = Summarize(all);
  std::printf("calibrated on %s: %s median %.3f, %.1f%% within 0.8-1.25 (compute %.3f, memory %.3f, floor %.2f us)\n",
              fit_profile.c_str(), profile.c_str(), s.median, 100 * s.within, c.efficiency.gemm_compute,
              c.efficiency.gemm_memory, c.efficiency.gemm_floor_us);
  EXPECT_GE(s.median, 0.95);
  EXPECT_LE(s.median, 1.05);
}

TEST(StepModelProfileTest, CalibratedOnLlama2PredictsLlama3) {
  CheckCrossModel("meta-llama__Llama-2-7b-hf.mlp.csv", kProfiles + "meta-llama__Meta-Llama-3-8B.config.json",
                  "meta-llama__Meta-Llama-3-8B.mlp.csv");
}

TEST(StepModelProfileTest, CalibratedOnLlama3PredictsLlama2) {
  CheckCrossModel("meta-llama__Meta-Llama-3-8B.mlp.csv", "meta-llama/Llama-2-7b-hf", "meta-llama__Llama-2-7b-hf.mlp.csv");
}

// A profile with a bad cell is an error naming the file, line and column.
TEST(KernelProfileTest, BadCellNamesFileLineAndColumn) {
  const testing::TempDir dir;
  const std::string path = dir.File("bad_profile.csv");
  {
    std::ifstream in(kProfiles + "meta-llama__Llama-2-7b-hf.mlp.csv");
    std::ofstream out(path);
    std::string header, row;
    std::getline(in, header);
    out << header << "\n";
    std::getline(in, row);
    out << row << "\n";
    std::getline(in, row);
    // Replace the num_tokens cell of the second data row (file line 3).
    std::vector<std::string> cells;
    std::stringstream split(row);
    for (std::string cell; std::getline(split, cell, ',');) cells.push_back(cell);
    std::stringstream names(header);
    size_t column = 0;
    for (std::string name; std::getline(names, name, ',') && name != "num_tokens";) ++column;
    ASSERT_LT(column, cells.size());
    cells[column] = "abc";
    out << Join(cells, ",") << "\n";
  }
  try {
    ReadKernelProfile(path);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":3: column num_tokens: 'abc'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kvsim
