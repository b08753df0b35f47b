#include "kvcache/model/weight_tensors.h"

#include "kvcache/model/model_families.h"

namespace kvsim {
namespace {

class TensorList {
 public:
  explicit TensorList(std::vector<WeightTensor>& out) : out_(out) {}

  void Add(std::string name, WeightRole role, Sharding sharding, int64_t rows, int64_t cols = 1,
           int64_t copies = 1, int64_t layer = -1) {
    if (rows <= 0 || cols <= 0 || copies <= 0) return;
    WeightTensor t;
    t.name = std::move(name);
    t.role = role;
    t.sharding = sharding;
    t.rows = rows;
    t.cols = cols;
    t.copies = copies;
    t.layer = layer;
    out_.push_back(std::move(t));
  }
  WeightTensor& last() { return out_.back(); }

 private:
  std::vector<WeightTensor>& out_;
};

void AddNorm(TensorList& list, const ModelSpec& spec, const std::string& name, int64_t width, int64_t layer) {
  list.Add(name, WeightRole::kNorm, Sharding::kReplicated, width, 1, 1, layer);
  if (spec.norm_kind == NormKind::kLayerNorm)
    list.Add(name + ".bias", WeightRole::kNorm, Sharding::kReplicated, width, 1, 1, layer);
}

// A linear-attention / SSM layer's mixer in place of attention, as vLLM builds it:
// Gated DeltaNet (qwen3_next.py: in_proj_qkvz, in_proj_ba, depthwise conv1d, A_log, dt_bias, gated
// RMSNorm over dv, out_proj) and Mamba2 (mamba_mixer2.py: in_proj to z, x, B, C and dt, conv1d with
// bias, A, D, dt_bias, gated norm over the inner width, out_proj).
void AddStateMixer(TensorList& list, const ModelSpec& spec, int64_t layer) {
  const int64_t h = spec.hidden_size;
  const StateLayerSpec& st = spec.state;
  if (st.formula == StateLayerFormula::kGatedDeltaNet) {
    const int64_t key = st.num_k_heads * st.head_k_dim, value = st.num_v_heads * st.head_v_dim;
    list.Add("mixer.in_proj_qkvz", WeightRole::kAttention, Sharding::kRows, 2 * key + 2 * value, h, 1, layer);
    list.Add("mixer.in_proj_ba", WeightRole::kAttention, Sharding::kRows, 2 * st.num_v_heads, h, 1, layer);
    list.Add("mixer.conv1d", WeightRole::kOther, Sharding::kRows, 2 * key + value, st.conv_kernel, 1, layer);
    list.Add("mixer.A_log_dt_bias", WeightRole::kOther, Sharding::kRows, st.num_v_heads, 1, 2, layer);
    list.Add("mixer.norm", WeightRole::kNorm, Sharding::kReplicated, st.head_v_dim, 1, 1, layer);
    list.Add("mixer.out_proj", WeightRole::kAttention, Sharding::kCols, h, value, 1, layer);
    return;
  }
  const int64_t conv_dim = st.inner + 2 * st.n_groups * st.head_k_dim;
  list.Add("mixer.in_proj", WeightRole::kAttention, Sharding::kRows, st.inner + conv_dim + st.num_v_heads, h, 1, layer);
  list.Add("mixer.conv1d", WeightRole::kOther, Sharding::kRows, conv_dim, st.conv_kernel + 1, 1, layer);
  list.Add("mixer.A_D_dt_bias", WeightRole::kOther, Sharding::kRows, st.num_v_heads, 1, 3, layer);
  list.Add("mixer.norm", WeightRole::kNorm, Sharding::kRows, st.inner, 1, 1, layer);
  list.Add("mixer.out_proj", WeightRole::kAttention, Sharding::kCols, h, st.inner, 1, layer);
}

void AddAttention(TensorList& list, const ModelSpec& spec, int64_t layer) {
  const int64_t h = spec.hidden_size;
  if (!spec.layers[static_cast<size_t>(layer)].has_mixer) return;
  if (spec.layers[static_cast<size_t>(layer)].kind == AttentionKind::kStateOnly &&
      spec.state.formula != StateLayerFormula::kNone)
    return AddStateMixer(list, spec, layer);
  if (spec.has_mla) {
    const MlaSpec& m = spec.mla;
    const int64_t heads = spec.num_attention_heads;
    const int64_t q_width = heads * (m.qk_nope_head_dim + m.qk_rope_head_dim);
    if (m.q_lora_rank > 0) {
      list.Add("attn.q_a_proj", WeightRole::kAttention, Sharding::kReplicated, m.q_lora_rank, h, 1, layer);
      AddNorm(list, spec, "attn.q_a_layernorm", m.q_lora_rank, layer);
      list.Add("attn.q_b_proj", WeightRole::kAttention, Sharding::kRows, q_width, m.q_lora_rank, 1, layer);
    } else {
      list.Add("attn.q_proj", WeightRole::kAttention, Sharding::kRows, q_width, h, 1, layer);
    }
    list.Add("attn.kv_a_proj_with_mqa", WeightRole::kAttention, Sharding::kReplicated,
             m.kv_lora_rank + m.qk_rope_head_dim, h, 1, layer);
    AddNorm(list, spec, "attn.kv_a_layernorm", m.kv_lora_rank, layer);
    list.Add("attn.kv_b_proj", WeightRole::kAttention, Sharding::kRows,
             heads * (m.qk_nope_head_dim + m.v_head_dim), m.kv_lora_rank, 1, layer);
    list.Add("attn.o_proj", WeightRole::kAttention, Sharding::kCols, h, heads * m.v_head_dim, 1, layer);
    if (m.indexer_heads > 0 && m.HasIndexer(layer)) {  // DeepSeek-V3.2 lightning indexer
      const int64_t q_in = m.q_lora_rank > 0 ? m.q_lora_rank : h;
      list.Add("attn.indexer.wq_b", WeightRole::kAttention, Sharding::kReplicated,
               m.indexer_heads * m.indexer_head_dim, q_in, 1, layer);
      list.Add("attn.indexer.wk", WeightRole::kAttention, Sharding::kReplicated, m.indexer_head_dim, h, 1, layer);
      list.Add("attn.indexer.k_norm", WeightRole::kNorm, Sharding::kReplicated, m.indexer_head_dim, 1, 2, layer);
      list.Add("attn.indexer.weights_proj", WeightRole::kRouter, Sharding::kReplicated, m.indexer_heads, h, 1, layer);
    }
    return;
  }
  const int64_t q_width = spec.num_attention_heads * spec.head_dim;
  const int64_t kv_width = spec.num_kv_heads * spec.head_dim;
  // Qwen3-Next's and Qwen3.5's gated attention projects a sigmoid gate per query channel beside the
  // query (attn_output_gate, qwen3_next.py Qwen3NextAttention).
  const int64_t q_out = UsesGatedDeltaNet(spec.model_type) ? 2 * q_width : q_width;
  list.Add("attn.q_proj", WeightRole::kAttention, Sharding::kRows, q_out, h, 1, layer);
  list.Add("attn.k_proj", WeightRole::kAttention, Sharding::kKvHeads, kv_width, h, 1, layer);
  list.Add("attn.v_proj", WeightRole::kAttention, Sharding::kKvHeads, kv_width, h, 1, layer);
  list.Add("attn.o_proj", WeightRole::kAttention, Sharding::kCols, h, q_width, 1, layer);
  if (spec.qkv_bias) {
    list.Add("attn.q_proj.bias", WeightRole::kBias, Sharding::kRows, q_width, 1, 1, layer);
    list.Add("attn.kv_proj.bias", WeightRole::kBias, Sharding::kKvHeads, kv_width, 1, 2, layer);
  }
  if (spec.o_proj_bias) list.Add("attn.o_proj.bias", WeightRole::kBias, Sharding::kReplicated, h, 1, 1, layer);
  if (spec.qk_norm) list.Add("attn.qk_norm", WeightRole::kNorm, Sharding::kReplicated, spec.head_dim, 1, 2, layer);
  if (spec.attention_sinks > 0)
    list.Add("attn.sinks", WeightRole::kOther, Sharding::kRows, spec.attention_sinks, 1, 1, layer);
}

// A gated (gate+up+down) or plain (up+down) MLP of width `inter` reading and writing `h` channels
// (the hidden size unless a latent MoE narrows it), repeated `copies` times.
void AddMlp(TensorList& list, const ModelSpec& spec, const std::string& name, WeightRole role, int64_t inter,
            int64_t copies, bool bias, int64_t layer, int64_t h) {
  const int64_t up_rows = spec.mlp_kind == MlpKind::kGated ? 2 * inter : inter;
  list.Add(name + ".gate_up_proj", role, Sharding::kRows, up_rows, h, copies, layer);
  list.Add(name + ".down_proj", role, Sharding::kCols, h, inter, copies, layer);
  if (bias) {
    list.Add(name + ".gate_up_proj.bias", WeightRole::kBias, Sharding::kRows, up_rows, 1, copies, layer);
    list.Add(name + ".down_proj.bias", WeightRole::kBias, Sharding::kReplicated, h, 1, copies, layer);
  }
}

void AddFeedForward(TensorList& list, const ModelSpec& spec, int64_t layer) {
  const MoeSpec& moe = spec.moe;
  if (!moe.layer_has_mlp.empty() && !moe.layer_has_mlp[static_cast<size_t>(layer)]) return;
  const bool moe_layer = spec.is_moe() && moe.layer_is_moe[layer];
  if (!moe_layer) {
    const int64_t inter = spec.is_moe() ? moe.dense_intermediate_size : spec.intermediate_size;
    AddMlp(list, spec, "mlp", WeightRole::kMlp, inter, 1, spec.mlp_bias, layer, spec.hidden_size);
    return;
  }
  const int64_t h = spec.hidden_size;
  list.Add("moe.router", WeightRole::kRouter, Sharding::kReplicated, moe.num_experts, h, 1, layer);
  if (moe.router_bias) list.Add("moe.router.bias", WeightRole::kBias, Sharding::kReplicated, moe.num_experts, 1, 1, layer);
  if (moe.router_correction_bias)
    list.Add("moe.e_score_correction_bias", WeightRole::kBias, Sharding::kReplicated, moe.num_experts, 1, 1, layer);
  // Nemotron-3's LatentMoE (vLLM's nemotron_h.py NemotronHMoE): fc1_latent_proj [latent, hidden] takes the
  // routed experts' input down to the latent width, they work there, and fc2_latent_proj [hidden, latent]
  // takes their sum back up; both replicated on every rank, biased only with mlp_bias. The router and the
  // shared experts read the hidden state.
  const int64_t expert_width = moe.latent_size > 0 ? moe.latent_size : h;
  if (moe.latent_size > 0) {
    list.Add("moe.fc1_latent_proj", WeightRole::kMlp, Sharding::kReplicated, moe.latent_size, h, 1, layer);
    list.Add("moe.fc2_latent_proj", WeightRole::kMlp, Sharding::kReplicated, h, moe.latent_size, 1, layer);
    if (spec.mlp_bias) {
      list.Add("moe.fc1_latent_proj.bias", WeightRole::kBias, Sharding::kReplicated, moe.latent_size, 1, 1, layer);
      list.Add("moe.fc2_latent_proj.bias", WeightRole::kBias, Sharding::kReplicated, h, 1, 1, layer);
    }
  }
  AddMlp(list, spec, "moe.experts", WeightRole::kExpert, moe.expert_intermediate_size, moe.num_experts,
         moe.expert_bias, layer, expert_width);
  if (moe.shared_intermediate_size > 0)
    AddMlp(list, spec, "moe.shared_expert", WeightRole::kMlp, moe.shared_intermediate_size, 1, false, layer, h);
  if (moe.shared_expert_gate)
    list.Add("moe.shared_expert_gate", WeightRole::kRouter, Sharding::kReplicated, 1, h, 1, layer);
}

}  // namespace

std::vector<WeightTensor> EnumerateWeights(const ModelSpec& spec) {
  std::vector<WeightTensor> out;
  TensorList list(out);
  const int64_t h = spec.hidden_size;

  list.Add("embed_tokens", WeightRole::kEmbedding, Sharding::kVocab, spec.vocab_size, h);
  out.back().on_first_stage = true;
  if (spec.learned_position_embeddings > 0) {
    list.Add("embed_positions", WeightRole::kEmbedding, Sharding::kReplicated, spec.learned_position_embeddings, h);
    out.back().on_first_stage = true;
  }
  for (int64_t layer = 0; layer < spec.num_layers; ++layer) {
    AddNorm(list, spec, "norms", h, layer);
    for (int64_t extra = 1; extra < spec.norms_per_layer; ++extra) AddNorm(list, spec, "norms", h, layer);
    AddAttention(list, spec, layer);
    AddFeedForward(list, spec, layer);
  }
  AddNorm(list, spec, "final_norm", h, -1);
  for (size_t i = out.size() - (spec.norm_kind == NormKind::kLayerNorm ? 2 : 1); i < out.size(); ++i)
    out[i].on_last_stage = true;
  if (!spec.tie_word_embeddings) {
    list.Add("lm_head", WeightRole::kLmHead, Sharding::kVocab, spec.vocab_size, h);
    out.back().on_last_stage = true;
  }
  if (spec.lm_head_bias) {
    list.Add("lm_head.bias", WeightRole::kBias, Sharding::kVocab, spec.vocab_size, 1);
    out.back().on_last_stage = true;
  }
  if (spec.vision_params > 0) {
    // vLLM shards the vision tower's linear layers like the language model's.
    list.Add("vision_encoder(estimated)", WeightRole::kVision, Sharding::kRows, spec.vision_params, 1);
    out.back().on_first_stage = true;
  }
  return out;
}

int64_t CountParameters(const ModelSpec& spec, bool include_final_norm) {
  int64_t total = 0;
  for (const WeightTensor& t : EnumerateWeights(spec)) {
    if (!include_final_norm && t.name.rfind("final_norm", 0) == 0) continue;
    total += t.elements();
  }
  return total;
}

int64_t CountActiveParameters(const ModelSpec& spec) {
  int64_t total = 0;
  for (const WeightTensor& t : EnumerateWeights(spec)) {
    if (t.role == WeightRole::kVision) continue;
    if (t.role == WeightRole::kExpert || (t.role == WeightRole::kBias && t.copies == spec.moe.num_experts && spec.is_moe())) {
      total += t.rows * t.cols * spec.moe.experts_per_token;
    } else {
      total += t.elements();
    }
  }
  return total;
}

int64_t CountMtpParameters(const ModelSpec& spec) {
  if (spec.mtp_layers == 0 || spec.num_layers == 0) return 0;
  int64_t layer = 0;
  for (const WeightTensor& t : EnumerateWeights(spec))
    if (t.layer == spec.num_layers - 1) layer += t.elements();
  const int64_t h = spec.hidden_size;
  // enorm, hnorm, the shared head's norm, and eh_proj [h, 2h].
  return spec.mtp_layers * (layer + 3 * h + 2 * h * h);
}

int64_t CountDenseMlpParameters(const ModelSpec& spec) {
  std::vector<WeightTensor> tensors;
  TensorList list(tensors);
  AddMlp(list, spec, "mlp", WeightRole::kMlp, spec.intermediate_size, 1, spec.mlp_bias, 0, spec.hidden_size);
  int64_t total = 0;
  for (const auto& t : tensors) total += t.elements();
  return total;
}

}  // namespace kvsim
