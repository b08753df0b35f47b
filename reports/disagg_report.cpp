#include "reports/disagg_report.h"

#include "kvcache/base/text_format.h"
#include "reports/lora_report.h"
#include "reports/offload_report.h"
#include "reports/text_table.h"

namespace kvsim {
namespace {

nlohmann::json PoolJson(const DisaggSummary::Pool& p) {
  nlohmann::json j = {{"replicas", p.replicas}, {"gpu", p.gpu}, {"tensor_parallel_size", p.tensor_parallel_size},
                      {"max_num_seqs", p.max_num_seqs}, {"kv_blocks_per_replica", p.kv_blocks}};
  if (p.offload) j["offload"] = OffloadToJson(*p.offload);
  if (p.lora) j["lora"] = LoraToJson(*p.lora);
  return j;
}

// A pool's KV tiers and adapters, each under the pool's name.
std::string PoolSections(const char* name, const DisaggSummary::Pool& p) {
  std::string out;
  if (p.offload) out += Format("\n%s pool:", name) + RenderOffloadText(*p.offload);
  if (p.lora) out += Format("\n%s pool:", name) + RenderLoraText(*p.lora);
  return out;
}

}  // namespace

nlohmann::json DisaggToJson(const DisaggSummary& d) {
  return {{"prefill", PoolJson(d.prefill)},
          {"decode", PoolJson(d.decode)},
          {"link", {{"name", d.link}, {"gb_per_s_per_gpu", d.link_gb_per_s}, {"latency_s", d.link_latency_s}}},
          {"transfers", d.transfers},
          {"transfer_gib_per_gpu", d.transfer_gib_per_gpu},
          {"mean_transfer_s", d.mean_transfer_s},
          {"mean_link_wait_s", d.mean_link_wait_s},
          {"connector", d.connector},
          {"mean_post_s", d.mean_post_s},
          {"units", "GB/s = 10^9 B/s; GiB = 2^30 B, the busiest GPU's bytes"}};
}

std::string RenderDisaggText(const DisaggSummary& d) {
  TextTable t({"prefill/decode pools", "replicas", "GPU", "TP", "max-num-seqs", "KV blocks each"});
  for (const auto& [name, p] : {std::pair<const char*, const DisaggSummary::Pool*>{"prefill", &d.prefill}, {"decode", &d.decode}})
    t.AddRow({name, std::to_string(p->replicas), p->gpu, std::to_string(p->tensor_parallel_size),
              std::to_string(p->max_num_seqs), std::to_string(p->kv_blocks)});
  return "\n" + t.Render() +
         Format("KV link %s (%.1f GB/s per GPU, %.1f us): %lld transfers, %.2f GiB per GPU, mean %.4f s each + %.4f s "
                "waiting for the link\nconnector %s: mean %.4f s to post each read on the decode host\n(request latencies from the arrival at the prefill pool; steps and KV of the decode pool)\n",
                d.link.c_str(), d.link_gb_per_s, d.link_latency_s * 1e6, static_cast<long long>(d.transfers),
                d.transfer_gib_per_gpu, d.mean_transfer_s, d.mean_link_wait_s, d.connector.c_str(), d.mean_post_s) +
         PoolSections("prefill", d.prefill) + PoolSections("decode", d.decode);
}

}  // namespace kvsim
