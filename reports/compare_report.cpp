#include "reports/compare_report.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <algorithm>
#include <functional>

#include "kvcache/base/text_format.h"
#include "reports/replay_report.h"
#include "reports/svg_chart.h"
#include "reports/text_table.h"

namespace kvsim {
namespace {

using S = ReplaySummary;

struct Metric {
  const char* label;
  const char* fmt;
  std::function<double(const S&)> get;
};

double D(int64_t v) { return static_cast<double>(v); }

// A figure a deployment does not have (no --gpu-hourly-cost, too short a run for the load check):
// shown as "-", and a row no deployment has is left out.
constexpr double kAbsent = std::numeric_limits<double>::quiet_NaN();

const std::vector<Metric>& Metrics() {
  static const std::vector<Metric> metrics = {
      {"GPUs", "%.0f",
       [](const S& s) {
         const EffectiveSettings& e = s.config.settings;
         if (s.disagg)  // both pools: prefill replicas x their TP, decode replicas x theirs
           return D((s.disagg->prefill.replicas * s.disagg->prefill.tensor_parallel_size +
                     s.disagg->decode.replicas * s.disagg->decode.tensor_parallel_size) * e.pipeline_parallel_size);
         return D(e.tensor_parallel_size * e.pipeline_parallel_size * e.data_parallel_size * (s.fleet ? s.fleet->replicas : 1));
       }},
      {"KV blocks (per GPU)", "%.0f", [](const S& s) { return D(s.kv.num_blocks); }},
      {"KV pool GiB", "%.2f", [](const S& s) { return s.memory_gib.kv_pool; }},
      {"weights GiB", "%.2f", [](const S& s) { return s.memory_gib.weights; }},
      {"peak KV used GiB", "%.2f", [](const S& s) { return s.memory_gib.kv_peak_used; }},
      {"peak running", "%.0f", [](const S& s) { return D(s.concurrency.peak_running); }},
      {"mean running", "%.1f", [](const S& s) { return s.concurrency.mean_running; }},
      {"peak waiting", "%.0f", [](const S& s) { return D(s.concurrency.peak_waiting); }},
      {"preemptions", "%.0f", [](const S& s) { return D(s.requests.preemptions); }},
      {"finished", "%.0f", [](const S& s) { return D(s.requests.finished); }},
      {"rejected", "%.0f", [](const S& s) { return D(s.requests.rejected); }},
      {"requests/s", "%.3f", [](const S& s) { return s.throughput.requests_per_s; }},
      {"output tokens/s", "%.0f", [](const S& s) { return s.throughput.output_tokens_per_s; }},
      // Whether each keeps up: a latency can look fine while the queue grows (sim/stats/load_check.h).
      {"served / offered rate", "%.3f", [](const S& s) { return s.load_check.applicable ? s.load_check.served_ratio : kAbsent; }},
      {"USD per M output tokens", "%.3f", [](const S& s) { return s.cost ? s.cost->usd_per_million_output_tokens : kAbsent; }},
      {"TTFT p50 s", "%.3f", [](const S& s) { return s.latency_s.ttft.p50; }},
      {"TTFT p99 s", "%.3f", [](const S& s) { return s.latency_s.ttft.p99; }},
      {"TPOT p50 s", "%.4f", [](const S& s) { return s.latency_s.tpot.p50; }},
      {"TPOT p99 s", "%.4f", [](const S& s) { return s.latency_s.tpot.p99; }},
      {"E2E p99 s", "%.2f", [](const S& s) { return s.latency_s.e2e.p99; }},
      {"token states (while waiting)", "%.3f",
       [](const S& s) { return s.waste_saturated[static_cast<size_t>(WasteCategory::kTokenStates)]; }},
      {"internal frag. (while waiting)", "%.3f",
       [](const S& s) { return s.waste_saturated[static_cast<size_t>(WasteCategory::kInternalFragmentation)]; }},
      {"free (while waiting)", "%.3f", [](const S& s) { return s.waste_saturated[static_cast<size_t>(WasteCategory::kFree)]; }},
  };
  return metrics;
}

}  // namespace

std::string RenderCompareTable(const std::vector<ComparedDeployment>& ds) {
  std::vector<std::string> header = {"metric"};
  for (const auto& d : ds) header.push_back(d.label);  // full labels
  const bool pair = ds.size() == 2;
  if (pair) header.push_back("b - a");
  TextTable t(header);
  for (const Metric& m : Metrics()) {
    if (std::all_of(ds.begin(), ds.end(), [&](const auto& d) { return std::isnan(m.get(*d.summary)); })) continue;
    std::vector<std::string> row = {m.label};
    for (const auto& d : ds) {
      const double v = m.get(*d.summary);
      row.push_back(std::isnan(v) ? "-" : Format(m.fmt, v));
    }
    if (pair) {
      const double a = m.get(*ds[0].summary), b = m.get(*ds[1].summary);
      row.push_back(std::isnan(a) || std::isnan(b) ? "-"
                                                   : Format(m.fmt, b - a) + (a != 0 ? Format(" (%+.1f%%)", 100 * (b - a) / a) : ""));
    }
    t.AddRow(row);
  }
  return t.Render();
}

nlohmann::json CompareToJson(const std::vector<ComparedDeployment>& ds, const std::vector<UnfinishedPoint>& unfinished) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& d : ds) j.push_back({{"deployment", d.label}, {"summary", ReplaySummaryToJson(*d.summary)}});
  if (unfinished.empty()) return j;
  nlohmann::json u = nlohmann::json::array();
  for (const auto& x : unfinished) u.push_back({{"deployment", x.label}, {"reason", x.reason}});
  return {{"partial", true}, {"deployments", j}, {"unfinished", u}};
}

