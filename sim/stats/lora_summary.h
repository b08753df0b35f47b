// What LoRA adapters did over a replay (sim/engine/lora_adapters.h), summed over the replicas: the
// slots, what one adapter costs to load, how often adapters were loaded (GPU misses, and host-cache
// misses read from disk first), the time loads and the LoRA kernels added to steps, and the requests
// that waited for an adapter slot.
#ifndef KVSIM_SIM_STATS_LORA_SUMMARY_H_
#define KVSIM_SIM_STATS_LORA_SUMMARY_H_

#include <cstdint>

namespace kvsim {

struct LoraSummary {
  int64_t max_loras = 0, max_cpu_loras = 0, max_lora_rank = 0;
  int64_t requests = 0;            // requests on an adapter
  double adapter_gpu_mib = 0;      // one adapter's A and B on one GPU (its slot), MiB = 2^20 B
  double adapter_host_mib = 0;     // one adapter's checkpoint, every shard (the host cache's entry)
  double host_link_gb_per_s = 0, disk_read_gb_per_s = 0;
  double gpu_load_ms = 0, disk_load_ms = 0;  // one adapter's load over each
  int64_t gpu_loads = 0;           // GPU-slot misses
  int64_t disk_loads = 0;          // of them, host-cache misses
  double load_s = 0;               // time loads added to steps
  double kernel_s = 0;             // time the LoRA kernels added to steps
  double host_s = 0;               // time LoRA's host work added besides (metadata, launches from the CPU)
  int64_t lora_steps = 0;          // steps that ran any request on an adapter
  int64_t max_step_adapters = 0;   // the most distinct adapters in one step
  int64_t waited_requests = 0;     // requests set aside at least once for want of an adapter slot
};

}  // namespace kvsim

#endif  // KVSIM_SIM_STATS_LORA_SUMMARY_H_
