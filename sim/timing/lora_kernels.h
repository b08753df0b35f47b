// The time vLLM's punica kernels add to a step that runs requests on LoRA adapters (the v0.11 line;
// the early return read on main at 00bd1493:
// lora/punica_wrapper/punica_gpu.py add_lora_linear -> lora/ops/triton_ops/lora_shrink_op.py and
// lora_expand_op.py). For every wrapped module of every layer (qkv, o, gate_up, down; the embedding
// and lm_head), two launches:
//   shrink   x [T x in] · A^T of each slice -> fp32 buffer [slices x T x rank]
//   expand   buffer · B^T of each slice, added into the module's output [T x out]
// T is the tokens of requests on an adapter (lm_head: their sampled rows): the kernels' grid covers
// the whole batch for each active adapter, but a block only computes its own adapter's tokens.
// When no request of the step has an adapter, the kernels return before launching
// (no_lora_flag_cpu), so such a step costs nothing here. The shrink first zeroes its buffer for the
// whole batch. Each active adapter's A and B are read once per launch, at max_lora_rank (the
// stacked buffers' width). At small rank the kernels are memory bound: each is timed as the
// slower of its bytes over HBM (gemm_memory of the bandwidth) and its FLOPs at gemm_compute of the
// dense peak, plus one non-GEMM kernel floor (kernel_efficiency.h), as the step model times the
// small kernels of a layer.
#ifndef KVSIM_SIM_TIMING_LORA_KERNELS_H_
#define KVSIM_SIM_TIMING_LORA_KERNELS_H_

#include <cstdint>
#include <vector>

#include "kvcache/budget/lora_memory.h"

namespace kvsim {

struct LoraDevice {
  double peak_flops = 0;         // dense 16-bit tensor peak, FLOP/s
  double hbm_bytes_per_s = 0;
  double compute_efficiency = 0.75;
  double memory_efficiency = 0.80;
  double floor_s = 3e-6;         // one launch
};

// What the LoRA kernels of one step work on.
struct LoraStepWork {
  int64_t lora_tokens = 0;   // tokens of requests on an adapter
  int64_t lora_rows = 0;     // of them sampled (lm_head rows)
  int64_t batch_tokens = 0;  // every token of the step (the zeroed buffer)
  int64_t adapters = 0;      // distinct adapters among them
};

class LoraKernelTimer {
 public:
  // `activation_bytes`: the model's compute element size; `lora_bytes`: the adapters' (--lora-dtype).
  LoraKernelTimer(std::vector<LoraKernelShape> shapes, const LoraDevice& device, double activation_bytes, double lora_bytes);
  // Seconds; 0 when no token is on an adapter.
  double Seconds(const LoraStepWork& w) const;
  int64_t Ns(const LoraStepWork& w) const;
  const std::vector<LoraKernelShape>& shapes() const { return shapes_; }

 private:
  double Kernel(double flops, double bytes) const;
  std::vector<LoraKernelShape> shapes_;
  LoraDevice d_;
  double act_ = 2, lora_ = 2;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_TIMING_LORA_KERNELS_H_
