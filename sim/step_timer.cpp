#include "sim/step_timer.h"

#include <algorithm>
#include <cmath>

#include "kvcache/model/weight_tensors.h"

namespace kvsim {
namespace {

// Per-direction link bandwidth an all-reduce achieves (GB/s = 10^9 B/s).
double LinkBytesPerSecond(Interconnect i) {
  switch (i) {
    case Interconnect::kNvls: return 450e9;
    case Interconnect::kNvlink: return 300e9;
    case Interconnect::kPcie: return 25e9;
    case Interconnect::kXgmi: return 300e9;
  }
  return 300e9;
}

}  // namespace

StepTimer::StepTimer(const ModelSpec& spec, const CapacityResult& cap, const GpuSpec& gpu, const StepTimerOptions& o) {
  if (o.fixed_step_ms > 0) {
    fixed_ns_ = static_cast<int64_t>(std::llround(o.fixed_step_ms * 1e6));
    return;
  }
  const int tp = cap.settings.tensor_parallel_size, pp = cap.settings.pipeline_parallel_size;
  const bool fp8 = cap.settings.quantization == "fp8" && gpu.fp8_dense_tflops > 0;
  // GPUs without a bf16 figure (T4, V100) get a conservative 65 TFLOPS fp16 fallback.
  peak_flops_ = (fp8 ? gpu.fp8_dense_tflops : gpu.bf16_dense_tflops > 0 ? gpu.bf16_dense_tflops : 65.0) * 1e12;
  bandwidth_ = gpu.mem_bandwidth_bytes_per_s > 0 ? gpu.mem_bandwidth_bytes_per_s : 1e12;
  compute_eff_ = o.compute_efficiency;
  memory_eff_ = o.memory_efficiency;
  overhead_ns_ = o.step_overhead_ms * 1e6;
  active_params_ = static_cast<double>(cap.active_params) / (tp * pp);
  // Split the weights read per step into the always-read part and the routed experts.
  double expert_params = 0;
  for (const WeightTensor& t : EnumerateWeights(spec))
    if (t.role == WeightRole::kExpert) expert_params += static_cast<double>(t.elements());
  const double total_params = static_cast<double>(cap.params);
  const double expert_share = total_params > 0 ? expert_params / total_params : 0.0;
  expert_weight_bytes_ = cap.weights_bytes * expert_share;
  dense_weight_bytes_ = cap.weights_bytes - expert_weight_bytes_;
  experts_ = static_cast<double>(spec.moe.num_experts);
  top_k_ = static_cast<double>(spec.moe.experts_per_token);
  kv_bytes_per_token_ = cap.kv_bytes_per_token;
  const double q_width = static_cast<double>(spec.num_attention_heads * spec.head_dim) / tp;
  attn_flops_per_pair_ = 4.0 * static_cast<double>(spec.kv_layers()) / pp * q_width;  // QK^T and AV over KV layers
  if (tp > 1) {
    const double link = o.link_bytes_per_s > 0 ? o.link_bytes_per_s : LinkBytesPerSecond(gpu.interconnect);
    const double layers = static_cast<double>(spec.num_layers) / pp;
    allreduce_fixed_ns_ = 2 * layers * o.allreduce_latency_us * 1e3;
    allreduce_ns_per_token_ = 2 * layers * 2.0 * (tp - 1) / tp * static_cast<double>(spec.hidden_size) * 2.0 /
                              link * 1e9;
  }
}

int64_t StepTimer::StepNs(const StepWork& w) const {
  if (fixed_ns_ > 0) return fixed_ns_;
  const double tokens = static_cast<double>(w.new_tokens);
  const double flops = 2.0 * active_params_ * tokens + attn_flops_per_pair_ * static_cast<double>(w.attended);
  const double expert_fraction = experts_ > 0 ? std::min(1.0, tokens * top_k_ / experts_) : 0.0;
  const double bytes = dense_weight_bytes_ + expert_weight_bytes_ * expert_fraction +
                       kv_bytes_per_token_ * static_cast<double>(w.context_tokens + w.new_tokens);
  const double t = std::max(flops / (peak_flops_ * compute_eff_), bytes / (bandwidth_ * memory_eff_)) * 1e9 +
                   overhead_ns_ + (w.new_tokens > 0 ? allreduce_fixed_ns_ + allreduce_ns_per_token_ * tokens : 0.0);
  return std::max<int64_t>(1, static_cast<int64_t>(std::llround(t)));
}

}  // namespace kvsim
