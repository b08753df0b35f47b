// The collective rates of a GPU's interconnect, shared by the TP all-reduce and the expert-parallel
// all-to-all: bandwidth per direction and the small-message latency of one call.
#ifndef KVSIM_SIM_TIMING_LINK_RATES_H_
#define KVSIM_SIM_TIMING_LINK_RATES_H_

#include "kvcache/model/gpu_catalog.h"
#include "sim/timing/expert_parallel.h"

namespace kvsim {

// All-reduce bandwidth per direction by interconnect (vLLM's custom all-reduce on NVLink, NCCL rings
// on PCIe).
double LinkBytesPerSecond(Interconnect i);
// Per-call latency by interconnect: typical small-message figures of nccl-tests.
double AllReduceLatencySeconds(Interconnect i);

// The links `gpu`'s all-to-all runs over: its NVLink rate and domain and NIC from the GPU table,
// else `link_bytes_per_s` inside a domain of 8 and a 400 Gb/s NIC (ConnectX-7, the HGX H100/H200/
// B200 reference systems); the latency of its interconnect.
ExpertParallelLinks LinksOf(const GpuSpec& gpu, double link_bytes_per_s);

}  // namespace kvsim

#endif  // KVSIM_SIM_TIMING_LINK_RATES_H_
