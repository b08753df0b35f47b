#include "reports/replay_report.h"

#include <type_traits>

#include "kvcache/base/text_format.h"
#include "reports/capacity_report.h"
#include "reports/fleet_report.h"
#include "reports/disagg_report.h"
#include "reports/lora_report.h"
#include "reports/offload_report.h"
#include "reports/text_table.h"
#include "sim/stats/summary_fields.h"

namespace kvsim {
namespace {

nlohmann::json LatencyJson(const LatencySummary& l) {
  nlohmann::json j = {{"count", l.count}, {"mean", l.mean}, {"p50", l.p50}, {"p90", l.p90}, {"p99", l.p99}};
  if (l.has_std) j["std"] = l.std;
  return j;
}

nlohmann::json WasteJson(const WasteShares& shares) {
  nlohmann::json w = nlohmann::json::object();
  for (WasteCategory c : EnumValues<WasteCategory>()) w[NameOf(c)] = shares[static_cast<size_t>(c)];
  return w;
}

}  // namespace

nlohmann::json ReplayConfigToJson(const ReplaySummary::Config& c) {
  nlohmann::json j = SettingsToJson(c.settings);
  j["trace"] = c.trace;
  j["scheduler"] = NameOf(c.scheduler);
  j["allocator"] = c.allocator;
  j["step_time_model"] = c.step_time_model;
  j["seed"] = c.seed;
  j["max_requests"] = c.window.max_requests;
  j["start_s"] = c.window.start_s;
  j["duration_s"] = c.window.duration_s;
  j["rate_scale"] = c.window.rate_scale;
  j["repeat"] = c.window.repeat;
  return j;
}

nlohmann::json ReplaySummaryToJson(const ReplaySummary& s) {
  nlohmann::json j;
  // The plain figures (requests, concurrency, kv, throughput, goodput, memory_gib), then what is not one.
  VisitSummaryFields(s, [&](const SummaryFieldInfo& f, const auto& value) { j[f.section][f.name] = value; });
  j["requests"]["rejected_by_reason"] = s.requests.rejected_by_reason;
  j["memory_gib"]["units"] = "GiB = 2^30 bytes, per GPU";
  j["waste"] = WasteJson(s.waste);
  j["waste_saturated"] = WasteJson(s.waste_saturated);
  j["waste_saturated"]["saturated_time_fraction"] = s.saturated_time_fraction;
  j["prefix_cache"] = {{"queried_tokens", s.prefix_cache.queried_tokens}, {"hit_tokens", s.prefix_cache.hit_tokens},
                       {"hit_rate", s.prefix_cache.hit_rate}};
  if (s.prefix_cache.readmission_hit_tokens > 0)  // re-admissions that found their own blocks (absent otherwise)
    j["prefix_cache"]["readmissions"] = {{"queried_tokens", s.prefix_cache.readmission_queried_tokens},
                                         {"hit_tokens", s.prefix_cache.readmission_hit_tokens},
                                         {"hit_rate", s.prefix_cache.readmission_hit_rate}};
  j["latency_s"] = nlohmann::json::object();
  for (const auto& [name, l] : s.latency_s.Named()) j["latency_s"][name] = LatencyJson(*l);
  j["latency_s"]["ttft_components"] = nlohmann::json::object();
  s.latency_s.ttft_components.ForEach([&](const char* name, double v) { j["latency_s"]["ttft_components"][name] = v; });
  j["kvsim_version"] = KVSIM_VERSION;
  j["sim"] = {{"wall_s", s.sim.wall_s}, {"events", s.sim.events}, {"steps", s.sim.steps}, {"stepping", NameOf(s.sim.stepping)},
              {"latency_quantiles", s.sim.exact_quantiles ? "exact" : "sketch (log buckets 1% wide: within 0.5%)"}};
  if (s.sim.draft_tokens > 0)  // present only with speculative decoding
    j["speculation"] = {{"draft_tokens", s.sim.draft_tokens}, {"accepted_tokens", s.sim.accepted_tokens},
                        {"acceptance", static_cast<double>(s.sim.accepted_tokens) / static_cast<double>(s.sim.draft_tokens)},
                        {"drafting_s", s.sim.drafting_s}};
  j["config"] = ReplayConfigToJson(s.config);
  j["trace_skipped_rows"] = s.trace_skipped_rows;
  if (s.partial) j["partial"] = true;
  j["warnings"] = s.warnings;
  if (s.offload) j["offload"] = OffloadToJson(*s.offload);
  if (s.disagg) j["disaggregation"] = DisaggToJson(*s.disagg);
  if (s.lora) j["lora"] = LoraToJson(*s.lora);
  AddFleetAndCostJson(s, ReplaySummaryToJson, j);  // fleet, cost, load_check: only for fleets and with --gpu-hourly-cost
  return j;
}

std::vector<FigureText> FiguresWithoutOwnRow(const ReplaySummary& s) {
  std::vector<FigureText> out;
  VisitSummaryFields(s, [&](const SummaryFieldInfo& f, const auto& value) {
    if (f.outputs != FieldOutputs::kEverywhere) return;
    std::string text;
    if constexpr (std::is_floating_point_v<std::remove_cvref_t<decltype(value)>>) text = Format("%.6g", value);
    else text = std::to_string(value);
    out.push_back({std::string(f.section) + "." + f.name, f.unit, text});
  });
  return out;
}

std::string RenderReplayText(const ReplaySummary& s) {
  const auto& c = s.config;
  std::string out = "kvsim replay: " + c.trace + "\n  " + c.settings.model + " on " + c.settings.gpu_name + ", TP " +
                    std::to_string(c.settings.tensor_parallel_size) + ", scheduler " + NameOf(c.scheduler) +
                    ", allocator " + c.allocator + ", block size " + std::to_string(c.settings.block_size) +
                    ", max-num-seqs " + std::to_string(c.settings.max_num_seqs) + ", rate-scale " +
                    Format("%g", c.window.rate_scale) + "\n  step times: " + c.step_time_model + "\n\n";
  const auto& rq = s.requests;
  const auto& th = s.throughput;
  TextTable t({"summary", "value"}, /*align_numbers=*/false);
  t.AddRow({"requests finished / rejected / total",
            std::to_string(rq.finished) + " / " + std::to_string(rq.rejected) + " / " + std::to_string(rq.total)});
  t.AddRow({"preemptions", std::to_string(rq.preemptions)});
  t.AddRow({"running peak / mean", Format("%lld / %.1f", static_cast<long long>(s.concurrency.peak_running),
                                          s.concurrency.mean_running)});
  t.AddRow({"waiting peak", std::to_string(s.concurrency.peak_waiting)});
  if (s.kv.num_blocks > 0)
    t.AddRow({"KV blocks peak used / pool", Format("%lld / %lld (%.1f%%)", static_cast<long long>(s.kv.peak_used_blocks),
                                                   static_cast<long long>(s.kv.num_blocks), 100 * s.kv.peak_used_fraction)});
  t.AddRow({"throughput", Format("%.2f req/s, %.0f output tok/s over %.0f s simulated", th.requests_per_s,
                                 th.output_tokens_per_s, th.simulated_s)});
  t.AddRow({"offered load", Format("%.2f req/s (arrivals over the trace's span)", th.offered_requests_per_s)});
  t.AddRow({"prefix cache hit rate", Format("%.1f%%", 100 * s.prefix_cache.hit_rate)});
  out += t.Render() + "\n";

  const auto& m = s.memory_gib;
  TextTable mem({"memory per GPU (GiB = 2^30 B)", "GiB"});
  for (const auto& [name, value] : {std::pair<const char*, double>{"weights", m.weights}, {"activation", m.activation},
                                    {"non_torch", m.non_torch}, {"kv_pool", m.kv_pool},
                                    {"kv_peak_used", m.kv_peak_used}, {"peak_total", m.peak_total}})
    mem.AddRow({name, Format("%.2f", value)});
  out += mem.Render() + "\n";

  TextTable w({"KV pool over time (time-averaged)", "all time", "while requests wait"});
  for (WasteCategory k : EnumValues<WasteCategory>())
    w.AddRow({NameOf(k), Format("%.1f%%", 100 * s.waste[static_cast<size_t>(k)]),
              Format("%.1f%%", 100 * s.waste_saturated[static_cast<size_t>(k)])});
  out += w.Render() + Format("(requests waited during %.1f%% of the time)\n\n", 100 * s.saturated_time_fraction);

  TextTable lat({"latency (s)", "mean", "p50", "p90", "p99"});
  for (const auto& [name, l] : s.latency_s.Named())
    lat.AddRow({name, Format("%.3f", l->mean), Format("%.3f", l->p50), Format("%.3f", l->p90), Format("%.3f", l->p99)});
  out += lat.Render();
  // Where the mean time to first token goes (the request path, README "Time to first token").
  TextTable parts({"ttft terms (mean)", "ms", "share"});
  const double ttft_mean = s.latency_s.ttft.mean;
  s.latency_s.ttft_components.ForEach([&](const char* name, double v) {
    parts.AddRow({name, Format("%.2f", v * 1e3), Format("%.0f%%", ttft_mean > 0 ? 100 * v / ttft_mean : 0.0)});
  });
  out += "\n" + parts.Render();
  if (!s.sim.exact_quantiles) out += "(quantiles from a log-bucket sketch, within 0.5%; --exact-quantiles keeps every value)\n";
  out += Format("\nsimulated %lld steps, %lld events in %.2f s wall\n", static_cast<long long>(s.sim.steps),
                static_cast<long long>(s.sim.events), s.sim.wall_s);
  if (s.sim.draft_tokens > 0)
    out += Format("speculative decoding: %lld draft tokens verified, %.1f%% accepted; the proposer's passes took %.2f s of the steps\n",
                  static_cast<long long>(s.sim.draft_tokens),
                  100.0 * static_cast<double>(s.sim.accepted_tokens) / static_cast<double>(s.sim.draft_tokens), s.sim.drafting_s);
  if (s.offload) out += RenderOffloadText(*s.offload);
  if (s.disagg) out += RenderDisaggText(*s.disagg);
  if (s.lora) out += RenderLoraText(*s.lora);
  out += RenderFleetAndCostText(s);  // empty unless a fleet or --gpu-hourly-cost
  return out;
}

}  // namespace kvsim
