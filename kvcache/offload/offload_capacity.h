// What KV tiers below the GPU ask of the machine at start-up, for `kvsim capacity`: the host memory
// (pinned) or disk each tier takes per replica and per GPU, the tokens of KV it holds, and the GPU
// staging buffer the connector allocates beside the KV pool.
#ifndef KVSIM_KVCACHE_OFFLOAD_OFFLOAD_CAPACITY_H_
#define KVSIM_KVCACHE_OFFLOAD_OFFLOAD_CAPACITY_H_

#include "kvcache/budget/capacity_result.h"
#include "kvcache/offload/offload_config.h"

namespace kvsim {

// Fills r.offload_tiers, r.offload_connector and r.offload_gpu_staging_bytes from a planned `r`
// (its settings and KV bytes per token). Nothing when `tiers` is not enabled.
void AddOffloadTiers(const OffloadConfig& tiers, CapacityResult& r);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_OFFLOAD_OFFLOAD_CAPACITY_H_
