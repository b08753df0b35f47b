#include "kvcache/budget/encoder_budget.h"

#include <algorithm>
#include <cmath>

#include "kvcache/budget/release_rules.h"

namespace kvsim {
namespace {

constexpr int64_t kImageChannels = 3;
constexpr double kTimestampTokensPerEmbed = 12.5;  // qwen3_vl.py get_max_video_tokens, 0.11-0.12

int64_t VideoTokens(int64_t cells, int64_t frames) {
  const auto side = std::max<int64_t>(1, static_cast<int64_t>(std::sqrt(static_cast<double>(cells / frames))));
  return (frames + 1) / 2 * side * side;
}

// --limit-mm-per-prompt for one modality; one item when not given (kvsim's reading of vLLM's default).
int64_t Limit(const MultimodalSettings& mm, const char* modality) {
  const auto it = mm.limit_per_prompt.find(modality);
  return it == mm.limit_per_prompt.end() ? 1 : it->second;
}

}  // namespace

int64_t QwenThreeVlVideoEmbeds(int64_t video_cells, int64_t max_model_len) {
  int64_t frames = 2;
  while (frames < video_cells && VideoTokens(video_cells, frames + 1) <= max_model_len) ++frames;
  return VideoTokens(video_cells, frames);
}

EncoderProfile EstimateEncoderProfile(const ModelSpec& spec, const MultimodalSettings& mm, const EncoderProfileSettings& s,
                                      double lm_peak) {
  EncoderProfile p;
  if (mm.skip_profiling) return p;
  const VisionSpec v = mm.max_pixels ? WithMaxPixels(spec.vision, *mm.max_pixels) : spec.vision;
  if (!v.present()) return p;
  // The largest item is an image unless the image limit is 0 (or, below, Qwen3-VL's 0.11 video wins).
  int64_t per_prompt = Limit(mm, "image");

  p.tokens_per_item = p.embeds_per_item = v.max_tokens_per_image;
  int64_t patches_per_item = v.max_patches_per_image;
  const bool placeholder_budget = HasRule(s.version, ReleaseRule::kEncoderPlaceholderBudget);
  if (v.video_cells > 0 && Limit(mm, "video") > 0 && (placeholder_budget || per_prompt == 0)) {
    const int64_t embeds = QwenThreeVlVideoEmbeds(v.video_cells, s.max_model_len);
    const auto placeholder = placeholder_budget ? static_cast<int64_t>(static_cast<double>(embeds) * kTimestampTokensPerEmbed)
                                                : embeds;
    if (placeholder > p.tokens_per_item || per_prompt == 0) {
      p.video = true;
      p.tokens_per_item = placeholder;
      p.embeds_per_item = embeds;
      patches_per_item = embeds * v.merge_size * v.merge_size;
      per_prompt = Limit(mm, "video");
    }
  }
  if (per_prompt == 0) return p;  // every modality off: vLLM skips the encoder
  const int64_t budget = std::max(s.max_num_batched_tokens, p.tokens_per_item);
  p.items = std::max<int64_t>(1, std::min(per_prompt * s.max_num_seqs, budget / p.tokens_per_item));
  const double patches = static_cast<double>(p.items * patches_per_item);
  const double b = s.activation_bytes;
  p.pixel_bytes = patches * static_cast<double>(kImageChannels * v.temporal_patch_size * v.patch_size * v.patch_size) * b;
  const double hv = static_cast<double>(v.hidden_size), iv = static_cast<double>(v.intermediate_size);
  p.encoder_peak_bytes = patches * std::max(6.0 * hv / s.tp, 2.0 * hv + 2.0 * iv / s.tp) * b;
  // When an item's embeddings fill less than its placeholder, 0.11-0.12 replace each dummy output by
  // a zero tensor of the placeholder's rows (PR #25810); the loop that builds them leaves its variable
  // on the last unpadded output, which so stays alive through the LM and sampler runs too
  // (vllm/v1/worker/gpu_model_runner.py profile_run). Later releases keep the embeddings only.
  const double row_bytes = static_cast<double>(v.out_hidden_size) * b * static_cast<double>(1 + v.deepstack_levels);
  const bool padded = placeholder_budget && p.tokens_per_item > p.embeds_per_item;
  p.outputs_bytes = padded ? (static_cast<double>(p.items * p.tokens_per_item) + static_cast<double>(p.embeds_per_item)) * row_bytes
                           : static_cast<double>(p.items * p.embeds_per_item) * row_bytes;
  p.extra_bytes = p.pixel_bytes + std::max(p.encoder_peak_bytes, lm_peak + p.outputs_bytes) - lm_peak;
  return p;
}

}  // namespace kvsim
