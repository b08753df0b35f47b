// The prefill/decode section of a disaggregated replay's summary (sim/stats/disagg_summary.h):
// JSON key "disaggregation" and a console table.
#ifndef KVSIM_REPORTS_DISAGG_REPORT_H_
#define KVSIM_REPORTS_DISAGG_REPORT_H_

#include <string>

#include <nlohmann/json.hpp>

#include "sim/stats/disagg_summary.h"

namespace kvsim {

nlohmann::json DisaggToJson(const DisaggSummary& disagg);
std::string RenderDisaggText(const DisaggSummary& disagg);

}  // namespace kvsim

#endif  // KVSIM_REPORTS_DISAGG_REPORT_H_
