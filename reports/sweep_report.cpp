#include "reports/sweep_report.h"

#include "kvcache/base/text_format.h"
#include "reports/replay_report.h"
#include "reports/text_table.h"

namespace kvsim {
namespace {

// The summary's plain figures without a column of their own follow the fixed columns, one each.
std::vector<FigureText> ExtraFigures() { return FiguresWithoutOwnRow(ReplaySummary{}); }

std::vector<std::string> Cells(const PointOutcome& p) {
  std::vector<std::string> cells;
  if (!p.summary) {
    cells = {p.label, "-", "-", "-", "-", "-", "-", p.feasible ? "meets" : "violates"};
    cells.insert(cells.end(), ExtraFigures().size(), "-");
    return cells;
  }
  const ReplaySummary& s = *p.summary;
  const double finished = static_cast<double>(s.requests.finished);
  const double preemptions = static_cast<double>(s.requests.preemptions);
  cells = {p.label,
           Format("%.3f", s.throughput.requests_per_s),
           Format("%.3f", s.goodput.requests_per_s),
           Format("%.3f", s.latency_s.ttft.p99),
           Format("%.4f", s.latency_s.tpot.p99),
           Format("%.3f", finished > 0 ? preemptions / finished : 0.0),
           std::to_string(s.concurrency.peak_running),
           p.feasible ? "meets" : "violates"};
  for (const FigureText& f : FiguresWithoutOwnRow(s)) cells.push_back(f.value);
  return cells;
}

constexpr size_t kSloColumn = 7;  // "meets"/"violates": 1/0 in the CSV

// RFC 4180: a point's name may hold commas and, with a JSON value (speculative-config={"method":...}),
// quotes, which are doubled inside the quoted field.
std::string QuotedCsvField(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string RenderPointsTable(const std::vector<PointOutcome>& points, const std::string& first_column) {
  std::vector<std::string> header = {first_column, "req/s", "goodput/s", "TTFT p99 s", "TPOT p99 s", "preempt/req", "peak running", "SLOs"};
  for (const FigureText& f : ExtraFigures()) header.push_back(f.key + " (" + f.unit + ")");
  TextTable t(header);
  for (const auto& p : points) t.AddRow(Cells(p));
  return t.Render();
}

std::string RenderPointsCsv(const std::vector<PointOutcome>& points, const std::string& partial_reason) {
  std::string csv = "point,requests_per_s,goodput_per_s,ttft_p99_s,tpot_p99_s,preemptions_per_request,peak_running,meets_slos";
  for (const FigureText& f : ExtraFigures()) csv += "," + f.key;
  csv += "\n";
  for (const auto& p : points) {
    auto cells = Cells(p);
    cells[kSloColumn] = p.feasible ? "1" : "0";
    for (size_t i = 0; i < cells.size(); ++i) csv += (i ? "," : "") + (i == 0 ? QuotedCsvField(cells[i]) : cells[i]);
    csv += "\n";
  }
  if (!partial_reason.empty()) csv += "# partial: " + partial_reason + "\n";
  return csv;
}

nlohmann::json PointToJson(const PointOutcome& p) {
  nlohmann::json j = {{"point", p.label}, {"feasible", p.feasible}, {"objective", p.objective}, {"violations", p.violations},
                      {"summary", p.summary ? ReplaySummaryToJson(*p.summary) : nlohmann::json()}};
  if (!p.binding.empty()) j["binding"] = p.binding;  // infeasible points: what binds
  return j;
}

std::string RenderBestPoint(const std::vector<PointOutcome>& points, const SweepCriteria& criteria) {
  const int best = BestPoint(points);
  if (best < 0) return "no point meets the constraints; " + NearestPoint(points) + "\n";
  const PointOutcome& b = points[static_cast<size_t>(best)];
  std::string out = "best (" + std::string(NameOf(criteria.objective)) + "): " + b.label + Format(" at %.3f ", b.objective) +
                    ObjectiveUnit(criteria.objective) + "\n";
  if (criteria.objective == Objective::kCost && b.summary && b.summary->cost)
    out += Format("  = $%.3f per million output tokens on %lld GPUs ($%.2f per GPU-hour, %.1f output tok/s per GPU)\n",
                  b.summary->cost->usd_per_million_output_tokens, static_cast<long long>(b.summary->cost->gpus),
                  b.summary->cost->gpu_hourly_usd, b.summary->cost->output_tokens_per_s_per_gpu);
  for (const auto& p : points)
    if (&p != &b) out += "  " + p.label + ": " + WhyNotBest(p, b, criteria) + "\n";
  return out;
}

nlohmann::json UnfinishedToJson(const std::vector<UnfinishedPoint>& unfinished, const char* label_key) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& u : unfinished) j.push_back({{label_key, u.label}, {"reason", u.reason}});
  return j;
}

nlohmann::json GridToJson(const std::vector<PointOutcome>& points, const SweepCriteria& criteria, const std::string& slo_text,
                          const std::vector<UnfinishedPoint>& unfinished) {
  nlohmann::json report = {{"objective", NameOf(criteria.objective)}, {"slo", slo_text}, {"points", nlohmann::json::array()}};
  for (const auto& p : points) report["points"].push_back(PointToJson(p));
  if (const int best = BestPoint(points); best >= 0) report["best"] = points[static_cast<size_t>(best)].label;
  if (!unfinished.empty()) {
    report["partial"] = true;
    report["unfinished"] = UnfinishedToJson(unfinished, "point");
  }
  return report;
}

std::string RenderSearchAnswer(const std::string& knob, const SearchResult& r, const SweepCriteria& criteria) {
  if (r.partial)
    return "interrupted: no answer; " + std::to_string(r.probes.size()) + " probe(s) finished (above), " +
           (r.unfinished.empty() ? std::string("none running") : r.unfinished.front().label + " was running") + "\n";
  if (!r.found) return "no " + knob + " meets the SLOs; " + ExplainNoFeasibleProbe(r, criteria) + "\n";
  std::string out = "answer: " + knob + " = " + Format("%.6g", r.value) + " meets the SLOs (" + r.precision + ")\n";
  if (r.has_next)
    out += "        " + knob + " = " + Format("%.6g", r.next_value) + " " + WhyNotBest(r.at_next, r.at_value, criteria) + "\n";
  if (r.has_next && !r.at_next.binding.empty())
    out += "        what binds at " + knob + " = " + Format("%.6g", r.next_value) + ": " + r.at_next.binding + "\n";
  if (knob != "max-num-seqs") return out;
  out += "        caps " + Format("%.0f", r.smallest_value) + ".." + Format("%.0f", r.value) + " meet the SLOs" +
         (r.smallest_value > 1 ? " (smaller caps queue requests too long)" : "") + "\n";
  const int64_t peak = r.at_value.summary ? r.at_value.summary->concurrency.peak_running : 0;
  if (!r.has_next && peak < static_cast<int64_t>(r.value))
    out += "        every cap up to --find-max meets them: at most " + std::to_string(peak) +
           " requests ever ran at once, so\n"
           "        larger caps change nothing (the load, the KV pool or the token budget bounds the batch)\n";
  return out;
}

nlohmann::json SearchToJson(const std::string& knob, const SearchResult& r) {
  nlohmann::json report = {{"find", knob}, {"found", r.found}, {"value", r.value}, {"precision", r.precision},
                           {"probes", nlohmann::json::array()}};
  if (r.found && knob == "max-num-seqs") report["smallest_value"] = r.smallest_value;
  for (const auto& [value, p] : r.probes) report["probes"].push_back(PointToJson(p));
  if (r.has_next) report["next_value"] = r.next_value;
  if (r.partial) {
    report["partial"] = true;
    report["unfinished"] = UnfinishedToJson(r.unfinished, "point");
  }
  return report;
}

}  // namespace kvsim
