// The link that carries a prompt's KV from a prefill instance to a decode instance (vLLM's
// NixlConnector over NVLink or RDMA; llm-d and Dynamo use the same). Each GPU of an instance has
// its own NIC (or NVLink port), and the GPUs move their shards in parallel, so a transfer takes
// latency + the bytes the busiest GPU sends or receives / one GPU's bandwidth. With the same TP on
// both sides every rank sends its shard to one rank; with TP_p < TP_d each prefill rank feeds
// TP_d/TP_p decode ranks, and the other way round, so the busiest GPU moves
// tokens x max(per-GPU bytes per token of the two pools).
// Concurrent transfers share the links: an instance's NICs carry one transfer at a time, first come
// first served (a transfer starts when both ends are free).
#ifndef KVSIM_SIM_DISAGG_KV_LINK_H_
#define KVSIM_SIM_DISAGG_KV_LINK_H_

#include <cstdint>
#include <string>
#include <vector>

namespace kvsim {

struct KvLinkSpec {
  std::string name;
  double bytes_per_s = 0;   // one GPU's link, one direction
  int64_t latency_ns = 0;   // per transfer
};

// "nvlink" (NVLink 4: 900 GB/s per H100, 450 each way), "ib-400g" (NDR InfiniBand, 400 Gb/s per GPU),
// "roce-200g" (200 Gb/s per GPU), or "GB/s,LATENCY_US". Presets carry no latency (give the form with
// one to add it). Throws kvsim::Error naming --kv-link.
KvLinkSpec ParseKvLink(const std::string& text);

// The links of P prefill and D decode instances.
class KvLinks {
 public:
  KvLinks(KvLinkSpec spec, int64_t prefill_instances, int64_t decode_instances, double bytes_per_token_busiest_gpu);
  // A transfer of `tokens` tokens from prefill instance p to decode instance d asked for at now_ns;
  // returns when it ends.
  int64_t Transfer(int64_t p, int64_t d, int64_t tokens, int64_t now_ns);
  // One transfer's time on idle links.
  int64_t TransferNs(int64_t tokens) const;
  int64_t transfers() const { return transfers_; }
  double bytes() const { return bytes_; }        // per busiest GPU, summed
  int64_t busy_ns() const { return busy_ns_; }   // Σ transfer times (without queueing)
  int64_t wait_ns() const { return wait_ns_; }   // Σ queueing for a busy link

 private:
  KvLinkSpec spec_;
  double bytes_per_token_;
  std::vector<int64_t> prefill_free_, decode_free_;
  int64_t transfers_ = 0, busy_ns_ = 0, wait_ns_ = 0;
  double bytes_ = 0;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_DISAGG_KV_LINK_H_
