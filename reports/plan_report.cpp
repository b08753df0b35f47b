#include "reports/plan_report.h"

#include <algorithm>

#include "kvcache/base/text_format.h"
#include "reports/svg_chart.h"
#include "reports/text_table.h"
#include "sim/stats/binding.h"

namespace kvsim {
namespace {

std::string Seconds(double s) { return Format("%.3g s", s); }

// "compute", "memory", "memory+compute": the limits WhatBinds names, by their category; the
// prompt-length limit (a few prompts over max-model-len) only when nothing else binds.
std::string BindsShort(const ConfigPlan& p) {
  if (!p.outcome.summary) return "";
  const std::string all = WhatBinds(*p.outcome.summary);
  std::vector<std::string> kinds;
  for (size_t start = 0; start < all.size();) {
    const size_t end = std::min(all.find("; ", start), all.size());
    const std::string clause = all.substr(start, end - start);
    kinds.push_back(clause.substr(0, clause.find(':')));
    start = end + 2;
  }
  if (kinds.size() > 1 && kinds.front() == "prompt-length limit") kinds.erase(kinds.begin());
  return Join(kinds, "+");
}

bool Priced(const PlanAnswer& a) {
  for (const ConfigPlan& p : a.result.plans)
    if (p.found && p.usd_per_hour > 0) return true;
  return false;
}

std::string QuantileName(SloQuantile q) { return NameOf(q); }

std::string BandText(const LatencyBand& b) {
  const std::string name = std::string(NameOf(b.slo.metric)) + "-" + NameOf(b.slo.quantile);
  std::string t = Format("%s %s (limit %g s)", name.c_str(), Seconds(b.predicted_s).c_str(), b.slo.limit_s);
  if (b.band.runs > 0) {
    t += Format(", band [%.3g, %.3g] s from %d runs (%s): ", b.predicted_s * b.band.low, b.pessimistic_s, b.band.runs,
                b.band.regime.c_str());
    t += b.holds_at_edge ? "holds at the pessimistic edge" : "MISSED at the pessimistic edge";
  } else {
    t += ", no error band (" + (b.band.regime.empty() ? std::string("no validation data") : b.band.regime) +
         "): the prediction alone";
  }
  return t;
}

std::string FrontTable(const PlanAnswer& a) {
  const bool priced = Priced(a);  // without prices, no price columns
  std::vector<std::string> header = {"configuration", "replicas", "GPUs"};
  if (priced) header.insert(header.end(), {"USD/h", "USD/M out tok"});
  header.insert(header.end(), {"TTFT " + QuantileName(a.quantiles.ttft), "TPOT " + QuantileName(a.quantiles.tpot), "binds"});
  TextTable t(header);
  for (size_t i : a.front) {
    const ConfigPlan& p = a.result.plans[i];
    const FrontPoint f = FrontPointOf(p, a.quantiles);
    std::vector<std::string> row = {a.space.configs[i].Label() + (static_cast<int>(i) == a.result.winner ? " *" : ""),
                                    std::to_string(p.replicas), std::to_string(p.gpus)};
    if (priced) row.insert(row.end(), {Format("%.2f", p.usd_per_hour), Format("%.3f", p.usd_per_million_output_tokens)});
    row.insert(row.end(), {Seconds(f.ttft_s), Seconds(f.tpot_s), BindsShort(p)});
    t.AddRow(row);
  }
  return t.Render();
}

std::string NearestMiss(const PlanAnswer& a, size_t i) {
  const ConfigPlan& p = a.result.plans[i];
  std::string why = p.outcome.violations.empty() ? "no SLO met" : p.outcome.violations.front();
  return Format("%s at %lld replica%s (%s)", why.c_str(), static_cast<long long>(p.nearest_replicas),
                p.nearest_replicas == 1 ? "" : "s", a.space.configs[i].Label().c_str());
}

nlohmann::json BandsJson(const std::vector<LatencyBand>& bands) {
  nlohmann::json out = nlohmann::json::array();
  for (const LatencyBand& b : bands)
    out.push_back({{"slo", b.slo.text}, {"predicted_s", b.predicted_s}, {"low_s", b.predicted_s * b.band.low},
                   {"high_s", b.pessimistic_s}, {"band_runs", b.band.runs}, {"band_regime", b.band.regime},
                   {"holds", b.holds}, {"holds_at_pessimistic_edge", b.holds_at_edge}});
  return out;
}

// The latency objective's metric, said where no SLO chose it.
std::string LatencyRankText(const PlanAnswer& a) {
  if (a.objective != PlanObjective::kLatency) return "";
  const LatencyObjective o = LatencyObjectiveOf(a.criteria);
  return Format(" (ranked by %s %s%s)", NameOf(o.metric), NameOf(o.quantile), o.from_slo ? "" : ": no --slo names a latency");
}

}  // namespace

std::string RenderPlanText(const PlanAnswer& a) {
  const PlanResult& r = a.result;
  std::string out = Format("kvsim plan: %s; SLOs %s; objective %s%s%s\n", a.model.c_str(),
                           a.slo_text.empty() ? "none" : a.slo_text.c_str(), NameOf(a.objective), LatencyRankText(a).c_str(),
                           a.robust ? " (robust: judged at the error bands' pessimistic edge)" : "");
  const size_t total = a.space.configs.size() + a.space.skipped.size();
  out += Format("space: %zu configurations, %zu do not start, %zu searched over 1..%lld replicas%s each%s: %lld points\n", total,
                a.space.skipped.size(), a.space.configs.size(), static_cast<long long>(a.max_replicas),
                a.axes.pd_ratios.empty() ? "" : " (P/D: P:D units)",
                a.max_gpus > 0 ? Format(" (at most %lld GPUs)", static_cast<long long>(a.max_gpus)).c_str() : "",
                static_cast<long long>(r.points));
  out += Format("replays: %lld of %lld points (%.1f%%)%s\n", static_cast<long long>(r.replays), static_cast<long long>(r.points),
                r.points > 0 ? 100.0 * static_cast<double>(r.replays) / static_cast<double>(r.points) : 0.0,
                a.exhaustive ? ", exhaustive" : ", pruned by bounds that cannot drop the winner (--exhaustive replays every point)");
  if (r.partial) out += "PARTIAL: the search was stopped; the answer is the best of the configurations that finished\n";
  out += "\n";
  if (r.winner < 0) {
    out += "no configuration meets the SLOs within the space\n";
  } else {
    const size_t w = static_cast<size_t>(r.winner);
    const ConfigPlan& p = r.plans[w];
    const PlanConfig& c = a.space.configs[w];
    out += Format("winner: %s x %lld %s%s = %lld GPU%s", c.Label().c_str(), static_cast<long long>(p.replicas),
                  c.Disaggregated() ? "P:D unit" : "replica", p.replicas == 1 ? "" : "s", static_cast<long long>(p.gpus),
                  p.gpus == 1 ? "" : "s");
    if (p.usd_per_hour > 0)
      out += Format(", %.2f USD/h, %.3f USD per million output tokens", p.usd_per_hour, p.usd_per_million_output_tokens);
    if (c.Disaggregated()) {
      const long long prefill = p.replicas * c.pd.prefill, decode = p.replicas * c.pd.decode;
      out += Format("\n  launch %lld prefill instance%s of:\n    %s\n  and %lld decode instance%s of:\n    %s\n", prefill,
                    prefill == 1 ? "" : "s", a.serve_lines[w].c_str(), decode, decode == 1 ? "" : "s",
                    a.decode_serve_lines[w].c_str());
    } else {
      out += Format("\n  launch %lld replica%s of:\n    %s\n", static_cast<long long>(p.replicas), p.replicas == 1 ? "" : "s",
                    a.serve_lines[w].c_str());
    }
    for (const LatencyBand& b : a.bands[w]) out += "  " + BandText(b) + "\n";
    if (p.outcome.summary) out += "  binds: " + WhatBinds(*p.outcome.summary) + "\n";
  }
  if (!a.front.empty()) {
    out += Format("\nPareto front (%zu of %zu plans found; price, GPUs, TTFT and TPOT: no other plan is better on all four; * the winner):\n",
                  a.front.size(), static_cast<size_t>(std::count_if(r.plans.begin(), r.plans.end(), [](const ConfigPlan& p) { return p.found; })));
    if (!a.exhaustive) out += "(among the configurations replayed: --exhaustive gives the whole front)\n";
    out += FrontTable(a);
  }
  const std::vector<RejectedFamily> rejected = RejectedFamilies(a);
  if (!rejected.empty()) {
    out += "\nRejected families (no configuration met the SLOs at any replica count searched):\n";
    for (const RejectedFamily& f : rejected)
      out += Format("  %s (%lld configuration%s): nearest %s\n", f.family.c_str(), static_cast<long long>(f.configurations),
                    f.configurations == 1 ? "" : "s", NearestMiss(a, f.nearest).c_str());
  }
  int64_t bounded = 0;
  for (const ConfigPlan& p : r.plans) bounded += !p.not_searched.empty();
  if (bounded > 0) {
    out += Format("\nNot replayed (%lld configuration%s): they cannot beat the winner", static_cast<long long>(bounded),
                  bounded == 1 ? "" : "s");
    for (const ConfigPlan& p : r.plans)
      if (!p.not_searched.empty()) {
        out += ", e.g. " + a.space.configs[p.config].Label() + ": " + p.not_searched;
        break;
      }
    out += "\n";
  }
  const std::vector<SkipGroup> skipped = SummariseSkipped(a.space.skipped);
  if (!skipped.empty()) {
    out += Format("\nDo not start (%zu configuration%s, sized by the capacity planner):\n", a.space.skipped.size(),
                  a.space.skipped.size() == 1 ? "" : "s");
    for (const SkipGroup& g : skipped)
      out += Format("  %s (%lld): %s\n", g.what.c_str(), static_cast<long long>(g.count), g.reason.c_str());
  }
  out += "\nError bands: " + a.bands_source + "\n";
  return out;
}

nlohmann::json PlanToJson(const PlanAnswer& a) {
  nlohmann::json j;
  j["model"] = a.model;
  j["slo"] = a.slo_text;
  j["objective"] = NameOf(a.objective);
  if (a.objective == PlanObjective::kLatency) {
    const LatencyObjective o = LatencyObjectiveOf(a.criteria);
    j["ranked_by"] = std::string(NameOf(o.metric)) + " " + NameOf(o.quantile);
  }
  j["robust"] = a.robust;
  j["exhaustive"] = a.exhaustive;
  j["max_replicas"] = a.max_replicas;
  j["max_gpus"] = a.max_gpus;
  j["points"] = a.result.points;
  j["replays"] = a.result.replays;
  j["partial"] = a.result.partial;
  j["error_bands"] = a.bands_source;
  auto plan_json = [&](size_t i) {
    const ConfigPlan& p = a.result.plans[i];
    const PlanConfig& c = a.space.configs[i];
    nlohmann::json row = {{"configuration", c.Label()}, {"gpu", c.gpu}, {"tensor_parallel_size", c.tensor_parallel},
                          {"pipeline_parallel_size", c.pipeline_parallel}, {"format", c.format},
                          {"kv_cache_dtype", c.kv_cache_dtype}, {"max_num_seqs", c.max_num_seqs},
                          {"max_num_batched_tokens", c.max_num_batched_tokens}, {"found", p.found}, {"replays", p.replays},
                          {"replicas_searched", p.upper}, {"serve", a.serve_lines[i]}};
    if (c.Disaggregated()) {  // replicas count P:D units
      row["pd"] = {{"prefill_per_unit", c.pd.prefill}, {"decode_per_unit", c.pd.decode}, {"decode_serve", a.decode_serve_lines[i]}};
      if (p.found) {
        row["pd"]["prefill_instances"] = p.replicas * c.pd.prefill;
        row["pd"]["decode_instances"] = p.replicas * c.pd.decode;
      }
    }
    if (p.found) {
      const FrontPoint f = FrontPointOf(p, a.quantiles);
      row.update({{"replicas", p.replicas}, {"gpus", p.gpus}, {"usd_per_hour", p.usd_per_hour},
                  {"usd_per_million_output_tokens", p.usd_per_million_output_tokens},
                  {"ttft_s", f.ttft_s}, {"tpot_s", f.tpot_s}, {"binds", p.outcome.summary ? WhatBinds(*p.outcome.summary) : ""},
                  {"latency_bands", BandsJson(a.bands[i])}});
    } else if (!p.not_searched.empty()) {
      row["not_replayed"] = p.not_searched;
    } else if (p.replays > 0) {
      row["nearest_miss"] = {{"replicas", p.nearest_replicas}, {"violations", p.outcome.violations}, {"binds", p.outcome.binding}};
    }
    return row;
  };
  j["winner"] = a.result.winner >= 0 ? plan_json(static_cast<size_t>(a.result.winner)) : nlohmann::json(nullptr);
  j["front"] = nlohmann::json::array();
  for (size_t i : a.front) j["front"].push_back(plan_json(i));
  j["configurations"] = nlohmann::json::array();
  for (size_t i = 0; i < a.space.configs.size(); ++i) j["configurations"].push_back(plan_json(i));
  j["rejected_families"] = nlohmann::json::array();
  for (const RejectedFamily& f : RejectedFamilies(a))
    j["rejected_families"].push_back({{"family", f.family}, {"configurations", f.configurations}, {"nearest", NearestMiss(a, f.nearest)}});
  j["do_not_start"] = nlohmann::json::array();
  for (const SkippedConfig& s : a.space.skipped) j["do_not_start"].push_back({{"configuration", s.config.Label()}, {"reason", s.reason}});
  return j;
}

std::string RenderPlanCsv(const PlanAnswer& a) {
  auto quote = [](const std::string& s) {
    std::string q = "\"";
    for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  };
  std::string csv = "configuration,gpu,tp,pp,format,kv_cache_dtype,max_num_seqs,max_num_batched_tokens,status,replicas,gpus,"
                    "usd_per_hour,usd_per_million_output_tokens,ttft_s,tpot_s,on_front,winner,replays,reason\n";
  std::vector<bool> on_front(a.space.configs.size());
  for (size_t i : a.front) on_front[i] = true;
  auto head = [&](const PlanConfig& c) {
    return Format("%s,%s,%d,%d,%s,%s,%lld,%lld,", quote(c.Label()).c_str(), c.gpu.c_str(), c.tensor_parallel, c.pipeline_parallel,
                  c.format.c_str(), c.kv_cache_dtype.c_str(), static_cast<long long>(c.max_num_seqs),
                  static_cast<long long>(c.max_num_batched_tokens));
  };
  for (size_t i = 0; i < a.space.configs.size(); ++i) {
    const ConfigPlan& p = a.result.plans[i];
    csv += head(a.space.configs[i]);
    if (p.found) {
      const FrontPoint f = FrontPointOf(p, a.quantiles);
      csv += Format("found,%lld,%lld,%.6g,%.6g,%.6g,%.6g,%d,%d,%lld,\n", static_cast<long long>(p.replicas),
                    static_cast<long long>(p.gpus), p.usd_per_hour, p.usd_per_million_output_tokens, f.ttft_s, f.tpot_s,
                    on_front[i] ? 1 : 0, static_cast<int>(i) == a.result.winner ? 1 : 0, static_cast<long long>(p.replays));
    } else {
      const std::string reason = !p.not_searched.empty() ? p.not_searched
                                 : p.outcome.violations.empty() ? std::string()
                                                                : p.outcome.violations.front();
      csv += Format("%s,,,,,,,0,0,%lld,%s\n", !p.not_searched.empty() ? "not_replayed" : "missed",
                    static_cast<long long>(p.replays), quote(reason).c_str());
    }
  }
  for (const SkippedConfig& s : a.space.skipped) csv += head(s.config) + "does_not_start,,,,,,,0,0,0," + quote(s.reason) + "\n";
  if (a.result.partial) csv += "# partial: the search was stopped\n";
  return csv;
}

std::string RenderPlanHtml(const PlanAnswer& a) {
  const bool priced = Priced(a);
  std::vector<double> x;
  Series ttft{"TTFT " + QuantileName(a.quantiles.ttft), "#2b6cb0", {}, {}};
  Series tpot{"TPOT " + QuantileName(a.quantiles.tpot), "#c05621", {}, {}};
  for (size_t i : a.front) {
    const ConfigPlan& p = a.result.plans[i];
    const FrontPoint f = FrontPointOf(p, a.quantiles);
    x.push_back(priced ? p.usd_per_million_output_tokens : static_cast<double>(p.gpus));
    ttft.y.push_back(f.ttft_s);
    tpot.y.push_back(f.tpot_s);
  }
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>kvsim plan</title><style>"
      "body{font-family:system-ui,sans-serif;margin:24px}.title{font-size:14px;font-weight:600}"
      ".tick{font-size:11px;fill:#4a5568}.axis{font-size:12px}pre{font-size:12px}</style></head><body>\n<h1>kvsim plan</h1>\n";
  if (!x.empty())
    html += SvgLines({"Pareto front: latency against price (each point a configuration at its fewest replicas)",
                      priced ? "USD per million output tokens" : "GPUs", "seconds"},
                     x, {ttft, tpot});
  html += "<pre>" + HtmlEscape(RenderPlanText(a)) + "</pre>\n</body></html>\n";
  return html;
}

}  // namespace kvsim
