// What vLLM's start-up profile run spends on a multimodal model's encoder (issue 16). vLLM v1
// (vllm/v1/worker/gpu_model_runner.py profile_run, v0.11 line) runs the encoder on the largest
// dummy inputs the limits allow before the language model's dummy forward, and keeps the encoder
// outputs in its encoder cache while the language model runs; the peak torch memory it measures
// sets the KV budget.
//
//   items        = min(limit per prompt x max_num_seqs, encoder budget // tokens per item), at least 1,
//                  encoder budget = max(max_num_batched_tokens, tokens per item)
//                  (vllm/v1/core/encoder_cache_manager.py compute_encoder_budget)
//   encoder peak = items x patches per item x max(6 Hv, 2 Hv + 2 Iv / tp) x act bytes
//                  (one ViT layer live at a time: residual, norm, q/k/v and output at attention;
//                  residual, norm, MLP input and activation at the MLP, its width split by TP)
//   outputs      = items x tokens per item x LM hidden x act bytes x (1 + deepstack levels)
//   profile peak = max(encoder peak, LM activation peak + outputs)
// The capacity breakdown shows profile peak - LM activation peak as its own line. Video inputs are
// sized like the largest image; --limit-mm-per-prompt with every modality at 0, or
// --skip-mm-profiling, leaves the encoder out, as vLLM does.
#ifndef KVSIM_KVCACHE_BUDGET_ENCODER_BUDGET_H_
#define KVSIM_KVCACHE_BUDGET_ENCODER_BUDGET_H_

#include <cstdint>

#include "kvcache/budget/deployment.h"
#include "kvcache/model/model_spec.h"

namespace kvsim {

struct EncoderProfile {
  int64_t items = 0;             // dummy images (or videos) the profile encodes at once
  int64_t tokens_per_item = 0;
  double encoder_peak_bytes = 0;
  double outputs_bytes = 0;
  double extra_bytes = 0;        // what the encoder adds to the profile's peak
};

EncoderProfile EstimateEncoderProfile(const ModelSpec& spec, const MultimodalSettings& mm, int64_t max_num_batched_tokens,
                                      int64_t max_num_seqs, double activation_bytes, int tp,
                                      double lm_activation_peak_bytes);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_ENCODER_BUDGET_H_
