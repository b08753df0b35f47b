// The typed settings of the KV-cache tiers below the GPU (kvcache/offload/offload_tiers.h), filled
// by the CLI from --kv-offload, vLLM's --kv-offloading-size / --kv-offloading-backend and
// --kv-transfer-config.
#ifndef KVSIM_KVCACHE_OFFLOAD_OFFLOAD_CONFIG_H_
#define KVSIM_KVCACHE_OFFLOAD_OFFLOAD_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "kvcache/base/enum_names.h"

namespace kvsim {

enum class TierKind { kHost, kDisk };
template <>
struct EnumNames<TierKind> {
  static constexpr EnumEntry<TierKind> kEntries[] = {{TierKind::kHost, "cpu", "host memory"}, {TierKind::kDisk, "disk", "disk"}};
};

// In OffloadConfig capacity is per replica, summed over its GPUs (as vLLM's --kv-offloading-size);
// OffloadTiers takes one GPU's share. Bandwidths are one GPU's link; 0 for the host tier: the GPU
// table's host link (data/gpus.csv host_link_GB_per_s).
struct TierSpec {
  TierKind kind = TierKind::kHost;
  double capacity_bytes = 0;
  double read_bytes_per_s = 0;       // tier -> GPU
  double write_bytes_per_s = 0;      // GPU -> tier
  int64_t latency_ns = 0;            // per load
};

struct OffloadConfig {
  std::vector<TierSpec> tiers;       // fastest first; empty: no offloading
  int64_t chunk_tokens = 0;          // 0: the GPU block size
  std::string connector;             // what configured it, for the summary ("--kv-offload", "OffloadingConnector", ...)
  bool enabled() const { return !tiers.empty(); }
};

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_OFFLOAD_OFFLOAD_CONFIG_H_
