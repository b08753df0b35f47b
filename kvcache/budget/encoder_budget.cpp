#include "kvcache/budget/encoder_budget.h"

#include <algorithm>

namespace kvsim {

EncoderProfile EstimateEncoderProfile(const ModelSpec& spec, const MultimodalSettings& mm, int64_t max_num_batched_tokens,
                                      int64_t max_num_seqs, double act_bytes, int tp, double lm_peak) {
  EncoderProfile p;
  if (mm.skip_profiling) return p;
  const VisionSpec v = mm.max_pixels ? WithMaxPixels(spec.vision, *mm.max_pixels) : spec.vision;
  if (!v.present()) return p;
  // vLLM's default limit is one item per modality; a limit of 0 everywhere turns the encoder off.
  int64_t per_prompt = 1;
  if (!mm.limit_per_prompt.empty()) {
    per_prompt = 0;
    for (const auto& [modality, count] : mm.limit_per_prompt) per_prompt = std::max(per_prompt, count);
  }
  if (per_prompt == 0) return p;
  p.tokens_per_item = v.max_tokens_per_image;
  const int64_t budget = std::max(max_num_batched_tokens, p.tokens_per_item);
  p.items = std::max<int64_t>(1, std::min(per_prompt * max_num_seqs, budget / p.tokens_per_item));
  const double patches = static_cast<double>(p.items * v.max_patches_per_image);
  const double hv = static_cast<double>(v.hidden_size), iv = static_cast<double>(v.intermediate_size);
  p.encoder_peak_bytes = patches * std::max(6.0 * hv / tp, 2.0 * hv + 2.0 * iv / tp) * act_bytes;
  p.outputs_bytes = static_cast<double>(p.items * p.tokens_per_item) * static_cast<double>(v.out_hidden_size) *
                    act_bytes * static_cast<double>(1 + v.deepstack_levels);
  p.extra_bytes = std::max(p.encoder_peak_bytes, lm_peak + p.outputs_bytes) - lm_peak;
  return p;
}

}  // namespace kvsim
