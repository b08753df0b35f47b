// The fleet, cost and served-load sections of a replay summary (sim/fleet.h, sim/cost.h,
// sim/load_check.h), as JSON keys and console tables. They appear only for fleets (--replicas > 1)
// and with --gpu-hourly-cost, so single-replica outputs keep their keys.
#ifndef KVSIM_REPORTS_FLEET_REPORT_H_
#define KVSIM_REPORTS_FLEET_REPORT_H_

#include <string>

#include <nlohmann/json.hpp>

#include "sim/replay_summary.h"

namespace kvsim {

nlohmann::json LoadCheckToJson(const LoadCheck& check);
// Adds "fleet" (replicas, router, routed, imbalance, per_replica), "cost" and "load_check" when
// the summary has them.
void AddFleetAndCostJson(const ReplaySummary& summary, nlohmann::json& j);
std::string RenderFleetAndCostText(const ReplaySummary& summary);

}  // namespace kvsim

#endif  // KVSIM_REPORTS_FLEET_REPORT_H_
