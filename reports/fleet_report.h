// The fleet, cost and served-load sections of a replay summary (sim/run/replay_runner.h, sim/stats/cost.h,
// sim/stats/load_check.h), as JSON keys and console tables. They appear only for fleets (--replicas > 1)
// and with --gpu-hourly-cost, so single-replica outputs keep their keys.
#ifndef KVSIM_REPORTS_FLEET_REPORT_H_
#define KVSIM_REPORTS_FLEET_REPORT_H_

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/stats/replay_summary.h"

namespace kvsim {

nlohmann::json LoadCheckToJson(const LoadCheck& check);
// How one replica's summary is written (the replay report's whole-summary JSON).
using SummaryToJson = std::function<nlohmann::json(const ReplaySummary&)>;
// Adds "fleet" (replicas, router, routed, imbalance, per_replica, each by `replica_json`), "cost"
// and "load_check" when the summary has them.
void AddFleetAndCostJson(const ReplaySummary& summary, const SummaryToJson& replica_json, nlohmann::json& j);
std::string RenderFleetAndCostText(const ReplaySummary& summary);

}  // namespace kvsim

#endif  // KVSIM_REPORTS_FLEET_REPORT_H_
