// `kvsim compare` output: the deployments' summaries side by side (with b − a for a pair), as a
// console table, JSON, and one HTML page with their charts overlaid.
#ifndef KVSIM_REPORTS_COMPARE_REPORT_H_
#define KVSIM_REPORTS_COMPARE_REPORT_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/chart_recorder.h"
#include "sim/stats/replay_summary.h"
#include "sim/sweep/sweep.h"

namespace kvsim {

struct ComparedDeployment {
  std::string label;
  const ReplaySummary* summary = nullptr;
  const ChartRecorder* charts = nullptr;  // for the HTML page
};

std::string RenderCompareTable(const std::vector<ComparedDeployment>& deployments);

// [{"deployment": label, "summary": {...}}, ...]. When some deployments did not finish (a signal), an
// object instead: {"partial": true, "deployments": [the finished ones as above],
// "unfinished": [{"deployment": label, "reason": ...}]}.
nlohmann::json CompareToJson(const std::vector<ComparedDeployment>& deployments,
                             const std::vector<UnfinishedPoint>& unfinished = {});

// REQUIRES: every deployment has charts.
std::string RenderCompareHtml(const std::vector<ComparedDeployment>& deployments);

}  // namespace kvsim

#endif  // KVSIM_REPORTS_COMPARE_REPORT_H_
