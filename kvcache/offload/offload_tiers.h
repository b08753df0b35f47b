// OffloadTiers: the KV-cache tiers below the GPU (host memory, disk) of one replica, with the
// store and load policy of vLLM's OffloadingConnector (scheduler side:
// vllm/distributed/kv_transfer/kv_connector/v1/offloading_connector.py, v0.11.0;
// manager: vllm/v1/kv_offload/lru_manager.py; CPU backend and worker: vllm/v1/kv_offload/cpu.py,
// worker/cpu_gpu.py).
//
// - Chunks: the connector offloads in blocks of `chunk_tokens` (its `block_size` extra config, a
//   multiple of the GPU block size; default the GPU block size). A chunk is named by the chained
//   prefix key of its last GPU block, so equal names mean equal prefixes.
// - Store (_get_reqs_to_store): after every step, each chunk a scheduled request filled completely is
//   written to every tier that lacks it (write-through, as LMCache's storage manager writes to each
//   backend), asynchronously: stores are off the request's path. Output chunks are stored too; the
//   trace does not name their content, so they take room and are never hit (StoreUnkeyed).
// - Load (get_num_new_matched_tokens): a request's chunks are touched, then the run of chunks after
//   its GPU prefix hits found in any tier (fastest first) is loaded, at chunk granularity; less than
//   one chunk is not worth a load. The request waits for the load (WAITING_FOR_REMOTE_KVS) with
//   its GPU blocks allocated, until a step's get_finished reports it done and a later scheduler
//   pass sees that (the engine's part, ReplayEngine::ReleaseLoaded); loads of one replica queue on
//   its host link (one copy stream), each
//   taking Σ over tiers of latency + bytes / read bandwidth. Each GPU moves its own shard of the
//   KV (bytes_per_token is per GPU) over its own link, in parallel.
// - The last prompt token is always computed (its logits are needed), as with GPU prefix hits.
#ifndef KVSIM_KVCACHE_OFFLOAD_OFFLOAD_TIERS_H_
#define KVSIM_KVCACHE_OFFLOAD_OFFLOAD_TIERS_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "kvcache/kv_allocator.h"
#include "kvcache/offload/offload_config.h"
#include "kvcache/offload/tier_lru.h"

namespace kvsim {

// What one tier did over a replay.
struct TierStats {
  TierKind kind = TierKind::kHost;
  int64_t capacity_chunks = 0;
  int64_t chunk_tokens = 0;
  double capacity_bytes = 0;      // per GPU
  int64_t hit_tokens = 0;         // prompt tokens loaded from this tier
  int64_t loads = 0;              // requests that loaded chunks from it
  int64_t chunks_stored = 0, chunks_evicted = 0, peak_chunks = 0;
  double bytes_read = 0, bytes_written = 0;  // per GPU
  int64_t transfer_ns = 0;        // Σ of its loads' latency + bytes / bandwidth
};

struct OffloadStats {
  int64_t queried_tokens = 0;     // prompt tokens the lookups covered (GPU and lower tiers)
  int64_t gpu_hit_tokens = 0;     // of them, served by the GPU prefix cache
  int64_t loads = 0;              // admissions that waited for a load
  int64_t load_wait_ns = 0;       // Σ over loads of ready − lookup (queueing on the link included)
  std::vector<TierStats> tiers;   // fastest first
};

class OffloadTiers {
 public:
  // `bytes_per_token`: KV bytes of one token on one GPU (the replica's shard).
  // REQUIRES: config.chunk_tokens a positive multiple of gpu_block_size.
  OffloadTiers(const OffloadConfig& config, int64_t gpu_block_size, double bytes_per_token);

  static constexpr size_t kMaxTiers = 4;
  // What the tiers hold for a request: tokens past the GPU hits, by tier.
  struct Match {
    int64_t tokens = 0;
    std::array<int64_t, kMaxTiers> per_tier{};
  };
  // The lookup at admission, without side effects (the scheduler may not admit the request):
  // `keys` are the prompt's GPU-block keys, `gpu_cached_tokens` what the GPU prefix cache serves.
  Match Find(std::span<const BlockKey> keys, int64_t gpu_cached_tokens, int64_t prompt_tokens) const;
  // The request was admitted: touches its chunks, counts the lookup and starts the load of `match`
  // on the link. Returns when the loaded tokens are on the GPU (now_ns without a load).
  int64_t Commit(std::span<const BlockKey> keys, const Match& match, int64_t gpu_cached_tokens, int64_t prompt_tokens,
                 int64_t now_ns);
  // The prompt chunks a step completed: those ending in (from_tokens, to_tokens].
  void StorePrompt(std::span<const BlockKey> keys, int64_t from_tokens, int64_t to_tokens);
  // `chunks` chunks of output tokens (unnamed content).
  void StoreUnkeyed(int64_t chunks);
  // The full chunks of a request's `kv_tokens` that its `keys` (GPU-block keys) do not name.
  int64_t OutputChunks(int64_t keys, int64_t kv_tokens) const {
    return std::max<int64_t>(0, kv_tokens / chunk_tokens_ - keys / factor_);
  }

  int64_t chunk_tokens() const { return chunk_tokens_; }
  const OffloadStats& stats() const { return stats_; }
  size_t tiers() const { return lru_.size(); }
  // The share of tier `i`'s chunks in use (0 for a tier of no chunks).
  double UsedFraction(size_t i) const {
    return lru_[i].capacity() > 0 ? static_cast<double>(lru_[i].size()) / static_cast<double>(lru_[i].capacity()) : 0.0;
  }

 private:
  void StoreChunk(BlockKey key);

  int64_t chunk_tokens_;
  int64_t factor_;        // GPU blocks per chunk
  double chunk_bytes_;    // per GPU
  std::vector<TierSpec> specs_;
  std::vector<TierLru> lru_;
  OffloadStats stats_;
  int64_t link_free_ns_ = 0;
  uint64_t unkeyed_ = 0;
};

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_OFFLOAD_OFFLOAD_TIERS_H_
