#include "reports/fleet_report.h"

#include "kvcache/base/text_format.h"
#include "reports/text_table.h"

namespace kvsim {
namespace {

nlohmann::json SpreadJson(const FleetSummary::Spread& s) {
  return {{"max", s.max}, {"mean", s.mean}, {"max_over_mean", s.mean > 0 ? std::round(s.max / s.mean * 1e4) / 1e4 : 0.0}};
}

nlohmann::json FleetJson(const FleetSummary& f, const SummaryToJson& replica_json) {
  nlohmann::json j;
  j["replicas"] = f.replicas;
  j["router"] = NameOf(f.router);
  j["routed_requests"] = f.routed;
  j["imbalance"] = {{"routed_requests", SpreadJson(f.load)},
                    {"kv_peak_used_fraction", SpreadJson(f.kv_peak_used_fraction)},
                    {"prefix_hit_rate", SpreadJson(f.prefix_hit_rate)}};
  j["per_replica"] = nlohmann::json::array();
  for (const ReplaySummary& s : f.per_replica) {
    nlohmann::json r = replica_json(s);
    for (const char* key : {"config", "kvsim_version", "memory_gib", "trace_skipped_rows", "warnings"}) r.erase(key);
    j["per_replica"].push_back(std::move(r));
  }
  return j;
}

nlohmann::json CostJson(const CostSummary& c) {
  return {{"gpu_hourly_usd", c.gpu_hourly_usd},
          {"gpus", c.gpus},
          {"gpu_hours", c.gpu_hours},
          {"usd", c.usd},
          {"usd_per_million_output_tokens", c.usd_per_million_output_tokens},
          {"output_tokens_per_s_per_gpu", c.output_tokens_per_s_per_gpu}};
}

}  // namespace

nlohmann::json LoadCheckToJson(const LoadCheck& c) {
  return {{"applicable", c.applicable},         {"offered_requests_per_s", c.offered_rps},
          {"finished_requests_per_s", c.finished_rps}, {"served_ratio", c.served_ratio},
          {"waiting_before_end", c.waiting_before}, {"waiting_at_end", c.waiting_end},
          {"queue_growing", c.queue_growing},    {"backlog_fraction", c.backlog_fraction}, {"served", c.served}};
}

void AddFleetAndCostJson(const ReplaySummary& s, const SummaryToJson& replica_json, nlohmann::json& j) {
  if (s.fleet) j["fleet"] = FleetJson(*s.fleet, replica_json);
  if (s.cost) j["cost"] = CostJson(*s.cost);
  if (s.fleet || s.cost) j["load_check"] = LoadCheckToJson(s.load_check);
}

std::string RenderFleetAndCostText(const ReplaySummary& s) {
  std::string out;
  if (s.fleet) {
    const FleetSummary& f = *s.fleet;
    TextTable t({"replica", "routed", "finished", "preemptions", "KV peak", "prefix hits", "TTFT p99 s", "TPOT p99 s"});
    for (size_t i = 0; i < f.per_replica.size(); ++i) {
      const ReplaySummary& r = f.per_replica[i];
      t.AddRow({std::to_string(i), std::to_string(f.routed[i]), std::to_string(r.requests.finished),
                std::to_string(r.requests.preemptions), Format("%.1f%%", 100 * r.kv.peak_used_fraction),
                Format("%.1f%%", 100 * r.prefix_cache.hit_rate), Format("%.3f", r.latency_s.ttft.p99),
                Format("%.3f", r.latency_s.tpot.p99)});
    }
    out += "\nfleet: " + std::to_string(f.replicas) + " replicas, router " + NameOf(f.router) + "\n" + t.Render();
    out += Format("imbalance (max / mean): routed %.0f / %.1f, KV peak %.1f%% / %.1f%%, prefix hit rate %.1f%% / %.1f%%\n",
                  f.load.max, f.load.mean, 100 * f.kv_peak_used_fraction.max, 100 * f.kv_peak_used_fraction.mean,
                  100 * f.prefix_hit_rate.max, 100 * f.prefix_hit_rate.mean);
  }
  if (s.cost) {
    const CostSummary& c = *s.cost;
    out += Format("\ncost: %lld GPUs x %.4f h = %.3f GPU-hours at $%.2f = $%.2f; $%.3f per million output tokens; %.1f output tok/s per GPU\n",
                  static_cast<long long>(c.gpus), s.throughput.simulated_s / 3600, c.gpu_hours, c.gpu_hourly_usd, c.usd,
                  c.usd_per_million_output_tokens, c.output_tokens_per_s_per_gpu);
  }
  if (s.fleet || s.cost) {
    const LoadCheck& l = s.load_check;
    if (!l.applicable) out += "offered load check: not applicable (fewer than 20 arrivals or under 1 s)\n";
    else
      out += Format("offered load check: %s (second half of the arrivals: %.3f req/s finished of %.3f offered = %.1f%%; waiting %.1f -> %.1f)\n",
                    l.served ? "served" : "NOT served", l.finished_rps, l.offered_rps, 100 * l.served_ratio,
                    l.waiting_before, l.waiting_end);
  }
  return out;
}

}  // namespace kvsim
