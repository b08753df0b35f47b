#include "kvcache/model_config_parser.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <sstream>

#include "kvcache/error.h"

namespace kvsim {
namespace {

using nlohmann::json;

// Reads integer fields of one JSON object, remembering every required field that is absent so a
// single error can list them all.
class FieldReader {
 public:
  FieldReader(const json& object, std::string source, std::string prefix)
      : object_(object), source_(std::move(source)), prefix_(std::move(prefix)) {}

  // First present key among `keys`; nullopt when none is present or the value is null.
  std::optional<int64_t> Find(std::initializer_list<const char*> keys) const {
    for (const char* key : keys) {
      auto it = object_.find(key);
      if (it == object_.end() || it->is_null()) continue;
      if (it->is_number_integer() || it->is_number_unsigned()) return it->get<int64_t>();
      if (it->is_number_float()) {
        const double v = it->get<double>();
        if (v == static_cast<double>(static_cast<int64_t>(v))) return static_cast<int64_t>(v);
      }
      throw Error(source_ + ": " + prefix_ + key + ": expected an integer, got " + it->dump());
    }
    return std::nullopt;
  }

  int64_t Required(std::initializer_list<const char*> keys) {
    if (auto v = Find(keys)) {
      if (*v <= 0) throw Error(source_ + ": " + prefix_ + *keys.begin() + ": must be positive, got " + std::to_string(*v));
      return *v;
    }
    missing_.push_back(prefix_ + *keys.begin());
    return 0;
  }

  int64_t Optional(std::initializer_list<const char*> keys, int64_t fallback) const {
    auto v = Find(keys);
    return v ? *v : fallback;
  }

  bool Bool(const char* key, bool fallback) const {
    auto it = object_.find(key);
    if (it == object_.end() || it->is_null()) return fallback;
    if (!it->is_boolean()) throw Error(source_ + ": " + prefix_ + key + ": expected true/false, got " + it->dump());
    return it->get<bool>();
  }

  std::string String(const char* key, const std::string& fallback) const {
    auto it = object_.find(key);
    if (it == object_.end() || !it->is_string()) return fallback;
    return it->get<std::string>();
  }

  bool Has(const char* key) const {
    auto it = object_.find(key);
    return it != object_.end() && !it->is_null();
  }

  const json& object() const { return object_; }
  const std::vector<std::string>& missing() const { return missing_; }