std::string RenderCompareHtml(const std::vector<ComparedDeployment>& ds) {
  const std::vector<std::string> colors = {"#2b6cb0", "#c53030", "#2f855a", "#b7791f", "#6b46c1", "#319795", "#d53f8c", "#4a5568"};
  // Overlay: KV in use and running requests over time; TTFT CDFs. Each run is resampled onto a
  // common grid (bucket widths may differ between runs).
  size_t longest = 0;
  double dt = 0;
  for (const auto& d : ds) {
    const auto& ch = d.charts->chart();
    longest = std::max(longest, ch.size());
    if (ch.size() > 1) dt = std::max(dt, ch[1].t_s - ch[0].t_s);
  }
  std::vector<double> x;
  for (size_t k = 0; k < longest; ++k) x.push_back(static_cast<double>(k) * dt);
  std::vector<Series> kv, run, ttft;
  for (size_t i = 0; i < ds.size(); ++i) {
    Series a{ds[i].label, colors[i % colors.size()], {}, {}}, b = a, c = a;
    const auto& ch = ds[i].charts->chart();
    for (size_t k = 0; k < longest; ++k) {
      double best_used = 0, best_run = 0;
      for (const auto& p : ch)
        if (p.t_s <= x[k] + 1e-9) best_used = p.used_fraction, best_run = static_cast<double>(p.running_max);
      a.y.push_back(best_used);
      b.y.push_back(best_run);
    }
    c.xy = ds[i].charts->ttft_histogram().Cdf();
    kv.push_back(a), run.push_back(b), ttft.push_back(c);
  }
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>kvsim compare</title><style>"
                     "body{font-family:system-ui,sans-serif;margin:24px}.title{font-size:14px;font-weight:600}"
                     ".tick{font-size:11px;fill:#4a5568}.axis{font-size:12px}pre{font-size:12px}</style></head><body>\n"
                     "<h1>kvsim compare</h1>\n<pre>" + HtmlEscape(RenderCompareTable(ds)) + "</pre>\n";
  html += SvgLines({"KV memory in use (share of each deployment's pool)", "simulated time (s)", "share of KV pool"}, x, kv);
  html += SvgLines({"Running requests", "simulated time (s)", "requests"}, x, run);
  html += SvgCdf({"TTFT CDF", "seconds (log scale)", "fraction of requests"}, ttft, {});
  html += "</body></html>\n";
  return html;
}

}  // namespace kvsim
