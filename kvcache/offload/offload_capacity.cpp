#include "kvcache/offload/offload_capacity.h"

#include <cmath>

namespace kvsim {

void AddOffloadTiers(const OffloadConfig& tiers, CapacityResult& r) {
  if (!tiers.enabled()) return;
  // Every GPU of the replica offloads its own shard of each block (vLLM's CPU offloading spec splits
  // --kv-offloading-size over the workers), so the replica's bytes per token are the GPU's times its GPUs.
  const int gpus = r.settings.tensor_parallel_size * r.settings.pipeline_parallel_size;
  const double replica_bytes_per_token = r.kv_bytes_per_token * gpus;
  for (const TierSpec& t : tiers.tiers) {
    CapacityResult::OffloadTier o;
    o.tier = NameOf(t.kind);
    o.bytes_per_replica = t.capacity_bytes;
    o.bytes_per_gpu = t.capacity_bytes / gpus;
    o.tokens = replica_bytes_per_token > 0 ? static_cast<int64_t>(std::floor(t.capacity_bytes / replica_bytes_per_token)) : 0;
    r.offload_tiers.push_back(o);
  }
  r.offload_connector = tiers.connector;
  // vLLM's OffloadingConnector copies blocks between the KV cache and pinned host tensors with
  // swap_blocks (vllm/v1/kv_offload/worker/cpu_gpu.py): no GPU buffer. LMCache's vLLM GPU connector
  // (lmcache/v1/gpu_connector.py, VLLMPagedMemGPUConnectorV2) stages through a GPU buffer of one chunk
  // of every layer's K and V.
  if (tiers.connector == "LMCacheConnectorV1")
    r.offload_gpu_staging_bytes = static_cast<double>(tiers.chunk_tokens > 0 ? tiers.chunk_tokens : 256) * r.kv_bytes_per_token;
}

}  // namespace kvsim
