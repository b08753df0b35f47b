// The replay's summary as JSON and as console tables. JSON keys (all figures per GPU): requests,
// concurrency, kv, memory_gib, waste, waste_saturated, prefix_cache, latency_s, throughput,
// goodput, sim, config (capacity settings + replay settings), trace_skipped_rows, warnings,
// kvsim_version, and "partial": true when the replay was interrupted.
#ifndef KVSIM_REPORTS_REPLAY_REPORT_H_
#define KVSIM_REPORTS_REPLAY_REPORT_H_

#include <string>

#include <nlohmann/json.hpp>

#include "sim/stats/replay_summary.h"

namespace kvsim {

nlohmann::json ReplaySummaryToJson(const ReplaySummary& summary);
// The "config" section: the effective capacity settings plus the replay's own.
nlohmann::json ReplayConfigToJson(const ReplaySummary::Config& config);

std::string RenderReplayText(const ReplaySummary& summary);

}  // namespace kvsim

#endif  // KVSIM_REPORTS_REPLAY_REPORT_H_
