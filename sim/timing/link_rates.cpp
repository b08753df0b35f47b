#include "sim/timing/link_rates.h"

namespace kvsim {

double LinkBytesPerSecond(Interconnect i) {
  switch (i) {
    case Interconnect::kNvls: return 450e9;
    case Interconnect::kNvlink: return 300e9;
    case Interconnect::kPcie: return 25e9;
    case Interconnect::kXgmi: return 300e9;
  }
  return 300e9;
}

double AllReduceLatencySeconds(Interconnect i) {
  switch (i) {
    case Interconnect::kNvls: return 8e-6;
    case Interconnect::kNvlink: return 10e-6;
    case Interconnect::kPcie: return 25e-6;
    case Interconnect::kXgmi: return 15e-6;
  }
  return 10e-6;
}

ExpertParallelLinks LinksOf(const GpuSpec& gpu, double link_bytes_per_s) {
  ExpertParallelLinks links;
  links.nvlink_bytes_per_s = gpu.nvlink_bytes_per_s > 0 ? gpu.nvlink_bytes_per_s : link_bytes_per_s;
  if (gpu.nvlink_domain_gpus > 0) links.domain_gpus = gpu.nvlink_domain_gpus;
  links.nic_bytes_per_s = gpu.nic_bytes_per_s > 0 ? gpu.nic_bytes_per_s : 400e9 / 8;
  links.latency_s = AllReduceLatencySeconds(gpu.interconnect);
  return links;
}

}  // namespace kvsim
