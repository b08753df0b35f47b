// `kvsim sweep` output: one row per point or probe (console table and CSV), every point's summary
// as JSON, the best point with why each other one lost, and a search's answer.
#ifndef KVSIM_REPORTS_SWEEP_REPORT_H_
#define KVSIM_REPORTS_SWEEP_REPORT_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/sweep/sweep.h"
#include "sim/sweep/sweep_search.h"

namespace kvsim {

// `first_column`: "point" for a grid, "probe" for a search.
std::string RenderPointsTable(const std::vector<PointOutcome>& points, const std::string& first_column);
// `partial_reason` non-empty: the sweep was cut short; the CSV ends with "# partial: <reason>".
std::string RenderPointsCsv(const std::vector<PointOutcome>& points, const std::string& partial_reason = {});
// {"point", "feasible", "objective", "violations", "summary"}
nlohmann::json PointToJson(const PointOutcome& point);

// The grid's answer: the best point, or that none meets the constraints, and why each other lost.
std::string RenderBestPoint(const std::vector<PointOutcome>& points, const SweepCriteria& criteria);
// With unfinished points: "partial": true and "unfinished": [{"point", "reason"}] (absent otherwise).
nlohmann::json GridToJson(const std::vector<PointOutcome>& points, const SweepCriteria& criteria, const std::string& slo_text,
                          const std::vector<UnfinishedPoint>& unfinished = {});
nlohmann::json UnfinishedToJson(const std::vector<UnfinishedPoint>& unfinished, const char* label_key);

// A search's answer. `knob` is what was searched: "max-num-seqs" or "rate-scale".
std::string RenderSearchAnswer(const std::string& knob, const SearchResult& result, const SweepCriteria& criteria);
nlohmann::json SearchToJson(const std::string& knob, const SearchResult& result);

}  // namespace kvsim

#endif  // KVSIM_REPORTS_SWEEP_REPORT_H_
