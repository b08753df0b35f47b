// `kvsim compare` output: the deployments' summaries side by side (with b − a for a pair), as a
// console table, JSON, and one HTML page with their charts overlaid.
#ifndef KVSIM_REPORTS_COMPARE_REPORT_H_
#define KVSIM_REPORTS_COMPARE_REPORT_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/chart_recorder.h"
#include "sim/replay_summary.h"

namespace kvsim {

struct ComparedDeployment {
  std::string label;
  const ReplaySummary* summary = nullptr;
  const ChartRecorder* charts = nullptr;  // for the HTML page
};

std::string RenderCompareTable(const std::vector<ComparedDeployment>& deployments);

// [{"deployment": label, "summary": {...}}, ...]
nlohmann::json CompareToJson(const std::vector<ComparedDeployment>& deployments);

// REQUIRES: every deployment has charts.
std::string RenderCompareHtml(const std::vector<ComparedDeployment>& deployments);

}  // namespace kvsim

#endif  // KVSIM_REPORTS_COMPARE_REPORT_H_
