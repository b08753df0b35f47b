// `kvsim plan` output: the winner with its `vllm serve` line and error bars, the Pareto front, the
// rejected families and the configurations that do not start (text), every configuration (JSON,
// CSV) and the front's chart (HTML).
#ifndef KVSIM_REPORTS_PLAN_REPORT_H_
#define KVSIM_REPORTS_PLAN_REPORT_H_

#include <string>

#include <nlohmann/json.hpp>

#include "sim/plan/plan_answer.h"

namespace kvsim {

std::string RenderPlanText(const PlanAnswer& answer);
nlohmann::json PlanToJson(const PlanAnswer& answer);
// One row per configuration of the space, skipped ones included (with their reason).
std::string RenderPlanCsv(const PlanAnswer& answer);
std::string RenderPlanHtml(const PlanAnswer& answer);

}  // namespace kvsim

#endif  // KVSIM_REPORTS_PLAN_REPORT_H_
