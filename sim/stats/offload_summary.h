// What the KV tiers below the GPU did over a replay (kvcache/offload/offload_tiers.h), summed over
// the replicas: per tier its capacity, the prompt tokens it served, bytes moved and transfer time.
// Bytes are per GPU (each GPU moves its own shard of the KV over its own link).
#ifndef KVSIM_SIM_STATS_OFFLOAD_SUMMARY_H_
#define KVSIM_SIM_STATS_OFFLOAD_SUMMARY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "kvcache/offload/offload_tiers.h"

namespace kvsim {

struct OffloadSummary {
  std::string connector;            // what configured the tiers
  int64_t chunk_tokens = 0;
  int64_t queried_tokens = 0;       // prompt tokens the lookups covered
  int64_t gpu_hit_tokens = 0;
  double gpu_hit_rate = 0;          // gpu_hit_tokens / queried_tokens
  double total_hit_rate = 0;        // (GPU + every tier) / queried_tokens
  int64_t loads = 0;                // requests that waited for a load
  double mean_load_wait_s = 0;      // per load: link queueing + transfer
  double pinned_host_gib = 0;       // per GPU: the host tier's buffer, pinned when the server starts
  struct Tier {
    TierStats stats;
    double hit_rate = 0;            // hit_tokens / queried_tokens
    double capacity_gib = 0, read_gib = 0, written_gib = 0, transfer_s = 0;
    double peak_used_fraction = 0;  // peak chunks / capacity chunks
  };
  std::vector<Tier> tiers;
};

// Sums the replicas' tier statistics. REQUIRES: every entry from tiers of the same configuration.
OffloadSummary SummarizeOffload(const std::string& connector, const std::vector<const OffloadStats*>& replicas,
                                int64_t chunk_tokens);

}  // namespace kvsim

#endif  // KVSIM_SIM_STATS_OFFLOAD_SUMMARY_H_
