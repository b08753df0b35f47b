#include "sim/timing/lora_kernels.h"

#include <algorithm>
#include <cmath>

namespace kvsim {

namespace {
constexpr double kBufferBytes = 4;  // the shrink's output buffer is fp32
}  // namespace

LoraKernelTimer::LoraKernelTimer(std::vector<LoraKernelShape> shapes, const LoraDevice& device, double activation_bytes,
                                 double lora_bytes, LoraKernelGrid grid)
    : shapes_(std::move(shapes)), d_(device), act_(activation_bytes), lora_(lora_bytes), grid_(grid) {}

double LoraKernelTimer::WeightReads(double tokens, double adapters, double sequences, int64_t block_m) const {
  if (grid_ == LoraKernelGrid::kPerSequence) return sequences;
  // sum over adapters of ceil(tokens_a / block_m): only the totals are known, so the fewest tiles
  // they allow (every adapter at least one, the tokens packed into full tiles).
  return std::max(adapters, std::ceil(tokens / static_cast<double>(block_m)));
}

double LoraKernelTimer::Kernel(double flops, double bytes, double launches) const {
  const double compute = flops / (d_.peak_flops * d_.compute_efficiency);
  const double memory = bytes / (d_.hbm_bytes_per_s * d_.memory_efficiency);
  return std::max(compute, memory) + launches * d_.floor_s;
}

double LoraKernelTimer::Seconds(const LoraStepWork& w) const {
  if (w.lora_tokens <= 0) return 0;
  double seconds = 0;
  for (const LoraKernelShape& k : shapes_) {
    const double t = static_cast<double>(k.per_sequence ? w.lora_rows : w.lora_tokens);
    if (t <= 0) continue;
    const double all = static_cast<double>(k.per_sequence ? w.lora_rows : w.batch_tokens);
    const double adapters = std::min(static_cast<double>(w.adapters), t);
    // Sequences on an adapter in this module's rows: lm_head's rows are one per sequence already.
    const double sequences = std::min(static_cast<double>(w.lora_rows), t);
    const double a_reads = WeightReads(t, adapters, sequences, kShrinkBlockM);
    const double b_reads = WeightReads(t, adapters, sequences, kExpandBlockM);
    // The <= 0.7 wrapper launches a shrink and an expand per slice; each slice reads its share.
    const double launches = grid_ == LoraKernelGrid::kPerSequence && !k.gather ? static_cast<double>(k.slices) : 1.0;
    const double slices = static_cast<double>(k.slices), rank = static_cast<double>(k.rank);
    const double a = static_cast<double>(k.a_elements), b = static_cast<double>(k.b_elements);
    double shrink = 0;
    if (k.gather) {
      // The embedding's A rows are looked up by token id: T rows of rank elements, no product.
      shrink = Kernel(0, t * rank * lora_ + t * rank * kBufferBytes, 1);
    } else {
      const double bytes = slices * t * static_cast<double>(k.in) * act_ + a_reads * a * lora_ +
                           slices * all * rank * kBufferBytes;
      shrink = Kernel(2 * t * a, bytes, launches);
    }
    const double expand_bytes =
        slices * t * rank * kBufferBytes + b_reads * b * lora_ + 2 * t * static_cast<double>(k.out_total) * act_;
    const double expand = Kernel(2 * t * b, expand_bytes, launches);
    seconds += static_cast<double>(k.layers) * (shrink + expand);
  }
  return seconds;
}

int64_t LoraKernelTimer::Ns(const LoraStepWork& w) const {
  const double s = Seconds(w);
  return s > 0 ? std::max<int64_t>(1, std::llround(s * 1e9)) : 0;
}

}  // namespace kvsim
