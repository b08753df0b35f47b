#include "kvcache/base/text_format.h"
#include "kvcache/model/vision_spec.h"

#include <algorithm>

#include "kvcache/base/error.h"
#include "kvcache/model/config_field_reader.h"

namespace kvsim {
namespace {


}  // namespace

VisionSpec ReadVisionSpec(const nlohmann::json& root, const nlohmann::json& vc, const std::string& model_type,
                          int64_t text_hidden) {
  VisionSpec v;
  FieldReader r(vc, "", "vision_config.");
  v.hidden_size = r.Optional({"hidden_size", "embed_dim", "width"}, 0);
  v.depth = r.Optional({"depth", "num_hidden_layers", "layers"}, 0);
  v.intermediate_size = r.Optional({"intermediate_size", "mlp_dim"}, 4 * v.hidden_size);
  v.patch_size = r.Optional({"patch_size"}, 14);
  // Image and video token counts divide by the patch (and merge) size.
  if (v.patch_size < 1) throw Error("vision_config.patch_size: " + std::to_string(v.patch_size) + " must be at least 1");
  v.out_hidden_size = r.Optional({"out_hidden_size"}, text_hidden);
  // Qwen3.5 runs Qwen3-VL's vision transformer and processor (vLLM's qwen3_5.py builds
  // Qwen3_VisionTransformer and reuses Qwen3-VL's processing info).
  const bool qwen3_tower = StartsWith(model_type, "qwen3_vl") || StartsWith(model_type, "qwen3_5");
  if (StartsWith(model_type, "qwen2_vl") || StartsWith(model_type, "qwen2_5_vl") || qwen3_tower) {
    v.merge_size = r.Optional({"spatial_merge_size"}, 2);
    if (v.merge_size < 1)
      throw Error("vision_config.spatial_merge_size: " + std::to_string(v.merge_size) + " must be at least 1");
    const bool qwen3 = qwen3_tower;
    const int64_t cell = v.patch_size * v.merge_size;
    const int64_t max_pixels = qwen3 ? 16777216 : 12845056;
    v.max_tokens_per_image = max_pixels / (cell * cell);
    v.max_patches_per_image = v.max_tokens_per_image * v.merge_size * v.merge_size;
    v.temporal_patch_size = r.Optional({"temporal_patch_size"}, 2);
    if (qwen3) v.video_cells = 25165824 / (cell * cell);
    if (auto d = vc.find("deepstack_visual_indexes"); d != vc.end() && d->is_array())
      v.deepstack_levels = static_cast<int64_t>(d->size());
    v.pixels_capped = true;
  } else if (StartsWith(model_type, "llama4")) {
    const int64_t image = r.Optional({"image_size"}, 336);
    const int64_t per_tile = (image / v.patch_size) * (image / v.patch_size);
    v.max_patches_per_image = 17 * per_tile;         // 16 tiles + the global view
    v.max_tokens_per_image = 17 * per_tile / 4;      // pixel shuffle 0.5 on each side
    v.out_hidden_size = text_hidden;
  } else if (model_type == "llava_next") {
    // vllm/model_executor/models/llava_next.py get_num_image_tokens: the base image's (S/p)^2 features
    // (CLS dropped by the "default" strategy), plus the best pinpoint's grid of (S/p) x (S/p) crops and
    // one newline token per feature row; the dummy image takes the pinpoint with the most. Each crop
    // and the base image run through CLIP with its CLS position.
    const int64_t image = r.Optional({"image_size"}, 336);
    const int64_t side = image / v.patch_size;
    v.max_tokens_per_image = side * side;
    v.max_patches_per_image = side * side + 1;
    if (auto pins = root.find("image_grid_pinpoints"); pins != root.end() && pins->is_array())
      for (const auto& pin : *pins) {
        if (!pin.is_array() || pin.size() != 2 || !pin[0].is_number_integer() || !pin[1].is_number_integer()) continue;
        const int64_t rows = pin[0].get<int64_t>() / image, cols = pin[1].get<int64_t>() / image;
        if (rows <= 0 || cols <= 0 || rows > 64 || cols > 64) continue;
        const int64_t tokens = rows * side * cols * side + rows * side + side * side;
        if (tokens > v.max_tokens_per_image) {
          v.max_tokens_per_image = tokens;
          v.max_patches_per_image = (rows * cols + 1) * (side * side + 1);
        }
      }
    v.out_hidden_size = text_hidden;
  } else if (StartsWith(model_type, "gemma3")) {
    const int64_t image = r.Optional({"image_size"}, 896);
    v.max_patches_per_image = (image / v.patch_size) * (image / v.patch_size);
    v.max_tokens_per_image = 256;                    // mm_tokens_per_image
    v.out_hidden_size = text_hidden;
  } else {
    const int64_t image = r.Optional({"image_size"}, 336);
    v.max_patches_per_image = (image / v.patch_size) * (image / v.patch_size);
    v.max_tokens_per_image = v.max_patches_per_image;
    v.out_hidden_size = text_hidden;
  }
  return v;
}

VisionSpec WithMaxPixels(VisionSpec v, int64_t max_pixels) {
  if (!v.pixels_capped || max_pixels <= 0) return v;
  const int64_t cell = v.patch_size * v.merge_size;
  v.max_tokens_per_image = std::max<int64_t>(1, max_pixels / (cell * cell));
  v.max_patches_per_image = v.max_tokens_per_image * v.merge_size * v.merge_size;
  return v;
}

}  // namespace kvsim
