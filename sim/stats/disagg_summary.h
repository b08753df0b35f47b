// The prefill/decode split of a disaggregated replay (sim/disagg/disagg_runner.h): both pools and
// the KV link's traffic.
#ifndef KVSIM_SIM_STATS_DISAGG_SUMMARY_H_
#define KVSIM_SIM_STATS_DISAGG_SUMMARY_H_

#include <cstdint>
#include <memory>
#include <string>

#include "sim/stats/lora_summary.h"
#include "sim/stats/offload_summary.h"

namespace kvsim {

struct DisaggSummary {
  struct Pool {
    int64_t replicas = 0;
    std::string gpu;
    int tensor_parallel_size = 1;
    int64_t max_num_seqs = 0;
    int64_t kv_blocks = 0;          // per replica
    // What the pool's host/disk tiers and LoRA adapters did, summed over its instances (null: none).
    std::shared_ptr<const OffloadSummary> offload;
    std::shared_ptr<const LoraSummary> lora;
  };
  Pool prefill, decode;
  std::string link;
  double link_gb_per_s = 0;         // one GPU's link, 10^9 B/s
  double link_latency_s = 0;
  int64_t transfers = 0;
  double transfer_gib_per_gpu = 0;  // Σ over transfers of the busiest GPU's bytes (GiB = 2^30 B)
  double mean_transfer_s = 0;       // latency + bytes / bandwidth
  double mean_link_wait_s = 0;      // waiting for a busy link
  std::string connector;            // nixl | push
  double mean_post_s = 0;           // NIXL: the decode worker's host time to post one read (0 otherwise)
};

}  // namespace kvsim

#endif  // KVSIM_SIM_STATS_DISAGG_SUMMARY_H_
