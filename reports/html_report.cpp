#include "reports/html_report.h"

#include <algorithm>
#include <cstdio>

#include "kvcache/base/text_format.h"
#include "reports/replay_report.h"
#include "reports/svg_chart.h"

namespace kvsim {
namespace {

// By WasteCategory.
const std::vector<std::string> kColors = {"#2b6cb0", "#68a0d8", "#e07b39", "#c53030", "#6b8e23", "#d9dde3"};

std::string Escape(const std::string& s) { return HtmlEscape(s); }

std::string F(double v, const char* fmt = "%.2f") {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string Row(const std::string& k, const std::string& v) { return "<tr><th>" + Escape(k) + "</th><td>" + Escape(v) + "</td></tr>\n"; }

std::string Header(const ReplaySummary& s) {
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>kvsim replay report</title>\n<style>\n"
      "body{font-family:system-ui,-apple-system,sans-serif;margin:24px;color:#1a202c;max-width:1100px}\n"
      "h1{font-size:22px}h2{font-size:17px;margin-top:28px}table{border-collapse:collapse;font-size:13px}\n"
      "th,td{border:1px solid #e2e8f0;padding:3px 8px;text-align:left}th{background:#f7fafc;font-weight:600}\n"
      ".chart{display:block;margin:8px 0}.title{font-size:14px;font-weight:600}.tick{font-size:11px;fill:#4a5568}\n"
      ".axis{font-size:12px;fill:#2d3748}.grid{display:flex;gap:24px;flex-wrap:wrap}.note{color:#4a5568;font-size:13px}\n"
      "</style></head><body>\n";
  html += "<h1>kvsim replay: " + Escape(s.config.settings.model) + " on " + Escape(s.config.settings.gpu_name) +
          "</h1>\n<p class=\"note\">Trace " + Escape(s.config.trace) + ". Memory in GiB = 2<sup>30</sup> bytes, per GPU." +
          (s.partial ? " <b>Partial: the replay was interrupted.</b>" : "") + "</p>\n";
  return html;
}

// The effective configuration beside the headline figures.
std::string Configuration(const ReplaySummary& s) {
  const nlohmann::json cfg = ReplayConfigToJson(s.config);
  std::string html = "<h2>Configuration</h2>\n<div class=\"grid\"><table>\n";
  for (const char* k : {"engine", "vllm_version", "dtype", "quantization", "kv_cache_dtype", "tensor_parallel_size",
                        "pipeline_parallel_size", "gpu_memory_utilization", "max_model_len", "max_num_seqs",
                        "max_num_batched_tokens", "block_size", "scheduler", "allocator", "step_time_model", "rate_scale"})
    if (cfg.contains(k)) html += Row(k, cfg[k].is_string() ? cfg[k].get<std::string>() : cfg[k].dump());
  html += "</table>\n<table>\n";
  const auto& rq = s.requests;
  html += Row("requests finished / rejected / total",
              std::to_string(rq.finished) + " / " + std::to_string(rq.rejected) + " / " + std::to_string(rq.total));
  html += Row("preemptions", std::to_string(rq.preemptions));
  html += Row("running peak / mean",
              std::to_string(s.concurrency.peak_running) + " / " + F(s.concurrency.mean_running, "%.1f"));
  html += Row("waiting peak", std::to_string(s.concurrency.peak_waiting));
  html += Row("throughput", F(s.throughput.requests_per_s) + " req/s, " + F(s.throughput.output_tokens_per_s, "%.0f") +
                                " output tok/s");
  html += Row("offered load", F(s.throughput.offered_requests_per_s) + " req/s");
  html += Row("prefix cache hit rate", F(100 * s.prefix_cache.hit_rate, "%.1f") + "%");
  for (const FigureText& f : FiguresWithoutOwnRow(s)) html += Row(f.key, f.value + " " + f.unit);
  html += "</table></div>\n";
  return html;
}

// The capacity breakdown next to the rule of thumb.
std::string Capacity(const ReplaySummary& s) {
  std::string html;
  const auto& m = s.memory_gib;
  const double weights = m.weights, act = m.activation, nt = m.non_torch, pool = m.kv_pool, peak_kv = m.kv_peak_used;
  html += "<h2>Capacity per GPU</h2>\n";
  html += SvgShareBar({"Memory the server reserves (GiB)", "weights, activation peak, runtime overhead and KV pool; "
                                                              "the rule of thumb '1.2 x weights' would be " + F(1.2 * weights) + " GiB",
                       ""},
                      {{"weights", weights}, {"activation", act}, {"runtime", nt}, {"KV pool", pool}},
                      {"#4a5568", "#a0aec0", "#cbd5e0", "#2b6cb0"}, weights + act + nt + pool, "GiB");
  html += "<p class=\"note\">Peak KV in use " + F(peak_kv) + " GiB of the " + F(pool) + " GiB pool; peak total " +
          F(m.peak_total) + " GiB; 1.2 &times; weights = " + F(1.2 * weights) + " GiB.</p>\n";
  return html;
}

// KV memory by category, and running and waiting requests, over time; preemptions marked.
std::string OverTime(const ChartRecorder& rec) {
  std::string html;
  const auto& chart = rec.chart();
  std::vector<double> t;
  std::vector<Series> cats(kNumWasteCategories);
  for (WasteCategory c : EnumValues<WasteCategory>())
    cats[static_cast<size_t>(c)] = {LabelOf(c), kColors[static_cast<size_t>(c)], {}, {}};
  Series running{"running", "#2b6cb0", {}, {}}, waiting{"waiting", "#c53030", {}, {}};
  std::vector<double> preemption_marks;
  int64_t last_preemptions = 0;
  for (const ChartPoint& p : chart) {
    t.push_back(p.t_s);
    for (int i = 0; i < kNumWasteCategories; ++i) cats[static_cast<size_t>(i)].y.push_back(p.fractions[i]);
    running.y.push_back(static_cast<double>(p.running_max));
    waiting.y.push_back(static_cast<double>(p.waiting_max));
    if (p.preemptions > last_preemptions) preemption_marks.push_back(p.t_s);
    last_preemptions = p.preemptions;
  }
  html += "<h2>KV cache over time</h2>\n";
  html += SvgStackedArea({"KV pool by category (share of the pool; peak step per bucket)", "simulated time (s)", "share of KV pool"},
                         t, cats, preemption_marks);
  html += "<h2>Requests over time</h2>\n";
  html += SvgLines({"Running and waiting requests (bucket maxima)", "simulated time (s)", "requests"}, t, {running, waiting});
  return html;
}

// KV tiers below the GPU: each tier's occupancy over time (a tier that fills evicts its least
// recently used chunks from then on).
std::string TierOccupancy(const ReplaySummary& s, const ChartRecorder& rec) {
  if (!s.offload || s.offload->tiers.empty()) return "";
  static const char* kTierColors[] = {"#2b6cb0", "#c05621", "#2f855a", "#6b46c1"};
  std::vector<double> t;
  std::vector<Series> tiers;
  for (size_t i = 0; i < s.offload->tiers.size() && i < StepSample::kMaxOffloadTiers; ++i)
    tiers.push_back({NameOf(s.offload->tiers[i].stats.kind), kTierColors[i], {}, {}});
  for (const ChartPoint& p : rec.chart()) {
    t.push_back(p.t_s);
    for (size_t i = 0; i < tiers.size(); ++i) tiers[i].y.push_back(p.offload_used_max[i]);
  }
  return "<h2>KV tiers below the GPU over time</h2>\n" +
         SvgLines({"Share of each tier in use (bucket maxima)", "simulated time (s)", "share of the tier"}, t, tiers);
}

// Latency CDFs with p50/p90/p99 marked, and the table of quantiles.
std::string Latency(const ReplaySummary& s, const ChartRecorder& rec) {
  std::string html;
  const auto latencies = s.latency_s.Named();
  std::vector<Series> cdfs = {{"TTFT", "#2b6cb0", {}, rec.ttft_histogram().Cdf()},
                              {"TPOT", "#e07b39", {}, rec.tpot_histogram().Cdf()},
                              {"end-to-end", "#6b8e23", {}, rec.e2e_histogram().Cdf()}};
  std::vector<std::pair<std::string, double>> marks;
  for (const auto& [name, l] : latencies) {
    if (l != &s.latency_s.ttft && l != &s.latency_s.tpot && l != &s.latency_s.e2e) continue;  // the charted ones
    marks.emplace_back(std::string(name) + " p50", l->p50);
    marks.emplace_back(std::string(name) + " p90", l->p90);
    marks.emplace_back(std::string(name) + " p99", l->p99);
  }
  html += "<h2>Latency</h2>\n";
  html += SvgCdf({"Latency CDFs (dashed: p50, p90, p99)", "seconds (log scale)", "fraction of requests"}, cdfs, marks);
  html += "<table><tr><th>latency (s)</th><th>mean</th><th>p50</th><th>p90</th><th>p99</th></tr>\n";
  for (const auto& [name, l] : latencies) {
    html += "<tr><th>" + std::string(name) + "</th>";
    for (double v : {l->mean, l->p50, l->p90, l->p99}) html += "<td>" + F(v, "%.3f") + "</td>";
    html += "</tr>\n";
  }
  html += "</table>\n";
  // The request path's terms of the mean time to first token (README "Time to first token").
  std::vector<std::pair<std::string, double>> terms;
  s.latency_s.ttft_components.ForEach([&](const char* name, double v) { terms.emplace_back(name, v * 1e3); });
  html += SvgShareBar({"Where the mean time to first token goes (ms)",
                       "client side: API server, tokenization; engine: step in flight, async scheduling, wait, prefill",
                       ""},
                      terms, {"#8e6bb0", "#b08ec8", "#e07b39", "#e8a33d", "#c0504d", "#2b6cb0"},
                      s.latency_s.ttft.mean * 1e3, "ms");
  return html;
}

// Where the KV memory goes, whole run and while requests wait.
std::string Waste(const ReplaySummary& s) {
  std::string html;
  std::vector<std::pair<std::string, double>> waste, waste_sat;
  for (WasteCategory c : EnumValues<WasteCategory>()) {
    waste.emplace_back(LabelOf(c), s.waste[static_cast<size_t>(c)]);
    waste_sat.emplace_back(LabelOf(c), s.waste_saturated[static_cast<size_t>(c)]);
  }
  html += "<h2>Where the KV memory goes</h2>\n";
  html += SvgShareBar({"Time-averaged, whole run", "shares of the KV pool, averaged over simulated time", ""}, waste, kColors, 1.0, "of the pool");
  html += SvgShareBar({"Time-averaged while requests wait", "the same, only while the queue is not empty (" +
                                                                F(100 * s.saturated_time_fraction, "%.1f") +
                                                                "% of the time)", ""},
                      waste_sat, kColors, 1.0, "of the pool");
  return html;
}

}  // namespace

// Fleets: requests in each replica over time (the over-time charts above show, per bucket, the
// busiest replica's step).
std::string FleetLoad(const ReplaySummary& s) {
  if (!s.fleet || s.fleet->load_over_time.empty()) return "";
  const FleetSummary& f = *s.fleet;
  static const char* kColors[] = {"#2b6cb0", "#c05621", "#2f855a", "#9b2c2c", "#6b46c1", "#b7791f", "#2c7a7b", "#97266d"};
  size_t n = 0;
  for (const auto& r : f.load_over_time) n = std::max(n, r.size());
  std::vector<double> t;
  for (size_t i = 0; i < n; ++i) t.push_back((static_cast<double>(i) + 0.5) * f.load_interval_s);
  std::vector<Series> lines;
  for (size_t r = 0; r < f.load_over_time.size(); ++r) {
    Series line{"replica " + std::to_string(r), kColors[r % 8], {}, {}};
    for (size_t i = 0; i < n; ++i)
      line.y.push_back(i < f.load_over_time[r].size() ? static_cast<double>(f.load_over_time[r][i]) : 0.0);
    lines.push_back(std::move(line));
  }
  return "<h2>Fleet: load per replica over time</h2>\n<p class=\"note\">" + std::to_string(f.replicas) +
         " replicas, router " + NameOf(f.router) + "; requests in each replica (running + waiting) as the router saw them, "
         "maximum per " + Format("%g", f.load_interval_s) + " s. The charts above show the busiest replica per bucket.</p>\n" +
         SvgLines({"Requests per replica (interval maxima)", "simulated time (s)", "requests"}, t, lines);
}

std::string RenderHtmlReport(const ReplaySummary& s, const ChartRecorder& rec) {
  return Header(s) + Configuration(s) + Capacity(s) + OverTime(rec) + TierOccupancy(s, rec) + FleetLoad(s) + Latency(s, rec) + Waste(s) +
         "<p class=\"note\">kvsim " + Escape(KVSIM_VERSION) + "; " + std::to_string(s.sim.steps) + " steps, " +
         std::to_string(s.sim.events) + " events.</p>\n</body></html>\n";
}

}  // namespace kvsim