 private:
  const json& object_;
  std::string source_;
  std::string prefix_;
  std::vector<std::string> missing_;
};

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// HF LlamaConfig defaults, used for llava-style text_configs that list only non-default fields.
void ApplyLlamaDefaults(json& text) {
  const std::pair<const char*, int64_t> defaults[] = {
      {"hidden_size", 4096}, {"intermediate_size", 11008}, {"num_hidden_layers", 32},
      {"num_attention_heads", 32}, {"vocab_size", 32000}, {"max_position_embeddings", 2048}};
  for (const auto& [key, value] : defaults)
    if (!text.contains(key)) text[key] = value;
}

// The model_types whose HF config class ties input and output embeddings unless told otherwise.
bool TiesEmbeddingsByDefault(const std::string& model_type) {
  return StartsWith(model_type, "gemma") || model_type == "opt";
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

void ReadLayerAttention(const FieldReader& r, const std::string& type, ModelSpec& spec) {
  const int64_t n = spec.num_layers;
  spec.layers.assign(n, LayerAttention{});
  const json& cfg = r.object();
  const int64_t window = r.Optional({"sliding_window", "sliding_window_size"}, 0);

  auto lt = cfg.find("layer_types");
  if (lt != cfg.end() && lt->is_array() && static_cast<int64_t>(lt->size()) == n) {
    for (int64_t i = 0; i < n; ++i) {
      const std::string kind = (*lt)[i].is_string() ? (*lt)[i].get<std::string>() : "full_attention";
      if (kind == "sliding_attention" && window > 0) spec.layers[i] = {AttentionKind::kSlidingWindow, window};
      if (kind == "chunked_attention")
        spec.layers[i] = {AttentionKind::kChunkedLocal, r.Optional({"attention_chunk_size"}, window)};
    }
    return;
  }
  if (StartsWith(type, "llama4") && r.Has("attention_chunk_size")) {
    // RoPE layers use chunked local attention; every 4th layer is NoPE with full attention.
    const int64_t chunk = r.Optional({"attention_chunk_size"}, 8192);
    auto nrl = cfg.find("no_rope_layers");
    const bool explicit_list = nrl != cfg.end() && nrl->is_array() && static_cast<int64_t>(nrl->size()) == n;
    for (int64_t i = 0; i < n; ++i) {
      const bool uses_rope = explicit_list ? (*nrl)[i].get<int64_t>() != 0 : (i + 1) % 4 != 0;
      if (uses_rope) spec.layers[i] = {AttentionKind::kChunkedLocal, chunk};
    }
    return;
  }
  if (window <= 0) return;
  if (type == "gemma2") {
    for (int64_t i = 0; i < n; i += 2) spec.layers[i] = {AttentionKind::kSlidingWindow, window};
    return;
  }
  if (StartsWith(type, "gemma3")) {
    const int64_t pattern = r.Optional({"sliding_window_pattern"}, 6);
    for (int64_t i = 0; i < n; ++i)
      if ((i + 1) % pattern != 0) spec.layers[i] = {AttentionKind::kSlidingWindow, window};
    return;
  }
  if (StartsWith(type, "qwen2") || StartsWith(type, "qwen3")) {
    if (!r.Bool("use_sliding_window", false)) return;
    const int64_t from = r.Optional({"max_window_layers"}, 0);
    for (int64_t i = from; i < n; ++i) spec.layers[i] = {AttentionKind::kSlidingWindow, window};
    return;
  }
  if (window >= spec.max_position_embeddings) {
    spec.notes.push_back("sliding_window " + std::to_string(window) +
                         " >= max_position_embeddings: treated as full attention");
    return;
  }
  for (auto& layer : spec.layers) layer = {AttentionKind::kSlidingWindow, window};
}

void ReadMoe(FieldReader& r, const std::string& type, ModelSpec& spec) {
  const int64_t experts = r.Optional({"num_local_experts", "num_experts", "n_routed_experts"}, 0);
  if (experts <= 0) return;
  MoeSpec& moe = spec.moe;
  moe.num_experts = experts;
  moe.experts_per_token = r.Required({"num_experts_per_tok", "experts_per_token", "moe_topk"});
  moe.layer_is_moe.assign(spec.num_layers, true);
  moe.dense_intermediate_size = spec.intermediate_size;
  moe.expert_intermediate_size = r.Optional({"moe_intermediate_size"}, spec.intermediate_size);

  if (StartsWith(type, "deepseek")) {
    const int64_t first_dense = r.Optional({"first_k_dense_replace"}, 0);
    const int64_t freq = std::max<int64_t>(1, r.Optional({"moe_layer_freq"}, 1));
    for (int64_t i = 0; i < spec.num_layers; ++i) moe.layer_is_moe[i] = i >= first_dense && i % freq == 0;
    moe.shared_intermediate_size = r.Optional({"n_shared_experts"}, 0) * moe.expert_intermediate_size;
    moe.router_correction_bias = r.String("topk_method", "") == "noaux_tc";
  } else if (type == "llama4" || type == "llama4_text") {
    const int64_t step = std::max<int64_t>(1, r.Optional({"interleave_moe_layer_step"}, 1));
    for (int64_t i = 0; i < spec.num_layers; ++i) moe.layer_is_moe[i] = (i + 1) % step == 0;
    moe.shared_intermediate_size = spec.intermediate_size;
    moe.dense_intermediate_size = r.Optional({"intermediate_size_mlp"}, spec.intermediate_size);
  } else if (StartsWith(type, "qwen")) {
    const int64_t step = std::max<int64_t>(1, r.Optional({"decoder_sparse_step"}, 1));
    std::vector<int64_t> mlp_only;
    if (auto it = r.object().find("mlp_only_layers"); it != r.object().end() && it->is_array())
      mlp_only = it->get<std::vector<int64_t>>();
    for (int64_t i = 0; i < spec.num_layers; ++i)
      moe.layer_is_moe[i] = (i + 1) % step == 0 &&
                            std::find(mlp_only.begin(), mlp_only.end(), i) == mlp_only.end();
    moe.shared_intermediate_size = r.Optional({"shared_expert_intermediate_size"}, 0);
    moe.shared_expert_gate = moe.shared_intermediate_size > 0;
  } else if (type == "gpt_oss") {
    moe.router_bias = true;
    moe.expert_bias = true;
  }
}

void ReadMla(FieldReader& r, const std::string& type, ModelSpec& spec) {
  if (!r.Has("kv_lora_rank")) return;
  spec.has_mla = true;
  MlaSpec& mla = spec.mla;
  mla.q_lora_rank = r.Optional({"q_lora_rank"}, 0);
  mla.kv_lora_rank = r.Required({"kv_lora_rank"});
  mla.qk_nope_head_dim = r.Required({"qk_nope_head_dim"});
  mla.qk_rope_head_dim = r.Required({"qk_rope_head_dim"});
  mla.v_head_dim = r.Required({"v_head_dim"});
  mla.indexer_heads = r.Optional({"index_n_heads"}, 0);
  mla.indexer_head_dim = r.Optional({"index_head_dim"}, 0);
  mla.fp8_ds_mla_default = type == "deepseek_v32";
  spec.rotary_dim = mla.qk_rope_head_dim;
}

// vLLM's derived max_model_len: the position limit, stretched by a RoPE scaling factor except
// for the types that already state the scaled length (llama3, longrope, su, mrope).
int64_t DeriveMaxModelLen(const json& text, int64_t max_pos) {
  auto rs = text.find("rope_scaling");
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

  spec.hidden_size = r.Required({"hidden_size", "n_embd", "d_model"});
  spec.num_layers = r.Required({"num_hidden_layers", "n_layer", "num_layers"});
  spec.num_attention_heads = r.Required({"num_attention_heads", "n_head", "num_heads"});
  spec.vocab_size = r.Required({"vocab_size", "padded_vocab_size"});
  spec.max_position_embeddings =
      r.Required({"max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "max_sequence_length"});
  if (type == "opt") {
    spec.intermediate_size = r.Required({"ffn_dim"});
  } else if (type == "phi" || type == "gpt2") {
    spec.intermediate_size = r.Optional({"intermediate_size", "n_inner"}, 4 * spec.hidden_size);
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
  if (spec.num_kv_heads <= 0 || spec.num_attention_heads % spec.num_kv_heads != 0)
    throw Error(source + ": " + prefix + "num_key_value_heads: " + std::to_string(spec.num_kv_heads) +
                " does not divide num_attention_heads " + std::to_string(spec.num_attention_heads));

  spec.tie_word_embeddings = r.Bool("tie_word_embeddings", TiesEmbeddingsByDefault(type));
  if (!r.Has("tie_word_embeddings") && TiesEmbeddingsByDefault(type))
    spec.notes.push_back("tie_word_embeddings absent: " + type + " ties them by default");

  // Biases, norms and MLP shape by family.
  if (StartsWith(type, "qwen2")) spec.qkv_bias = true;
  if (r.Bool("attention_bias", false)) spec.qkv_bias = spec.o_proj_bias = true;
  if (StartsWith(type, "qwen3") || StartsWith(type, "gemma3")) spec.qk_norm = true;
  spec.mlp_bias = r.Bool("mlp_bias", false);
  if (StartsWith(type, "gemma2") || StartsWith(type, "gemma3")) spec.norms_per_layer = 4;
  if (type == "phi") {
    spec.norm_kind = NormKind::kLayerNorm;
    spec.norms_per_layer = 1;  // one LayerNorm feeds attention and MLP in parallel
    spec.qkv_bias = spec.o_proj_bias = spec.mlp_bias = spec.lm_head_bias = true;
    spec.mlp_kind = MlpKind::kPlain;
  }
  if (type == "opt") {
    spec.norm_kind = NormKind::kLayerNorm;
    const bool bias = r.Bool("enable_bias", true);
    spec.qkv_bias = spec.o_proj_bias = spec.mlp_bias = bias;
    spec.mlp_kind = MlpKind::kPlain;
    spec.learned_position_embeddings = spec.max_position_embeddings + 2;  // OPT offsets positions by 2
    const int64_t proj = r.Optional({"word_embed_proj_dim"}, spec.hidden_size);
    if (proj != spec.hidden_size) spec.notes.push_back("word_embed_proj_dim differs from hidden_size: projections not counted");
  }
  if (type == "gpt_oss") spec.attention_sinks = spec.num_attention_heads;

  ReadMoe(r, type, spec);
  ReadMla(r, type, spec);
  ReadLayerAttention(r, type, spec);

  if (type != "opt" && !spec.has_mla) {
    double partial = 1.0;
    if (auto it = text.find("partial_rotary_factor"); it != text.end() && it->is_number()) partial = it->get<double>();
    spec.rotary_dim = static_cast<int64_t>(static_cast<double>(spec.head_dim) * partial);
  }
  spec.derived_max_model_len = DeriveMaxModelLen(text, spec.max_position_embeddings);
  spec.rope_cache_positions = spec.rotary_dim > 0 ? spec.derived_max_model_len : 0;

  std::string dtype_text = r.String("torch_dtype", r.String("dtype", "bfloat16"));
  if (auto fmt = ParseNumericFormat(dtype_text); fmt && (*fmt == NumericFormat::kFloat32 ||
      *fmt == NumericFormat::kFloat16 || *fmt == NumericFormat::kBFloat16)) {
    spec.dtype = *fmt;
  } else {
    throw Error(source + ": " + prefix + "torch_dtype: '" + dtype_text + "' is not float32, float16 or bfloat16");
  }
  if (auto qc = text.find("quantization_config"); qc != text.end() && !qc->is_null())
    spec.checkpoint_quantization = ParseQuantizationConfig(*qc, source);

  if (auto vc = root.find("vision_config"); vc != root.end() && vc->is_object()) {
    spec.vision_params = EstimateVisionParams(*vc, spec.hidden_size);
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
  std::ifstream in(file);
  if (!in) throw Error(file.string() + ": cannot open model config (no such file or not readable)");
  json root;
  try {
    root = json::parse(in);
  } catch (const json::parse_error& e) {
    // nlohmann reports "... at line L, column C: ..." in what(); keep it, it locates the fault.
    throw Error(file.string() + ": malformed JSON: " + e.what());
  }
  ModelSpec spec = ParseModelConfig(root, file.string());
  spec.name = path;
  return spec;
}

}  // namespace kvsim
