// The KV tiers' section of a replay summary (sim/stats/offload_summary.h): JSON key "offload" and
// a console table, one row for the GPU prefix cache and one per tier below it.
#ifndef KVSIM_REPORTS_OFFLOAD_REPORT_H_
#define KVSIM_REPORTS_OFFLOAD_REPORT_H_

#include <string>

#include <nlohmann/json.hpp>

#include "sim/stats/offload_summary.h"

namespace kvsim {

nlohmann::json OffloadToJson(const OffloadSummary& offload);
std::string RenderOffloadText(const OffloadSummary& offload);

}  // namespace kvsim

#endif  // KVSIM_REPORTS_OFFLOAD_REPORT_H_
