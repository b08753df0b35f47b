#include "kvcache/model/model_config_parser.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "kvcache/model/config_field_reader.h"
#include "kvcache/base/error.h"
#include "kvcache/base/json_file.h"
#include "kvcache/model/model_families.h"
#include "kvcache/model/vision_spec.h"

namespace kvsim {
namespace {

using nlohmann::json;


// HF LlamaConfig defaults, used for llava-style text_configs that list only non-default fields.
void ApplyLlamaDefaults(json& text) {
  const std::pair<const char*, int64_t> defaults[] = {
      {"hidden_size", 4096}, {"intermediate_size", 11008}, {"num_hidden_layers", 32},
      {"num_attention_heads", 32}, {"vocab_size", 32000}, {"max_position_embeddings", 2048}};
  for (const auto& [key, value] : defaults)
    if (!text.contains(key)) text[key] = value;
}

// Rough parameter count of a ViT-style vision encoder plus its projector. Multimodal checkpoints
// carry one; its weights count towards memory though kvsim does not model image traffic.
int64_t EstimateVisionParams(const json& vision, int64_t text_hidden) {
  FieldReader r(vision, "", "vision_config.");
  const int64_t h = r.Optional({"hidden_size", "embed_dim", "width"}, 0);
  const int64_t layers = r.Optional({"num_hidden_layers", "depth", "layers"}, 0);
  if (h == 0 || layers == 0) return 0;
  const int64_t inter = r.Optional({"intermediate_size", "mlp_dim"}, 4 * h);
  const int64_t patch = r.Optional({"patch_size"}, 14);
  const int64_t channels = r.Optional({"num_channels", "in_channels", "in_chans"}, 3);
  const int64_t image = r.Optional({"image_size"}, 0);
  const int64_t out = r.Optional({"out_hidden_size", "vision_output_dim", "projection_dim"}, h);
  const int64_t per_layer = 4 * h * h + 4 * h + 2 * h * inter + inter + h + 4 * h;
  int64_t total = layers * per_layer + channels * patch * patch * h + 2 * h;
  if (image > 0) total += (image / patch) * (image / patch) * h;
  total += out * text_hidden + text_hidden;  // projector into the language model
  if (out != h) total += h * out;
  return total;
}

// vLLM's derived max_model_len: the position limit, stretched by a RoPE scaling factor except
// for the types that already state the scaled length (llama3, longrope, su, mrope).
int64_t DeriveMaxModelLen(const json& text, int64_t max_pos) {
  auto rs = text.find("rope_scaling");
  // issue 16: transformers v5 configs spell it rope_parameters (vLLM's patch_rope_parameters reads both).
  if (rs == text.end() || !rs->is_object()) rs = text.find("rope_parameters");
  if (rs == text.end() || !rs->is_object()) return max_pos;
  std::string kind = rs->value("rope_type", rs->value("type", std::string()));
  if (kind == "llama3" || kind == "longrope" || kind == "su" || kind == "mrope" || kind == "default")
    return max_pos;
  auto factor = rs->find("factor");
  if (factor == rs->end() || !factor->is_number()) return max_pos;
  const double f = factor->get<double>();
  if (kind == "yarn") {
    const int64_t original = rs->value("original_max_position_embeddings", max_pos);
    return static_cast<int64_t>(static_cast<double>(original) * f);
  }
  return static_cast<int64_t>(static_cast<double>(max_pos) * f);
}

// The sizes every decoder has: hidden size, layers, heads, vocabulary, positions, MLP width, head_dim and
// KV heads. Missing fields are collected so one error names them all.
void ReadCoreShape(FieldReader& r, const std::string& type, const std::string& source, const std::string& prefix,
                   ModelSpec& spec) {
  spec.hidden_size = r.Required({"hidden_size", "n_embd", "d_model"});
  spec.num_layers = r.Required({"num_hidden_layers", "n_layer", "num_layers"});
  spec.num_attention_heads = r.Required({"num_attention_heads", "n_head", "num_heads"});
  spec.vocab_size = r.Required({"vocab_size", "padded_vocab_size"});
  if (const int64_t fallback = DefaultMaxPositions(type); fallback > 0)
    spec.max_position_embeddings = r.Optional({"max_position_embeddings", "n_positions", "max_seq_len"}, fallback);
  else
    spec.max_position_embeddings =
        r.Required({"max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "max_sequence_length"});
  if (type == "opt") {
    spec.intermediate_size = r.Required({"ffn_dim"});
  } else if (const int64_t fallback = DefaultIntermediateSize(type, spec.hidden_size); fallback > 0) {
    spec.intermediate_size = r.Optional({"intermediate_size", "ffn_hidden_size", "n_inner"}, fallback);
  } else {
    spec.intermediate_size = r.Required({"intermediate_size", "ffn_hidden_size", "n_inner"});
  }
  if (!r.missing().empty()) {
    std::string list;
    for (const auto& m : r.missing()) list += (list.empty() ? "" : ", ") + m;
    throw Error(source + ": model_type '" + type + "' is missing required field(s): " + list);
  }
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
  std::string dtype_text = r.String("torch_dtype", r.String("dtype", "bfloat16"));
  if (auto fmt = ParseNumericFormat(dtype_text); fmt && (*fmt == NumericFormat::kFloat32 ||
      *fmt == NumericFormat::kFloat16 || *fmt == NumericFormat::kBFloat16)) {
    spec.dtype = *fmt;
  } else {
    throw Error(source + ": " + prefix + "torch_dtype: '" + dtype_text + "' is not float32, float16 or bfloat16");
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

}  // namespace

ModelSpec ParseModelConfig(const json& root, const std::string& source) {
  if (!root.is_object()) throw Error(source + ": expected a JSON object at the top level");
  ModelSpec spec;
  spec.name = source;
  if (auto a = root.find("architectures"); a != root.end() && a->is_array() && !a->empty() && (*a)[0].is_string())
    spec.architecture = (*a)[0].get<std::string>();

  // Multimodal wrappers keep the language model in text_config.
  json text = root;
  std::string prefix;
  if (auto tc = root.find("text_config"); tc != root.end() && tc->is_object()) {
    text = *tc;
    prefix = "text_config.";
    if (text.value("model_type", std::string()) == "llama" || root.value("model_type", std::string()) == "llava")
      ApplyLlamaDefaults(text);
    for (const char* key : {"tie_word_embeddings", "torch_dtype", "quantization_config"})
      if (!text.contains(key) && root.contains(key)) text[key] = root[key];
  }
  FieldReader r(text, source, prefix);
  const std::string type = r.String("model_type", root.value("model_type", std::string("unknown")));
  spec.model_type = type;

  ReadCoreShape(r, type, source, prefix, spec);

  spec.tie_word_embeddings = r.Bool("tie_word_embeddings", TiesEmbeddingsByDefault(type));
  if (!r.Has("tie_word_embeddings") && TiesEmbeddingsByDefault(type))
    spec.notes.push_back("tie_word_embeddings absent: " + type + " ties them by default");

  ReadFamilyShape(r, type, spec);
  ReadMoe(r, type, spec);
  ReadMla(r, type, spec);
  ReadLayerAttention(r, type, spec);
  ReadDropout(r, spec);

  if (spec.kv_layers() == 0)
    throw Error(source + ": model_type '" + type + "' has no attention layers; kvsim models KV caches of attention layers");
  if (const int64_t state_only = spec.num_layers - spec.kv_layers(); state_only > 0)
    spec.notes.push_back(std::to_string(state_only) + " of " + std::to_string(spec.num_layers) +
                         " layers are linear-attention/SSM: the KV cache covers the other " +
                         std::to_string(spec.kv_layers()) + "; their fixed per-request state is not modelled");
  spec.derived_max_model_len = DeriveMaxModelLen(text, spec.max_position_embeddings);
  spec.rope_cache_positions = spec.rotary_dim > 0 ? spec.derived_max_model_len : 0;

  ReadDtypes(r, text, source, prefix, spec);
  if (auto vc = root.find("vision_config"); vc != root.end() && vc->is_object()) {
    spec.vision_params = EstimateVisionParams(*vc, spec.hidden_size);
    spec.vision = ReadVisionSpec(*vc, root.value("model_type", type), spec.hidden_size);  // issue 16
    spec.notes.push_back("vision encoder weights estimated from vision_config (" +
                         std::to_string(spec.vision_params / 1000000) + "M params)");
  }
  return spec;
}

ModelSpec LoadModelConfigFile(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path file(path);
  std::error_code ec;
  if (fs::is_directory(file, ec)) file /= "config.json";
  const json root = ReadJsonFile(file.string(), "model config");
  ModelSpec spec = ParseModelConfig(root, file.string());
  spec.name = path;
  return spec;
}

}  // namespace kvsim
