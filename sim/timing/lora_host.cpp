#include "sim/timing/lora_host.h"

#include <algorithm>

#include "kvcache/base/check.h"

namespace kvsim {

LoraHostTimer::LoraHostTimer(const std::vector<LoraKernelShape>& shapes, const LoraHostCosts& costs) : c_(costs) {
  for (const LoraKernelShape& k : shapes) {
    int64_t triton = 0, torch = 0;
    if (k.gather) {
      triton = 1;  // the expand; A is looked up by F.embedding
      torch = 1;
    } else if (c_.per_slice_kernels && !k.per_sequence) {
      triton = 2 * k.slices;
      torch = k.slices;  // a zeroed fp32 buffer per slice
    } else {
      triton = 2;  // shrink and expand over every slice
      torch = 1;   // the shrink zeroes its output
    }
    triton_launches_ += k.layers * triton;
    torch_launches_ += k.layers * torch;
  }
  launch_s_ = static_cast<double>(triton_launches_) * c_.triton_launch_s + static_cast<double>(torch_launches_) * c_.torch_launch_s;
}

double LoraHostTimer::MetadataSeconds(int64_t batch_tokens) const {
  return static_cast<double>(kMetadataOps) * c_.torch_launch_s + static_cast<double>(batch_tokens) * c_.per_token_s;
}

bool LoraHostTimer::LaunchesFromCpu(const LoraHostStep& s) const {
  if (c_.eager) return true;
  if (!s.decode_only) return c_.prefill_from_cpu;
  return s.sequences > c_.max_graph_sequences;
}

double LoraHostTimer::AddedSeconds(double base_s, double kernel_s, const LoraHostStep& s) const {
  KVSIM_DCHECK(base_s >= 0 && kernel_s >= 0);
  const double metadata = MetadataSeconds(s.batch_tokens);
  if (!LaunchesFromCpu(s)) return kernel_s + metadata;
  // The base step lasts its exposed host time plus the longer of its GPU work and its launches; the
  // GPU time beyond the launches is what the CPU has in hand for LoRA's (an upper bound on the GPU
  // time when the base step is launch bound, where the result is exact whenever the LoRA launches
  // outlast the LoRA kernels).
  const double busy = std::max(0.0, base_s - c_.base_exposed_host_s);
  const double in_hand = std::max(0.0, busy - c_.base_launch_s);
  return metadata + std::max(kernel_s, launch_s_ - in_hand);
}

}  // namespace kvsim
