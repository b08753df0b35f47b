// What vLLM's start-up profile run spends on a multimodal model's encoder. vLLM v1
// (vllm/v1/worker/gpu_model_runner.py profile_run, v0.11 line) runs the encoder on the largest
// dummy inputs the limits allow before the language model's dummy forward, and keeps the encoder
// outputs in its encoder cache, and the batched dummy inputs in a local, while the language model
// and the sampler run; the peak torch memory it measures sets the KV budget.
//
//   items        = min(limit per prompt x max_num_seqs, encoder budget // tokens per item), at least 1,
//                  encoder budget = max(max_num_batched_tokens, tokens per item)
//                  (vllm/v1/core/encoder_cache_manager.py compute_encoder_budget)
//   pixels       = items x patches per item x 3 x temporal patch x patch^2 x act bytes (kept throughout)
//   encoder peak = items x patches per item x max(6 Hv / tp, 2 Hv + 2 Iv / tp) x act bytes
//                  (one ViT layer live at a time: residual, norm, q/k/v and output at attention;
//                  residual, norm, MLP input and activation at the MLP, its width split by TP)
//   outputs      = items x tokens per item x LM hidden x act bytes x (1 + deepstack levels)
//   profile peak = pixels + max(encoder peak, LM activation peak + outputs)
// The capacity breakdown shows profile peak - LM activation peak as its own line.
//
// The largest item is the modality with the most tokens. For Qwen3-VL on vLLM 0.11-0.12 that is a
// video (vllm/model_executor/models/qwen3_vl.py, Sep-Dec 2025): frames are added from 2 while one
// more stays within max_model_len, each frame resized so that all frames share the video
// processor's pixel budget (k = floor(sqrt(cells / frames)) cells a side, ceil(frames / 2) x k^2
// tokens, at most `cells` frames): 12,288 tokens past 16,200 of context, 12,100 below. The budget
// counts the placeholder with its timestamp tokens, 12.5 per embedding (153,600), and the dummy
// outputs are padded to it (PR #25810), the last unpadded one staying alive beside them. vLLM 0.13 (PR #30475) counts embeddings, so the 16,384-token
// image wins again. --limit-mm-per-prompt with every modality at 0, or --skip-mm-profiling, leaves the
// encoder out, as vLLM does.
#ifndef KVSIM_KVCACHE_BUDGET_ENCODER_BUDGET_H_
#define KVSIM_KVCACHE_BUDGET_ENCODER_BUDGET_H_

#include <cstdint>

#include "kvcache/budget/deployment.h"
#include "kvcache/budget/serving_engine.h"
#include "kvcache/model/model_spec.h"

namespace kvsim {

struct EncoderProfileSettings {
  int64_t max_num_batched_tokens = 8192;
  int64_t max_num_seqs = 256;
  int64_t max_model_len = 8192;
  double activation_bytes = 2;
  int tp = 1;
  VllmVersion version;
};

struct EncoderProfile {
  bool video = false;            // the largest item is a video (Qwen3-VL, vLLM 0.11-0.12)
  int64_t items = 0;             // dummy images (or videos) the profile encodes at once
  int64_t tokens_per_item = 0;   // what one item counts against the encoder budget
  int64_t embeds_per_item = 0;   // encoder output rows of one item
  double pixel_bytes = 0;
  double encoder_peak_bytes = 0;
  double outputs_bytes = 0;
  double extra_bytes = 0;        // what the encoder adds to the profile's peak
};

EncoderProfile EstimateEncoderProfile(const ModelSpec& spec, const MultimodalSettings& mm,
                                      const EncoderProfileSettings& settings, double lm_activation_peak_bytes);

// Qwen3-VL's dummy video on vLLM 0.11-0.12: LM tokens (embeddings) of the frames that fit.
int64_t QwenThreeVlVideoEmbeds(int64_t video_cells, int64_t max_model_len);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_ENCODER_BUDGET_H_
