#include "kvcache/base/text_format.h"
#include "kvcache/model/indexer_schedule.h"
#include "kvcache/model/model_families.h"

#include <algorithm>
#include <initializer_list>
#include <utility>

namespace kvsim {
namespace {


// GPT-2 descendants: LayerNorm with bias, plain MLP with biases, learned positions, no RoPE.
bool IsGpt2Style(const std::string& type) { return type == "gpt2" || type == "gpt_bigcode"; }

void SetPlainBiasedMlp(ModelSpec& spec, bool bias) {
  spec.norm_kind = NormKind::kLayerNorm;
  spec.mlp_kind = MlpKind::kPlain;
  spec.qkv_bias = spec.o_proj_bias = spec.mlp_bias = bias;
}

void FillMissing(nlohmann::json& text, std::initializer_list<std::pair<const char*, int64_t>> defaults) {
  for (const auto& [key, value] : defaults)
    if (!text.contains(key)) text[key] = value;
}

// transformers v5's NemotronHConfig states the blocks as a list, layers_block_type, of the names its
// NemotronHBlock dispatches on; older files state the same as one character per block.
std::string BlockTypesAsPattern(const FieldReader& r) {
  const nlohmann::json& list = r.object().at("layers_block_type");
  const std::string what = r.source() + ": " + r.prefix() + "layers_block_type: ";
  if (!list.is_array()) throw Error(what + "expected a list of block names, got " + list.dump());
  static const std::pair<const char*, char> kBlocks[] = {{"mamba", 'M'}, {"attention", '*'}, {"mlp", '-'}, {"moe", 'E'}};
  std::string pattern;
  for (const nlohmann::json& name : list) {
    const auto block = std::find_if(std::begin(kBlocks), std::end(kBlocks),
                                    [&](const auto& b) { return name.is_string() && name.get<std::string>() == b.first; });
    if (block == std::end(kBlocks))
      throw Error(what + name.dump() + " is not a block kind (mamba, attention, mlp, moe)");
    pattern += block->second;
  }
  return pattern;
}

}  // namespace

std::string HybridPattern(const FieldReader& r, const std::string& type, int64_t layers) {
  if (type != "nemotron_h") return {};
  const bool listed = r.Has("layers_block_type");
  if (!r.Has("hybrid_override_pattern") && !listed) return {};
  const std::string pattern = listed ? BlockTypesAsPattern(r) : r.String("hybrid_override_pattern", "");
  const std::string what =
      r.source() + ": " + r.prefix() + (listed ? "layers_block_type: " : "hybrid_override_pattern: ");
  if (static_cast<int64_t>(pattern.size()) != layers)
    throw Error(what + "has " + std::to_string(pattern.size()) + " blocks but num_hidden_layers is " +
                std::to_string(layers));
  for (const char c : pattern)
    if (c != 'M' && c != '*' && c != '-' && c != 'E')
      throw Error(what + "'" + std::string(1, c) + "' is not a block kind (M Mamba2, * attention, - MLP, E MoE)");
  return pattern;
}


bool UsesGatedDeltaNet(const std::string& type) { return type == "qwen3_next" || StartsWith(type, "qwen3_5"); }

void FillConfigClassDefaults(nlohmann::json& text, const std::string& root_type) {
  const std::string type = text.value("model_type", std::string());
  if (type == "llama" || root_type == "llava") {
    // transformers' LlamaConfig.__init__ defaults.
    FillMissing(text, {{"hidden_size", 4096}, {"intermediate_size", 11008}, {"num_hidden_layers", 32},
                       {"num_attention_heads", 32}, {"vocab_size", 32000}, {"max_position_embeddings", 2048}});
  } else if (type == "mistral") {
    // transformers' MistralConfig.__init__ defaults (LLaVA-NeXT's text_config states only the changes).
    FillMissing(text, {{"hidden_size", 4096}, {"intermediate_size", 14336}, {"num_hidden_layers", 32},
                       {"num_attention_heads", 32}, {"num_key_value_heads", 8}, {"vocab_size", 32000},
                       {"max_position_embeddings", 131072}});
  } else if (type == "gemma3_text" || root_type == "gemma3") {
    // transformers' Gemma3TextConfig.__init__ defaults (models/gemma3/configuration_gemma3.py): the
    // vocabulary includes the image tokens (262,208), head_dim is 256 whatever hidden / heads is
    // (12B: 3840 / 16 = 240, but its heads are 256 wide), 8 query and 4 KV heads.
    FillMissing(text, {{"vocab_size", 262208}, {"hidden_size", 2304}, {"intermediate_size", 9216},
                       {"num_hidden_layers", 26}, {"num_attention_heads", 8}, {"num_key_value_heads", 4},
                       {"head_dim", 256}, {"max_position_embeddings", 131072}, {"sliding_window", 4096}});
  }
}

void FillDepthFromBlockList(nlohmann::json& text) {
  // transformers v5's NemotronHConfig derives the depth from the block list: Nemotron-3-Ultra's
  // config.json states no num_hidden_layers.
  auto blocks = text.find("layers_block_type");
  if (text.value("model_type", std::string()) == "nemotron_h" && !text.contains("num_hidden_layers") &&
      blocks != text.end() && blocks->is_array())
    text["num_hidden_layers"] = static_cast<int64_t>(blocks->size());
}

bool TiesEmbeddingsByDefault(const std::string& type) {
  // These config classes keep PretrainedConfig's default (True) or set it; Llama-style ones say False.
  return StartsWith(type, "gemma") || StartsWith(type, "cohere") || IsGpt2Style(type) || type == "opt" ||
         type == "falcon" || type == "bloom" || type == "mpt";
}

int64_t DefaultIntermediateSize(const std::string& type, int64_t hidden_size) {
  if (type == "phi" || IsGpt2Style(type) || type == "falcon") return 4 * hidden_size;
  return 0;
}

int64_t DefaultMaxPositions(const std::string& type) { return type == "falcon" ? 2048 : 0; }

void ReadFamilyKvHeads(const FieldReader& r, const std::string& type, ModelSpec& spec) {
  if (type != "falcon") return;
  // vLLM's Falcon: the new decoder architecture (40B/180B) states its KV heads; the old one is
  // multi-query (7B) or plain multi-head.
  if (r.Bool("new_decoder_architecture", false))
    spec.num_kv_heads = r.Optional({"num_kv_heads", "n_head_kv"}, spec.num_attention_heads);
  else
    spec.num_kv_heads = r.Bool("multi_query", true) ? 1 : spec.num_attention_heads;
}

void ReadFamilyShape(const FieldReader& r, const std::string& type, ModelSpec& spec) {
  if (StartsWith(type, "qwen2")) spec.qkv_bias = true;
  if (r.Bool("attention_bias", false)) spec.qkv_bias = spec.o_proj_bias = true;
  if (StartsWith(type, "glm")) spec.o_proj_bias = false;  // GLM-4: attention_bias is q/k/v only
  if (StartsWith(type, "qwen3") || StartsWith(type, "gemma3") || r.Bool("use_qk_norm", false)) spec.qk_norm = true;
  // vLLM's minimax_m2.py normalizes q and k with MiniMaxText01RMSNormTP over all heads whatever
  // qk_norm_type says; olmo2.py (OLMo 2 and 3) normalizes them over the whole width too.
  if (type == "minimax_m2") spec.qk_norm_span = QkNormSpan::kAllHeadsReduced;
  if (type == "olmo2" || type == "olmo3") spec.qk_norm_span = QkNormSpan::kAllHeadsGathered;
  spec.mlp_bias = r.Bool("mlp_bias", false);
  if (StartsWith(type, "gemma2") || StartsWith(type, "gemma3")) spec.norms_per_layer = 4;
  if (StartsWith(type, "cohere")) spec.norms_per_layer = 1;  // one bias-free LayerNorm feeds both branches

  if (type == "phi") {
    SetPlainBiasedMlp(spec, true);
    spec.norms_per_layer = 1;  // one LayerNorm feeds attention and MLP in parallel
    spec.lm_head_bias = true;
  } else if (type == "opt") {
    SetPlainBiasedMlp(spec, r.Bool("enable_bias", true));
    spec.learned_position_embeddings = spec.max_position_embeddings + 2;  // OPT offsets positions by 2
    const int64_t proj = r.Optional({"word_embed_proj_dim"}, spec.hidden_size);
    if (proj != spec.hidden_size) spec.notes.push_back("word_embed_proj_dim differs from hidden_size: projections not counted");
  } else if (IsGpt2Style(type)) {
    SetPlainBiasedMlp(spec, true);
    spec.learned_position_embeddings = spec.max_position_embeddings;
  } else if (type == "gpt_neox") {
    SetPlainBiasedMlp(spec, r.Bool("attention_bias", true));
    spec.mlp_bias = true;
  } else if (type == "falcon") {
    SetPlainBiasedMlp(spec, r.Bool("bias", false));
    // ln_attn + ln_mlp (new architecture), one shared LayerNorm (parallel), or two in sequence.
    spec.norms_per_layer = r.Bool("new_decoder_architecture", false) ? r.Optional({"num_ln_in_parallel_attn"}, 2)
                           : r.Bool("parallel_attn", true)          ? 1
                                                                    : 2;
  } else if (type == "starcoder2") {
    SetPlainBiasedMlp(spec, r.Bool("use_bias", true));
  } else if (type == "qwen") {
    // Qwen (v1, QWenLMHeadModel): intermediate_size counts both halves of the gated MLP; vLLM builds
    // QWenMLP with intermediate_size // 2 (vllm/model_executor/models/qwen.py), and c_attn has a bias.
    spec.intermediate_size /= 2;
    spec.qkv_bias = true;
  } else if (type == "nemotron") {
    SetPlainBiasedMlp(spec, false);  // LayerNorm1P has a bias; the projections follow the flags
    spec.qkv_bias = spec.o_proj_bias = r.Bool("attention_bias", false);
    spec.mlp_bias = r.Bool("mlp_bias", false);
  }
  if (type == "gpt_oss") spec.attention_sinks = spec.num_attention_heads;
  if (const std::string pattern = HybridPattern(r, type, spec.num_layers); !pattern.empty()) {
    // Nemotron-H: each block is one RMSNorm and one of mixer or feed-forward; the MLPs and experts
    // are up/down projections with a squared-ReLU between (mlp_hidden_act relu2, NemotronHMLP).
    spec.norms_per_layer = 1;
    spec.mlp_kind = MlpKind::kPlain;
    spec.moe.layer_has_mlp.assign(pattern.size(), false);
    for (size_t i = 0; i < pattern.size(); ++i) spec.moe.layer_has_mlp[i] = pattern[i] == '-' || pattern[i] == 'E';
  }

  // RoPE over part or all of each head; none with learned positions or ALiBi.
  const bool no_rope = type == "opt" || IsGpt2Style(type) || type == "bloom" || type == "mpt" || r.Bool("alibi", false);
  double partial = r.Number("partial_rotary_factor", r.Number("rotary_pct", 1.0));
  // Transformers v5 configs may keep it only inside rope_parameters (Qwen3.5-397B), where vLLM's
  // patch_rope_parameters finds it as well.
  if (!r.Has("partial_rotary_factor") && !r.Has("rotary_pct"))
    if (const nlohmann::json* rope = r.Object("rope_parameters"))
      partial = FieldReader(*rope, r.source(), r.prefix() + "rope_parameters.").Number("partial_rotary_factor", partial);
  // vLLM's get_rope refuses a factor outside (0, 1] ("must be between 0.0 and 1.0"): a model that rotates
  // no dimension never builds (-0.0 included). Families without RoPE never call it.
  if (!(partial >= 0 && partial <= 1) || (!no_rope && !(partial > 0)))
    throw Error(r.source() + ": " + r.prefix() + "partial_rotary_factor: " + std::to_string(partial) +
                " is outside the valid range (0, 1] (vLLM's get_rope refuses it)");
  spec.rotary_dim = no_rope ? 0 : static_cast<int64_t>(static_cast<double>(spec.head_dim) * partial);
  // MiniMax-M2 states the rotated width itself (rotary_dim 64 of head_dim 128), as vLLM's minimax_m2.py reads it.
  if (type == "minimax_m2" && r.Has("rotary_dim")) {
    const int64_t rotary = r.Optional({"rotary_dim"}, spec.head_dim);
    if (rotary < 0 || rotary > spec.head_dim)
      throw Error(r.source() + ": " + r.prefix() + "rotary_dim: " + std::to_string(rotary) + " is outside [0, head_dim " +
                  std::to_string(spec.head_dim) + "]");
    spec.rotary_dim = rotary;
  }
}

// The families whose config class is a mixture of experts and defaults its expert count (Qwen3MoeConfig's
// num_experts 128, DeepseekV3Config's n_routed_experts 256, MixtralConfig's num_local_experts 8): the model
// code builds experts from that default when the file leaves the field out, and a null reaches it as None.
// Without the count kvsim would plan the dense model of intermediate_size, a fraction of the weights.
const char* ExpertCountFieldOfMoeFamily(const std::string& type) {
  static const std::pair<const char*, const char*> kFamilies[] = {
      {"qwen2_moe", "num_experts"},       {"qwen3_moe", "num_experts"},        {"qwen3_next", "num_experts"},
      {"deepseek_v2", "n_routed_experts"}, {"deepseek_v3", "n_routed_experts"}, {"deepseek_v32", "n_routed_experts"},
      {"kimi_k2", "n_routed_experts"},    {"glm4_moe", "n_routed_experts"},    {"glm_moe_dsa", "n_routed_experts"},
      {"mixtral", "num_local_experts"},   {"gpt_oss", "num_local_experts"},    {"minimax_m2", "num_local_experts"},
      {"ernie4_5_moe", "moe_num_experts"}};
  if (StartsWith(type, "qwen3_5_moe")) return "num_experts";
  for (const auto& [family, field] : kFamilies)
    if (type == family) return field;
  return nullptr;
}

void ReadMoe(const FieldReader& r, const std::string& type, ModelSpec& spec) {
  if (const char* field = ExpertCountFieldOfMoeFamily(type); field && !r.Has(field))
    throw Error(r.source() + ": " + r.prefix() + field + ": missing (or null); model_type '" + type +
                "' is a mixture of experts whose config class supplies a default expert count, so kvsim would plan "
                "a dense model instead: give the checkpoint's value");
  const int64_t experts = r.Optional({"num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts"}, 0);
  if (experts <= 0) return;
  MoeSpec& moe = spec.moe;
  moe.num_experts = experts;
  moe.experts_per_token = r.Optional({"num_experts_per_tok", "experts_per_token", "moe_topk", "moe_k"}, 0);
  if (moe.experts_per_token <= 0)
    throw Error(r.source() + ": " + r.prefix() + "num_experts_per_tok: missing or not positive in an MoE config");
  // A router picks its top-k among the experts: more than there are is not a model.
  if (moe.experts_per_token > experts)
    throw Error(r.source() + ": " + r.prefix() + "num_experts_per_tok: " + std::to_string(moe.experts_per_token) +
                " exceeds the " + std::to_string(experts) + " routed experts");
  moe.layer_is_moe.assign(spec.num_layers, true);
  moe.dense_intermediate_size = spec.intermediate_size;
  // Families whose config class gives the routed experts a width of their own (moe_intermediate_size,
  // with a class default unrelated to intermediate_size) must state it; Mixtral-style configs size the
  // experts by intermediate_size.
  static constexpr const char* kOwnExpertWidth[] = {"deepseek_v2", "deepseek_v3", "deepseek_v32", "kimi_k2",
                                                    "glm4_moe", "glm_moe_dsa", "qwen2_moe", "qwen3_moe",
                                                    "qwen3_next", "ernie4_5_moe"};
  const bool own_width = StartsWith(type, "qwen3_5_moe") ||
                         std::find(std::begin(kOwnExpertWidth), std::end(kOwnExpertWidth), type) != std::end(kOwnExpertWidth);
  if (own_width && !r.Has("moe_intermediate_size"))
    throw Error(r.source() + ": " + r.prefix() + "moe_intermediate_size: missing; model_type '" + type +
                "' sizes its routed experts by it, not by intermediate_size");
  moe.expert_intermediate_size = r.Optional({"moe_intermediate_size"}, spec.intermediate_size);

  if (const std::string pattern = HybridPattern(r, type, spec.num_layers); !pattern.empty()) {
    // Nemotron-H's 'E' blocks: a router with a score-correction bias over n_routed_experts, and
    // n_shared_experts shared MLPs of moe_shared_expert_intermediate_size (nemotron_h.py NemotronHMoE).
    for (int64_t i = 0; i < spec.num_layers; ++i) moe.layer_is_moe[i] = pattern[static_cast<size_t>(i)] == 'E';
    moe.shared_intermediate_size =
        r.Optional({"n_shared_experts"}, 0) * r.Optional({"moe_shared_expert_intermediate_size"}, 0);
    moe.router_correction_bias = true;
    moe.latent_size = r.Optional({"moe_latent_size"}, 0);
  } else if (StartsWith(type, "deepseek") || r.Has("first_k_dense_replace") || r.Has("n_shared_experts")) {
    // DeepSeek-style (also Kimi K2, GLM-4.5, dots.llm1): the first k layers dense, shared experts
    // as wide as n_shared_experts routed ones.
    const int64_t first_dense = r.Optional({"first_k_dense_replace"}, 0);
    const int64_t freq = std::max<int64_t>(1, r.Optional({"moe_layer_freq"}, 1));
    for (int64_t i = 0; i < spec.num_layers; ++i) moe.layer_is_moe[i] = i >= first_dense && i % freq == 0;
    moe.shared_intermediate_size = r.Optional({"n_shared_experts"}, 0) * moe.expert_intermediate_size;
    // GLM-4.5, GLM-4.5V's text model and GLM-5 (glm_moe_dsa) route with an e_score_correction_bias
    // whatever topk_method says.
    moe.router_correction_bias = r.String("topk_method", "") == "noaux_tc" || StartsWith(type, "glm4_moe") ||
                                 StartsWith(type, "glm4v_moe") || type == "glm_moe_dsa";
  } else if (StartsWith(type, "ernie")) {
    const int64_t start = r.Optional({"moe_layer_start_index"}, 0);
    const int64_t end = r.Optional({"moe_layer_end_index"}, spec.num_layers - 1);
    const int64_t step = std::max<int64_t>(1, r.Optional({"moe_layer_interval"}, 1));
    for (int64_t i = 0; i < spec.num_layers; ++i) moe.layer_is_moe[i] = i >= start && i <= end && (i - start) % step == 0;
    moe.shared_intermediate_size = r.Optional({"moe_num_shared_experts"}, 0) * moe.expert_intermediate_size;
  } else if (type == "llama4" || type == "llama4_text") {
    const int64_t step = std::max<int64_t>(1, r.Optional({"interleave_moe_layer_step"}, 1));
    for (int64_t i = 0; i < spec.num_layers; ++i) moe.layer_is_moe[i] = (i + 1) % step == 0;
    moe.shared_intermediate_size = spec.intermediate_size;
    moe.dense_intermediate_size = r.Optional({"intermediate_size_mlp"}, spec.intermediate_size);
  } else if (StartsWith(type, "qwen")) {
    const int64_t step = std::max<int64_t>(1, r.Optional({"decoder_sparse_step"}, 1));
    std::vector<int64_t> mlp_only;
    // The model code tests `layer_idx in mlp_only_layers`: a list of layer indices, nothing else.
    if (auto it = r.object().find("mlp_only_layers"); it != r.object().end()) {
      auto wrong = [&] {
        return Error(r.source() + ": " + r.prefix() + "mlp_only_layers: expected a list of layer indices, got " +
                     it->dump().substr(0, 80));
      };
      if (!it->is_array()) throw wrong();
      for (const auto& v : *it) {
        if (!v.is_number_integer()) throw wrong();
        mlp_only.push_back(v.get<int64_t>());
      }
    }
    for (int64_t i = 0; i < spec.num_layers; ++i)
      moe.layer_is_moe[i] = (i + 1) % step == 0 &&
                            std::find(mlp_only.begin(), mlp_only.end(), i) == mlp_only.end();
    moe.shared_intermediate_size = r.Optional({"shared_expert_intermediate_size"}, 0);
    moe.shared_expert_gate = moe.shared_intermediate_size > 0;
    if (moe.dense_intermediate_size <= 0 &&
        std::find(moe.layer_is_moe.begin(), moe.layer_is_moe.end(), false) != moe.layer_is_moe.end())
      throw Error(r.source() + ": " + r.prefix() + "intermediate_size: missing, but decoder_sparse_step or " +
                  "mlp_only_layers makes some layers dense");
  } else if (type == "gpt_oss") {
    moe.router_bias = true;
    moe.expert_bias = true;
  } else if (type == "minimax_m2") {
    // vLLM's minimax_m2.py: every layer an MoE block of num_local_experts (intermediate_size wide), no
    // shared expert, a sigmoid router with an e_score_correction_bias when use_routing_bias is set.
    moe.router_correction_bias = r.Bool("use_routing_bias", false);
  }
}

void ReadMla(FieldReader& r, const std::string& type, ModelSpec& spec) {
  // DeepSeek's families are latent attention unless the config says use_mla: false (DeepSeek-VL2-tiny's
  // language model; vLLM's deepseek_v2.py builds MLA otherwise): a config of theirs without the
  // latent's rank is incomplete, not a plain-attention model.
  static constexpr const char* kMlaFamilies[] = {"deepseek_v2", "deepseek_v3", "deepseek_v32", "kimi_k2", "glm_moe_dsa"};
  const bool mla_family = std::find(std::begin(kMlaFamilies), std::end(kMlaFamilies), type) != std::end(kMlaFamilies) &&
                          r.Bool("use_mla", true);
  if (!r.Has("kv_lora_rank") && !mla_family) return;
  spec.has_mla = true;
  MlaSpec& mla = spec.mla;
  mla.q_lora_rank = r.Optional({"q_lora_rank"}, 0);
  mla.kv_lora_rank = r.Required({"kv_lora_rank"});
  mla.qk_nope_head_dim = r.Required({"qk_nope_head_dim"});
  mla.qk_rope_head_dim = r.Required({"qk_rope_head_dim"});
  mla.v_head_dim = r.Required({"v_head_dim"});
  mla.indexer_heads = r.Optional({"index_n_heads"}, 0);
  mla.indexer_head_dim = r.Optional({"index_head_dim"}, 0);
  if (mla.indexer_head_dim > 0) mla.indexer_on_layer = ReadIndexerSchedule(r, spec.num_layers);
  // DeepseekV32ForCausalLM.verify_and_update_config (vLLM models/config.py) turns kv_cache_dtype "auto"
  // into fp8_ds_mla. GLM-5 (glm_moe_dsa) runs on deepseek_v2.py with the same indexer (vLLM PR #34124
  // maps GlmMoeDsaForCausalLM there) but without that config hook, so its latent stays in the model dtype.
  mla.fp8_ds_mla_default = type == "deepseek_v32";
  spec.rotary_dim = mla.qk_rope_head_dim;
}

}  // namespace kvsim
