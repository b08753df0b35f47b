#include "reports/offload_report.h"

#include "kvcache/base/text_format.h"
#include "reports/text_table.h"

namespace kvsim {

nlohmann::json OffloadToJson(const OffloadSummary& o) {
  nlohmann::json j = {{"connector", o.connector},
                      {"chunk_tokens", o.chunk_tokens},
                      {"queried_tokens", o.queried_tokens},
                      {"gpu_hit_tokens", o.gpu_hit_tokens},
                      {"gpu_hit_rate", o.gpu_hit_rate},
                      {"total_hit_rate", o.total_hit_rate},
                      {"loads", o.loads},
                      {"mean_load_wait_s", o.mean_load_wait_s},
                      {"pinned_host_gib", o.pinned_host_gib},
                      {"units", "GiB = 2^30 bytes, per GPU; hit rates over queried_tokens"}};
  j["tiers"] = nlohmann::json::array();
  for (const OffloadSummary::Tier& t : o.tiers) {
    const TierStats& s = t.stats;
    j["tiers"].push_back({{"tier", NameOf(s.kind)},
                          {"capacity_gib", t.capacity_gib},
                          {"capacity_chunks", s.capacity_chunks},
                          {"hit_tokens", s.hit_tokens},
                          {"hit_rate", t.hit_rate},
                          {"loads", s.loads},
                          {"chunks_stored", s.chunks_stored},
                          {"chunks_evicted", s.chunks_evicted},
                          {"peak_used_fraction", t.peak_used_fraction},
                          {"read_gib", t.read_gib},
                          {"written_gib", t.written_gib},
                          {"transfer_s", t.transfer_s}});
  }
  return j;
}

std::string RenderOffloadText(const OffloadSummary& o) {
  TextTable t({"KV tiers (" + o.connector + ", chunk " + std::to_string(o.chunk_tokens) + " tokens)", "capacity GiB",
               "hit rate", "tokens served", "read GiB", "written GiB", "transfer s", "peak used"});
  t.AddRow({"gpu (prefix cache)", "-", Format("%.1f%%", 100 * o.gpu_hit_rate), std::to_string(o.gpu_hit_tokens), "-", "-", "-", "-"});
  for (const OffloadSummary::Tier& x : o.tiers)
    t.AddRow({NameOf(x.stats.kind), Format("%.2f", x.capacity_gib), Format("%.1f%%", 100 * x.hit_rate),
              std::to_string(x.stats.hit_tokens), Format("%.2f", x.read_gib), Format("%.2f", x.written_gib),
              Format("%.3f", x.transfer_s), Format("%.1f%%", 100 * x.peak_used_fraction)});
  return "\n" + t.Render() +
         Format("(all tiers: %.1f%% of %lld prompt tokens looked up; %lld loads, %.4f s mean wait; pinned host memory %.2f "
                "GiB per GPU; GiB = 2^30 B, per GPU)\n",
                100 * o.total_hit_rate, static_cast<long long>(o.queried_tokens), static_cast<long long>(o.loads),
                o.mean_load_wait_s, o.pinned_host_gib);
}

}  // namespace kvsim
