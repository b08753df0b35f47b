// The replay's summary as JSON and as console tables. JSON keys (all figures per GPU): requests,
// concurrency, kv, memory_gib, waste, waste_saturated, prefix_cache, latency_s, throughput,
// goodput, sim, config (capacity settings + replay settings), trace_skipped_rows, warnings,
// kvsim_version, and "partial": true when the replay was interrupted.
#ifndef KVSIM_REPORTS_REPLAY_REPORT_H_
#define KVSIM_REPORTS_REPLAY_REPORT_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/stats/replay_summary.h"

namespace kvsim {

nlohmann::json ReplaySummaryToJson(const ReplaySummary& summary);
// The "config" section: the effective capacity settings plus the replay's own.
nlohmann::json ReplayConfigToJson(const ReplaySummary::Config& config);

std::string RenderReplayText(const ReplaySummary& summary);

// The plain figures without a row of their own in the tables (FieldOutputs::kEverywhere,
// sim/stats/summary_fields.h), in field order, as the sweep CSV and the HTML report show them.
struct FigureText {
  std::string key;    // "section.name"
  std::string unit;
  std::string value;  // integers whole, other numbers to 6 significant digits
};
std::vector<FigureText> FiguresWithoutOwnRow(const ReplaySummary& summary);

}  // namespace kvsim

#endif  // KVSIM_REPORTS_REPLAY_REPORT_H_
