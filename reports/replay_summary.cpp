#include "reports/replay_summary.h"

#include <cmath>

#include "kvcache/units.h"
#include "reports/capacity_report.h"
#include "reports/text_table.h"

namespace kvsim {
namespace {

double R4(double x) { return std::round(x * 1e4) / 1e4; }

}  // namespace

nlohmann::json BuildReplaySummary(const CapacityResult& cap, const ReplayRecorder& recorder,
                                  const EngineCounters& counters, const ReplayRunInfo& info, int64_t block_bytes) {
  nlohmann::json j = recorder.Summary();
  j["kvsim_version"] = KVSIM_VERSION;
  const double kv_peak = static_cast<double>(recorder.peak_used_blocks()) * static_cast<double>(block_bytes);
  j["memory_gib"] = {{"weights", R4(BytesToGiB(cap.weights_bytes))},
                     {"activation", R4(BytesToGiB(cap.activation_peak_bytes))},
                     {"non_torch", R4(BytesToGiB(cap.non_torch_bytes))},
                     {"kv_pool", R4(BytesToGiB(cap.kv_cache_bytes))},
                     {"kv_peak_used", R4(BytesToGiB(kv_peak))},
                     {"peak_total", R4(BytesToGiB(cap.weights_bytes + cap.activation_peak_bytes + cap.non_torch_bytes + kv_peak))},
                     {"units", "GiB = 2^30 bytes, per GPU"}};
  j["sim"] = {{"wall_s", R4(info.wall_s)}, {"events", counters.events}, {"steps", counters.steps}, {"stepping", info.stepping}};
  nlohmann::json config = SettingsToJson(cap.settings);
  config["trace"] = info.trace;
  config["scheduler"] = info.scheduler;
  config["allocator"] = info.allocator;
  config["step_time_model"] = info.step_model;
  config["seed"] = info.seed;
  config["max_requests"] = info.window.max_requests;
  config["start_s"] = info.window.start_s;
  config["duration_s"] = info.window.duration_s;
  config["rate_scale"] = info.window.rate_scale;
  config["repeat"] = info.window.repeat;
  j["config"] = config;
  j["trace_skipped_rows"] = info.skipped_rows;
  return j;
}

std::string RenderReplayText(const nlohmann::json& s) {
  const auto& c = s["config"];
  std::string out = "kvsim replay: " + c["trace"].get<std::string>() + "\n  " + c["model"].get<std::string>() + " on " +
                    c["gpu_name"].get<std::string>() + ", TP " + std::to_string(c["tensor_parallel_size"].get<int>()) +
                    ", scheduler " + c["scheduler"].get<std::string>() + ", allocator " +
                    c["allocator"].get<std::string>() + ", block size " + std::to_string(c["block_size"].get<int64_t>()) +
                    ", max-num-seqs " + std::to_string(c["max_num_seqs"].get<int64_t>()) + ", rate-scale " +
                    Format("%g", c["rate_scale"].get<double>()) + "\n\n";
  const auto& rq = s["requests"];
  const auto& cc = s["concurrency"];
  const auto& kv = s["kv"];
  const auto& th = s["throughput"];
  TextTable t({"summary", "value"}, /*align_numbers=*/false);
  t.AddRow({"requests finished / rejected / total", std::to_string(rq["finished"].get<int64_t>()) + " / " +
                                                         std::to_string(rq["rejected"].get<int64_t>()) + " / " +
                                                         std::to_string(rq["total"].get<int64_t>())});
  t.AddRow({"preemptions", std::to_string(rq["preemptions"].get<int64_t>())});
  t.AddRow({"running peak / mean", Format("%lld / %.1f", static_cast<long long>(cc["peak_running"].get<int64_t>()),
                                          cc["mean_running"].get<double>())});
  t.AddRow({"waiting peak", std::to_string(cc["peak_waiting"].get<int64_t>())});
  if (kv["num_blocks"].get<int64_t>() > 0)
    t.AddRow({"KV blocks peak used / pool", Format("%lld / %lld (%.1f%%)", static_cast<long long>(kv["peak_used_blocks"].get<int64_t>()),
                                                   static_cast<long long>(kv["num_blocks"].get<int64_t>()),
                                                   100 * kv["peak_used_fraction"].get<double>())});
  t.AddRow({"throughput", Format("%.2f req/s, %.0f output tok/s over %.0f s simulated", th["requests_per_s"].get<double>(),
                                 th["output_tokens_per_s"].get<double>(), th["simulated_s"].get<double>())});
  t.AddRow({"offered load", Format("%.2f req/s (arrivals over the trace's span)", th["offered_requests_per_s"].get<double>())});
  t.AddRow({"prefix cache hit rate", Format("%.1f%%", 100 * s["prefix_cache"]["hit_rate"].get<double>())});
  out += t.Render() + "\n";

  const auto& m = s["memory_gib"];
  TextTable mem({"memory per GPU (GiB = 2^30 B)", "GiB"});
  for (const char* k : {"weights", "activation", "non_torch", "kv_pool", "kv_peak_used", "peak_total"})
    mem.AddRow({k, Format("%.2f", m[k].get<double>())});
  out += mem.Render() + "\n";

  TextTable w({"KV pool over time (time-averaged)", "all time", "while requests wait"});
  for (const char* k : {"token_states", "reserved", "internal_fragmentation", "external_fragmentation", "cached", "free"})
    w.AddRow({k, Format("%.1f%%", 100 * s["waste"][k].get<double>()), Format("%.1f%%", 100 * s["waste_saturated"][k].get<double>())});
  out += w.Render() + Format("(requests waited during %.1f%% of the time)\n\n",
                             100 * s["waste_saturated"]["saturated_time_fraction"].get<double>());

  TextTable lat({"latency (s)", "mean", "p50", "p90", "p99"});
  for (const char* k : {"queue", "ttft", "tpot", "e2e"}) {
    const auto& l = s["latency_s"][k];
    lat.AddRow({k, Format("%.3f", l["mean"].get<double>()), Format("%.3f", l["p50"].get<double>()),
                Format("%.3f", l["p90"].get<double>()), Format("%.3f", l["p99"].get<double>())});
  }
  out += lat.Render();
  out += Format("\nsimulated %lld steps, %lld events in %.2f s wall\n", static_cast<long long>(s["sim"]["steps"].get<int64_t>()),
                static_cast<long long>(s["sim"]["events"].get<int64_t>()), s["sim"]["wall_s"].get<double>());
  return out;
}

}  // namespace kvsim
