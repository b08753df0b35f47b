// The shapes of a multimodal model's vision encoder that size vLLM's encoder profile run:
// the ViT's width, MLP width and depth, and the most tokens the HF processor makes of one image at
// its default limits. Read from config.json's vision_config; the per-family image limits are the
// processors' defaults (Qwen2-VL/2.5-VL: max_pixels 12,845,056 = 16,384 merged 28x28 cells;
// Qwen3-VL: longest_edge 16,777,216 = 16,384 merged 32x32 cells; Llama 4: 336-px tiles, up to 16
// plus a global one, pixel shuffle 0.5; Gemma 3: one 896-px SigLIP crop, 256 tokens; LLaVA: one
// CLIP image, image_size / patch_size squared patches; LLaVA-NeXT: the image_grid_pinpoints
// resolution with the most tokens, tiled into CLIP crops plus the base image).
#ifndef KVSIM_KVCACHE_MODEL_VISION_SPEC_H_
#define KVSIM_KVCACHE_MODEL_VISION_SPEC_H_

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace kvsim {

struct VisionSpec {
  int64_t hidden_size = 0;
  int64_t intermediate_size = 0;
  int64_t depth = 0;
  int64_t patch_size = 14;
  int64_t merge_size = 1;             // patches merged into one LM token per side (Qwen-VL: 2)
  int64_t out_hidden_size = 0;        // width of one encoder output token (the LM's hidden size)
  int64_t deepstack_levels = 0;       // Qwen3-VL keeps this many more feature levels per token
  int64_t temporal_patch_size = 1;    // frames one ViT patch spans (Qwen-VL: 2)
  int64_t video_cells = 0;            // Qwen3-VL: the video processor's pixel budget over all frames, in
                                      // merged cells (size.longest_edge 25,165,824 / 32^2 = 24,576)
  int64_t max_patches_per_image = 0;  // ViT positions of the largest image the processor makes
  int64_t max_tokens_per_image = 0;   // LM tokens of that image
  bool pixels_capped = false;         // Qwen-VL: --mm-processor-kwargs max_pixels applies
  bool present() const { return depth > 0 && hidden_size > 0 && max_patches_per_image > 0; }
};

// `root` is the whole config.json (LLaVA-NeXT keeps image_grid_pinpoints there), `model_type` the
// top-level one (qwen3_vl_moe, llama4, gemma3, llava, llava_next, ...). Absent or unknown encoders
// give a VisionSpec that is not present().
VisionSpec ReadVisionSpec(const nlohmann::json& root, const nlohmann::json& vision_config, const std::string& model_type,
                          int64_t text_hidden);

// The same for a --mm-processor-kwargs max_pixels on Qwen-VL processors.
VisionSpec WithMaxPixels(VisionSpec v, int64_t max_pixels);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_MODEL_VISION_SPEC_H_
