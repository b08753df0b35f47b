// How long one engine step takes. Either fixed (--step-time-ms) or a roofline:
//
//   t = max(flops / (peak_flops × compute_efficiency), bytes / (bandwidth × memory_efficiency))
//       + step_overhead + TP all-reduce
//   flops = 2 × active_params_per_gpu × tokens + 4 × layers × q_width_per_gpu × attended
//   bytes = weights read + KV read (context tokens × KV bytes/token) + KV written (new tokens)
//   weights read: dense weights once; MoE experts scaled by min(1, tokens × top_k / experts)
//   all-reduce = 2 per layer × (latency + 2·(tp−1)/tp × tokens × hidden × 2 B / link bandwidth)
// Peaks come from the GPU preset (bf16 dense, fp8 for fp8 weights; HBM bandwidth); the link
// bandwidth from its interconnect (per direction: NVLink 4 with NVSwitch 450 GB/s, NVLink 3
// 300 GB/s, PCIe 4.0 x16 25 GB/s achieved, Infinity Fabric 300 GB/s).
#ifndef KVSIM_SIM_STEP_TIMER_H_
#define KVSIM_SIM_STEP_TIMER_H_

#include <cstdint>

#include "kvcache/budget/capacity_planner.h"

namespace kvsim {

struct StepTimerOptions {
  double fixed_step_ms = 0;           // > 0: every step takes this long
  double compute_efficiency = 0.6;    // achieved / peak FLOPs
  double memory_efficiency = 0.8;     // achieved / peak bandwidth
  double step_overhead_ms = 1.0;      // scheduler, kernel launches, sampling
  double link_bytes_per_s = 0;        // per-GPU all-reduce bandwidth; 0: from the GPU's interconnect
  double allreduce_latency_us = 10;   // per all-reduce
};

// What one step computes, summed over the scheduled requests.
struct StepWork {
  int64_t new_tokens = 0;        // prefill chunk tokens + decode tokens
  int64_t context_tokens = 0;    // KV tokens read (each request's computed tokens before the step)
  int64_t attended = 0;          // Σ new_tokens_i × (context_i + new_tokens_i / 2): attention pairs
};

class StepTimer {
 public:
  StepTimer(const ModelSpec& spec, const CapacityResult& capacity, const GpuSpec& gpu, const StepTimerOptions& o);
  int64_t StepNs(const StepWork& work) const;
  bool fixed() const { return fixed_ns_ > 0; }
  double peak_tflops() const { return peak_flops_ / 1e12; }

 private:
  int64_t fixed_ns_ = 0;
  double peak_flops_ = 0, bandwidth_ = 0;
  double compute_eff_ = 0, memory_eff_ = 0;
  double overhead_ns_ = 0;
  double active_params_ = 0;       // per GPU
  double dense_weight_bytes_ = 0;  // per GPU, read every step
  double expert_weight_bytes_ = 0; // per GPU, read in proportion to the experts touched
  double experts_ = 0, top_k_ = 0;
  double kv_bytes_per_token_ = 0;
  double attn_flops_per_pair_ = 0;
  double allreduce_fixed_ns_ = 0, allreduce_ns_per_token_ = 0;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_STEP_TIMER_H_
