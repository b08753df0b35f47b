#include "kvcache/model/model_config_parser.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "kvcache/model/config_field_reader.h"
#include "kvcache/base/checked_math.h"
#include "kvcache/base/error.h"
#include "kvcache/model/config_limits.h"
#include "kvcache/base/json_file.h"
#include "kvcache/base/text_format.h"
#include "kvcache/model/known_families.h"
#include "kvcache/model/model_families.h"
#include "kvcache/model/rope_scaling.h"
#include "kvcache/model/vision_spec.h"

namespace kvsim {
namespace {

using nlohmann::json;


// MoonViT (Kimi-VL, Kimi-K2.5: vision_config with vt_* fields), as vLLM's moonvit.py builds it: a
// patch convolution with bias, a learned height x width position table, blocks of LayerNorm,
// wqkv and wo with biases, an fc0/fc1 MLP with biases, a final LayerNorm; then the projector
// (kimi_vl.py KimiVLMultiModalProjector): LayerNorm(mm_hidden), Linear(m, m) and Linear(m, text_hidden)
// with biases, m = mm_hidden x the merge kernel's area.
double MoonVitParams(const FieldReader& r, const json& vision, int64_t text_hidden) {
  const double h = static_cast<double>(r.Optional({"vt_hidden_size"}, 0));
  const double layers = static_cast<double>(r.Optional({"vt_num_hidden_layers"}, 0));
  const double inter = static_cast<double>(r.Optional({"vt_intermediate_size"}, 4 * static_cast<int64_t>(h)));
  const double patch = static_cast<double>(r.Optional({"patch_size"}, 14));
  // Only the height x width table is learned; the time positions (init_pos_emb_time) are fixed.
  const double positions = static_cast<double>(r.Optional({"init_pos_emb_height"}, 64)) *
                           static_cast<double>(r.Optional({"init_pos_emb_width"}, 64));
  double merge_area = 4;
  if (auto mk = vision.find("merge_kernel_size"); mk != vision.end() && mk->is_array() && mk->size() == 2 &&
                                                  (*mk)[0].is_number_integer() && (*mk)[1].is_number_integer())
    merge_area = static_cast<double>((*mk)[0].get<int64_t>()) * static_cast<double>((*mk)[1].get<int64_t>());
  const double mm = static_cast<double>(r.Optional({"mm_hidden_size"}, static_cast<int64_t>(h)));
  const double m = mm * merge_area;
  const double text = static_cast<double>(text_hidden);
  const double block = 4 * h * h + 4 * h + 2 * h * inter + inter + h + 4 * h;
  return layers * block + 3 * patch * patch * h + h + positions * h + 2 * h + 2 * mm + m * m + m + m * text + text;
}

// GLM-4.xV's tower (vision_config model_type glm4v*_vision), as vLLM's glm4_1v.py builds it: a
// (temporal x patch x patch) convolution with bias, a learned table of (image_size / patch)^2 positions,
// blocks of two RMSNorms, qkv and proj without biases and a gated MLP as wide as out_hidden_size (the
// config's intermediate_size is the merger's), post-conv and post LayerNorms, a merge x merge
// downsampling convolution to out_hidden_size with bias, and the merger: proj [out, out], a LayerNorm
// with bias, and a gated MLP of intermediate_size.
double Glm4vTowerParams(const FieldReader& r) {
  const double h = static_cast<double>(r.Optional({"hidden_size"}, 0));
  const double depth = static_cast<double>(r.Optional({"depth"}, 0));
  const double out = static_cast<double>(r.Optional({"out_hidden_size"}, static_cast<int64_t>(h)));
  const double inter = static_cast<double>(r.Optional({"intermediate_size"}, static_cast<int64_t>(out)));
  const double patch = static_cast<double>(r.Optional({"patch_size"}, 14));
  const double temporal = static_cast<double>(r.Optional({"temporal_patch_size"}, 2));
  const double channels = static_cast<double>(r.Optional({"in_channels"}, 3));
  const double side = std::floor(static_cast<double>(r.Optional({"image_size"}, 336)) / patch);
  const double merge = static_cast<double>(r.Optional({"spatial_merge_size"}, 2));
  const double block = 4 * h * h + 3 * h * out + 2 * h;
  return depth * block + channels * temporal * patch * patch * h + h + side * side * h + 2 * h +
         out * h * merge * merge + out + out * out + 2 * out + 3 * out * inter;
}

// Rough parameter count of a ViT-style vision encoder plus its projector. Multimodal checkpoints
// carry one; its weights count towards memory though kvsim does not model image traffic.
int64_t EstimateVisionParams(const json& vision, int64_t text_hidden, const std::string& source) {
  FieldReader r(vision, source, "vision_config.");
  if (StartsWith(r.String("model_type", ""), "glm4v"))
    return RoundToInt64OrThrow(Glm4vTowerParams(r), 0, static_cast<int64_t>(kMaxModelParameters),
                               source + ": vision_config: estimated vision parameters");
  if (r.Has("vt_hidden_size") && r.Has("vt_num_hidden_layers"))
    return RoundToInt64OrThrow(MoonVitParams(r, vision, text_hidden), 0, static_cast<int64_t>(kMaxModelParameters),
                               source + ": vision_config: estimated vision parameters");
  const int64_t h = r.Optional({"hidden_size", "embed_dim", "width"}, 0);
  const int64_t layers = r.Optional({"num_hidden_layers", "depth", "layers"}, 0);
  if (h == 0 || layers == 0) return 0;
  // In doubles: the fields are range-checked, but their products can still pass 2^63.
  const double hd = static_cast<double>(h);
  const double inter = static_cast<double>(r.Optional({"intermediate_size", "mlp_dim"}, 4 * h));
  const double patch = static_cast<double>(r.Optional({"patch_size"}, 14));
  const double channels = static_cast<double>(r.Optional({"num_channels", "in_channels", "in_chans"}, 3));
  const double image = static_cast<double>(r.Optional({"image_size"}, 0));
  const double out = static_cast<double>(r.Optional({"out_hidden_size", "vision_output_dim", "projection_dim"}, h));
  const double per_layer = 4 * hd * hd + 4 * hd + 2 * hd * inter + inter + hd + 4 * hd;
  if (vision.contains("spatial_merge_size")) {
    // Qwen-VL towers: a (temporal x patch x patch) patch embedding, a learned position table (Qwen3),
    // and patch mergers of merge^2 neighbours -- LayerNorm, Linear(m, m), Linear(m, out) with
    // m = merge^2 x hidden -- one, plus one per deepstack level (Qwen3-VL).
    const double merge = static_cast<double>(r.Optional({"spatial_merge_size"}, 2));
    const double temporal = static_cast<double>(r.Optional({"temporal_patch_size"}, 2));
    const double m = merge * merge * hd;
    const auto ds = vision.find("deepstack_visual_indexes");
    const double mergers = 1 + (ds != vision.end() && ds->is_array() ? static_cast<double>(ds->size()) : 0);
    // Qwen2.5-VL's vision MLP is gated (silu: gate, up, down); Qwen2-VL's and Qwen3-VL's are fc1/fc2.
    const double gate = r.String("hidden_act", "") == "silu" ? hd * inter + inter : 0;
    double total = static_cast<double>(layers) * (per_layer + gate) + channels * temporal * patch * patch * hd + hd;
    total += static_cast<double>(r.Optional({"num_position_embeddings"}, 0)) * hd;
    total += mergers * (2 * m + m * m + m + m * out + out);
    return RoundToInt64OrThrow(total, 0, static_cast<int64_t>(kMaxModelParameters),
                               source + ": vision_config: estimated vision parameters");
  }
  double total = static_cast<double>(layers) * per_layer + channels * patch * patch * hd + 2 * hd;
  if (image > 0) total += std::floor(image / patch) * std::floor(image / patch) * hd;
  total += out * static_cast<double>(text_hidden) + static_cast<double>(text_hidden);  // projector
  if (out != hd) total += hd * out;
  return RoundToInt64OrThrow(total, 0, static_cast<int64_t>(kMaxModelParameters),
                             source + ": vision_config: estimated vision parameters");
}

// The sizes every decoder has: hidden size, layers, heads, vocabulary, positions, MLP width, head_dim and
// Fields a reader found required but absent, named in one error.
void ThrowIfMissing(const FieldReader& r, const std::string& type, const std::string& source) {
  if (r.missing().empty()) return;
  std::string list;
  for (const auto& m : r.missing()) list += (list.empty() ? "" : ", ") + m;
  throw Error(source + ": model_type '" + type + "' is missing required field(s): " + list);
}

// KV heads. Missing fields are collected so one error names them all.
void ReadCoreShape(FieldReader& r, const std::string& type, const std::string& source, const std::string& prefix,
                   ModelSpec& spec) {
  spec.hidden_size = r.Required({"hidden_size", "n_embd", "d_model"});
  spec.num_layers = r.Required({"num_hidden_layers", "n_layer", "num_layers"});
  spec.num_attention_heads = r.Required({"num_attention_heads", "n_head", "num_heads"});
  spec.vocab_size = r.Required({"vocab_size", "padded_vocab_size"});
  spec.draft_vocab_size = r.Optional({"draft_vocab_size"}, 0);
  // Qwen3-Next checkpoints ship one MTP layer (mtp.*) without naming it in config.json; vLLM's
  // qwen3_next_mtp.py reads num_nextn_predict_layers with 1 as the default.
  spec.mtp_layers = r.Optional({"num_nextn_predict_layers", "mtp_num_hidden_layers"}, type == "qwen3_next" ? 1 : 0);
  if (const int64_t fallback = DefaultMaxPositions(type); fallback > 0)
    spec.max_position_embeddings = r.Optional({"max_position_embeddings", "n_positions", "max_seq_len"}, fallback);
  else
    spec.max_position_embeddings =
        r.Required({"max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "max_sequence_length"});
  if (type == "opt") {
    spec.intermediate_size = r.Required({"ffn_dim"});
  } else if (StartsWith(type, "qwen3_5_moe")) {
    // Qwen3.5-MoE configs state no dense width: every layer is MoE unless mlp_only_layers names it,
    // and ReadMoe refuses such a layer without one.
    spec.intermediate_size = r.Optional({"intermediate_size"}, 0);
  } else if (const int64_t fallback = DefaultIntermediateSize(type, spec.hidden_size); fallback > 0) {
    spec.intermediate_size = r.Optional({"intermediate_size", "ffn_hidden_size", "n_inner"}, fallback);
  } else {
    spec.intermediate_size = r.Required({"intermediate_size", "ffn_hidden_size", "n_inner"});
  }
  ThrowIfMissing(r, type, source);
  if (spec.hidden_size % spec.num_attention_heads != 0 && !r.Has("head_dim"))
    throw Error(source + ": " + prefix + "head_dim: missing and hidden_size " + std::to_string(spec.hidden_size) +
                " is not divisible by num_attention_heads " + std::to_string(spec.num_attention_heads));
  spec.head_dim = r.Optional({"head_dim"}, spec.hidden_size / spec.num_attention_heads);
  spec.num_kv_heads = r.Optional({"num_key_value_heads", "num_kv_heads", "n_head_kv"},
                                 r.Bool("multi_query", false) ? 1 : spec.num_attention_heads);
  ReadFamilyKvHeads(r, type, spec);
  if (spec.num_kv_heads <= 0 || spec.num_attention_heads % spec.num_kv_heads != 0)
    throw Error(source + ": " + prefix + "num_key_value_heads: " + std::to_string(spec.num_kv_heads) +
                " does not divide num_attention_heads " + std::to_string(spec.num_attention_heads));
}

// Weights' dtype and the checkpoint's quantization, which set the bytes per parameter.
void ReadDtypes(const FieldReader& r, const json& text, const std::string& source, const std::string& prefix,
                ModelSpec& spec) {
  // transformers 4.56 renamed torch_dtype to dtype (the old name still read); a config may state either.
  const std::string torch_dtype = r.String("torch_dtype", ""), dtype = r.String("dtype", "");
  if (!torch_dtype.empty() && !dtype.empty() && ParseNumericFormat(torch_dtype) != ParseNumericFormat(dtype))
    throw Error(source + ": " + prefix + "dtype '" + dtype + "' and torch_dtype '" + torch_dtype +
                "' disagree (torch_dtype is the older name of dtype); give one");
  const char* key = !torch_dtype.empty() ? "torch_dtype" : "dtype";
  const std::string dtype_text = !torch_dtype.empty() ? torch_dtype : !dtype.empty() ? dtype : "bfloat16";
  if (auto fmt = ParseNumericFormat(dtype_text); fmt && (*fmt == NumericFormat::kFloat32 ||
      *fmt == NumericFormat::kFloat16 || *fmt == NumericFormat::kBFloat16)) {
    spec.dtype = *fmt;
  } else {
    throw Error(source + ": " + prefix + key + ": '" + dtype_text + "' is not float32, float16 or bfloat16");
  }
  if (auto qc = text.find("quantization_config"); qc != text.end() && !qc->is_null())
    spec.checkpoint_quantization = ParseQuantizationConfig(*qc, source);
}

// The first of `keys` present (families name the same probability differently); 0 when none is.
double FirstNumber(const FieldReader& r, std::initializer_list<const char*> keys) {
  for (const char* key : keys)
    if (r.Has(key)) return r.Number(key, 0.0);
  return 0.0;
}

void ReadDropout(const FieldReader& r, ModelSpec& spec) {
  spec.attention_dropout = FirstNumber(r, {"attention_dropout", "attn_pdrop", "attention_probs_dropout_prob"});
  spec.hidden_dropout = FirstNumber(r, {"hidden_dropout", "resid_pdrop", "hidden_dropout_prob"});
}


// An upper bound of the weights' parameter count, in doubles. Each field is range-checked, but
// their products are not: bounding the total keeps every int64 sum and product of parameters,
// bytes and tokens downstream far from overflow.
void CheckParameterBound(const ModelSpec& spec, const std::string& source) {
  const double h = static_cast<double>(spec.hidden_size);
  const double heads = static_cast<double>(spec.num_attention_heads);
  const double hd = static_cast<double>(spec.head_dim);
  double attention = h * hd * (2 * heads + 2 * static_cast<double>(spec.num_kv_heads));
  if (spec.has_mla) {
    const MlaSpec& m = spec.mla;
    const double q_in = static_cast<double>(std::max(m.q_lora_rank, spec.hidden_size));
    attention += heads * static_cast<double>(m.qk_nope_head_dim + m.qk_rope_head_dim) * q_in +
                 static_cast<double>(m.kv_lora_rank) * heads * static_cast<double>(m.qk_nope_head_dim + m.v_head_dim) +
                 h * static_cast<double>(m.kv_lora_rank + m.qk_rope_head_dim) + heads * static_cast<double>(m.v_head_dim) * h +
                 static_cast<double>(m.indexer_heads) * static_cast<double>(m.indexer_head_dim) * q_in;
  }
  const double widest = static_cast<double>(std::max({spec.intermediate_size, spec.moe.expert_intermediate_size,
                                                      spec.moe.dense_intermediate_size}));
  const double mlp = 3 * h * (widest * static_cast<double>(spec.moe.num_experts + 1) +
                              static_cast<double>(spec.moe.shared_intermediate_size));
  const double total = static_cast<double>(spec.num_layers) * (attention + mlp) +
                       2 * static_cast<double>(spec.vocab_size) * h + static_cast<double>(spec.vision_params);
  if (!(total <= kMaxModelParameters))
    throw Error(source + ": the fields describe about " + Format("%.3g", total) +
                " parameters, over kvsim's limit of 1e15 (check num_hidden_layers, hidden_size, "
                "intermediate_size, vocab_size and the expert counts)");
}

ModelSpec ParseModelConfigFields(const json& root, const std::string& source) {
  if (!root.is_object()) throw Error(source + ": expected a JSON object at the top level");
  ModelSpec spec;
  spec.name = source;
  const FieldReader top(root, source, "");
  if (const std::vector<std::string> names = top.Names("architectures"); !names.empty()) spec.architecture = names[0];
  const std::string top_type = top.String("model_type", "");

  // Multimodal wrappers keep the language model in text_config.
  json text = root;
  std::string prefix;
  // A text_config that is not an object (a string, a list) would be read past as if absent.
  if (top.Object("text_config") != nullptr) {
    const auto tc = root.find("text_config");
    text = *tc;
    prefix = "text_config.";
    FillConfigClassDefaults(text, top_type);
    // The wrapper's dtype (either spelling) stands for the language model's unless text_config states one.
    const bool text_dtype = text.contains("torch_dtype") || text.contains("dtype");
    for (const char* key : {"tie_word_embeddings", "torch_dtype", "dtype", "quantization_config"}) {
      const bool is_dtype = std::string_view(key) == "torch_dtype" || std::string_view(key) == "dtype";
      if (!text.contains(key) && root.contains(key) && !(is_dtype && text_dtype)) text[key] = root[key];
    }
  }
  FillDepthFromBlockList(text);
  FieldReader r(text, source, prefix);
  const std::string type = r.String("model_type", top_type.empty() ? "unknown" : top_type);
  spec.model_type = type;
  RequireKnownModelFamily(type, spec.architecture, source);

  ReadCoreShape(r, type, source, prefix, spec);

  spec.tie_word_embeddings = r.Bool("tie_word_embeddings", TiesEmbeddingsByDefault(type));
  if (!r.Has("tie_word_embeddings") && TiesEmbeddingsByDefault(type))
    spec.notes.push_back("tie_word_embeddings absent: " + type + " ties them by default");

  ReadFamilyShape(r, type, spec);
  ReadMoe(r, type, spec);
  ReadMla(r, type, spec);
  ThrowIfMissing(r, type, source);  // an MLA config without its ranks and head widths
  ReadLayerAttention(r, type, spec);
  ReadDropout(r, spec);

  if (spec.attention_layers() == 0)
    throw Error(source + ": model_type '" + type + "' has no attention layers; kvsim models KV caches of attention layers");
  const int64_t state_only = std::count_if(spec.layers.begin(), spec.layers.end(), [](const LayerAttention& l) {
    return l.has_mixer && l.kind == AttentionKind::kStateOnly;
  });
  if (state_only > 0)
    spec.notes.push_back(std::to_string(state_only) + " of " + std::to_string(spec.num_layers) +
                         " layers are linear-attention/SSM: " +
                         (spec.state.formula != StateLayerFormula::kNone
                              ? std::string("each keeps one fixed-size state page per request (vLLM's MambaSpec)")
                              : "the KV cache covers the other " + std::to_string(spec.attention_layers()) +
                                    "; their per-request state is not modelled (no state shapes kvsim knows in the config)"));
  spec.derived_max_model_len = DeriveMaxModelLen(text, spec.max_position_embeddings, source, prefix);
  spec.rope_cache_positions = spec.rotary_dim > 0 ? spec.derived_max_model_len : 0;
  // Multimodal RoPE (Qwen2-VL/2.5-VL/3-VL: rope_scaling.mrope_section): vLLM's MRotaryEmbedding builds
  // its cos/sin cache over 4 x max_position_embeddings positions, headroom for video positions
  // (rotary_embedding/mrope.py; Qwen3-VL's 262,144 positions x 128 x 2 B = 0.25 GiB on every rank).
  // vLLM's Qwen-VL models position text with M-RoPE whether or not the config spells mrope_section.
  const std::string outer_type = top_type.empty() ? type : top_type;
  const bool qwen_vl = StartsWith(outer_type, "qwen2_vl") || StartsWith(outer_type, "qwen2_5_vl") ||
                       StartsWith(outer_type, "qwen3_vl") || StartsWith(outer_type, "qwen3_5");
  if (spec.rotary_dim > 0 && (qwen_vl || HasMropeSection(text))) spec.rope_cache_positions = 4 * spec.max_position_embeddings;

  ReadDtypes(r, text, source, prefix, spec);
  if (auto vc = root.find("vision_config"); vc != root.end() && vc->is_object()) {
    spec.vision_params = EstimateVisionParams(*vc, spec.hidden_size, source);
    try {
      spec.vision = ReadVisionSpec(root, *vc, outer_type, spec.hidden_size);
    } catch (const Error& e) {
      throw Error(source + ": " + e.what());
    }
    spec.notes.push_back("vision encoder weights estimated from vision_config (" +
                         std::to_string(spec.vision_params / 1000000) + "M params)");
  }
  CheckParameterBound(spec, source);
  return spec;
}

}  // namespace

ModelSpec ParseModelConfig(const json& root, const std::string& source) {
  try {
    return ParseModelConfigFields(root, source);
  } catch (const json::exception& e) {
    // A field of the wrong JSON type reached a typed accessor: name the file, not just nlohmann's id.
    throw Error(source + ": a field has the wrong type: " + e.what());
  }
}

ModelSpec LoadModelConfigFile(const std::string& path) { return LoadModelConfigFile(path, nlohmann::json::object()); }

ModelSpec LoadModelConfigFile(const std::string& path, const nlohmann::json& overrides) {
  namespace fs = std::filesystem;
  fs::path file(path);
  std::error_code ec;
  if (fs::is_directory(file, ec)) file /= "config.json";
  json root = ReadJsonFile(file.string(), "the model config", InfinityTokens::kReadAsLargestDouble);
  if (!overrides.empty() && root.is_object()) root.merge_patch(overrides);
  // A field --hf-overrides set is named as the flag's, not as the file's.
  ModelSpec spec = ParseModelConfig(root, file.string() + (overrides.empty() ? "" : " with --hf-overrides"));
  spec.name = path;
  return spec;
}

}  // namespace kvsim
