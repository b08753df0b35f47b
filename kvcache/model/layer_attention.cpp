// ReadLayerAttention (model_families.h): which layers attend over everything, over a window or a
// chunk, or keep only a state, and which read another layer's KV.
#include "kvcache/base/text_format.h"
#include "kvcache/model/model_families.h"

#include <algorithm>

namespace kvsim {
namespace {

bool IsStateOnlyLayerType(const std::string& kind) {
  return kind == "linear_attention" || kind == "mamba" || kind == "mamba2" || kind == "ssm" ||
         kind == "conv" || kind == "recurrent";
}

// A config that lists every layer's kind (`layer_types`, as gpt-oss, Gemma 3n and Qwen3-Next write) is
// authoritative. Returns false when there is no such list of the right length.
bool ReadExplicitLayerTypes(const FieldReader& r, int64_t window, ModelSpec& spec) {
  const int64_t n = spec.num_layers;
  const nlohmann::json& cfg = r.object();
  auto lt = cfg.find("layer_types");
  if (lt == cfg.end() || lt->is_null()) return false;
  // A list of the wrong length is not a hint to fall back on: guessing the pattern instead made
  // gpt-oss's KV cache 30x too large. Refuse it, naming both lengths.
  if (!lt->is_array() || static_cast<int64_t>(lt->size()) != n)
    throw Error(r.source() + ": " + r.prefix() + "layer_types: " +
                (lt->is_array() ? "has " + std::to_string(lt->size()) + " entries" : std::string("is not a list")) +
                " but num_hidden_layers is " + std::to_string(n));
  for (int64_t i = 0; i < n; ++i) {
    // An entry kvsim cannot place is refused rather than planned as full attention: a typo or a new
    // kind would otherwise size that layer's KV as the longest there is, without a word.
    const nlohmann::json& entry = (*lt)[i];
    const std::string kind = entry.is_string() ? entry.get<std::string>() : std::string();
    // NVIDIA's GLM-5.2 checkpoints name every layer "deepseek_sparse_attention": latent attention over
    // the whole context, whose top-k indexer (ReadMla) chooses the keys read, not the keys kept.
    const bool sparse = kind == "deepseek_sparse_attention";
    if (sparse && !(spec.has_mla && spec.mla.indexer_head_dim > 0))
      throw Error(r.source() + ": " + r.prefix() + "layer_types[" + std::to_string(i) + "]: " + entry.dump() +
                  " needs a latent-attention model with a top-k indexer (kv_lora_rank and index_head_dim)");
    if (kind != "full_attention" && kind != "attention" && kind != "sliding_attention" &&
        kind != "chunked_attention" && !sparse && !IsStateOnlyLayerType(kind))
      throw Error(r.source() + ": " + r.prefix() + "layer_types[" + std::to_string(i) + "]: " + entry.dump() +
                  " is not a layer kind kvsim knows (full_attention, attention, sliding_attention, chunked_attention, "
                  "deepseek_sparse_attention, linear_attention, mamba, mamba2, ssm, conv, recurrent)");
    if (kind == "sliding_attention" && window > 0) spec.layers[i] = {AttentionKind::kSlidingWindow, window};
    if (kind == "chunked_attention")
      spec.layers[i] = {AttentionKind::kChunkedLocal, r.Optional({"attention_chunk_size"}, window)};
    if (IsStateOnlyLayerType(kind)) spec.layers[i] = {AttentionKind::kStateOnly, 0};
  }
  return true;
}

// Without a list, each family's convention says which layers use the sliding window.
void ReadWindowPattern(const FieldReader& r, const std::string& type, int64_t window, ModelSpec& spec) {
  const int64_t n = spec.num_layers;
  if (type == "gemma2") {
    for (int64_t i = 0; i < n; i += 2) spec.layers[i] = {AttentionKind::kSlidingWindow, window};
    return;
  }
  if (StartsWith(type, "gemma3") || type == "cohere2" || r.Has("sliding_window_pattern")) {
    // Every pattern-th layer is global, the others local (Gemma 3: 5 local + 1 global; Cohere 2: 3 + 1).
    const int64_t pattern =
        std::max<int64_t>(1, r.Optional({"sliding_window_pattern"}, type == "cohere2" ? 4 : 6));
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
// Cross-layer KV sharing (Gemma 3n, Gemma 4 E-models): the last num_kv_shared_layers layers read the
// KV of the last layer of their own kind before them, as vLLM's gemma3n.py Gemma3nAttention sets
// kv_sharing_target_layer_name (first shared index F = layers - shared; target F - 2 for a sliding
// layer, F - 1 for a full one; no sharing when the target index is negative). The runner gives those
// layers no KV spec (gpu_model_runner get_kv_cache_spec), so they take no pages.
void ReadKvSharing(const FieldReader& r, ModelSpec& spec) {
  const int64_t n = spec.num_layers;
  const int64_t shared = r.Optional({"num_kv_shared_layers"}, 0);
  if (shared <= 0) return;
  if (shared >= n)
    throw Error(r.source() + ": " + r.prefix() + "num_kv_shared_layers: " + std::to_string(shared) +
                " leaves no layer of the " + std::to_string(n) + " to hold the KV it shares");
  const int64_t first = n - shared;
  int64_t sharing = 0;
  for (int64_t i = first; i < n; ++i) {
    LayerAttention& l = spec.layers[i];
    if (l.kind == AttentionKind::kStateOnly) continue;
    const int64_t target = first - (l.kind == AttentionKind::kSlidingWindow ? 2 : 1);
    if (target < 0) continue;
    l.shares_kv = true;
    ++sharing;
  }
  if (sharing > 0)
    spec.notes.push_back(std::to_string(sharing) + " layer(s) reuse an earlier layer's KV (num_kv_shared_layers): no pages of their own");
}

// The state shapes of the linear-attention / SSM layers, for the families whose fields vLLM's shape
// calculators read (qwen3_next.py, granitemoehybrid.py, nemotron_h.py). Absent fields leave the
// formula kNone: the planner then says the state is not modelled.
void ReadStateLayerShape(const FieldReader& r, const std::string& type, ModelSpec& spec) {
  StateLayerSpec& st = spec.state;
  if (UsesGatedDeltaNet(type)) {
    st.num_k_heads = r.Optional({"linear_num_key_heads"}, 0);
    st.num_v_heads = r.Optional({"linear_num_value_heads"}, 0);
    st.head_k_dim = r.Optional({"linear_key_head_dim"}, 0);
    st.head_v_dim = r.Optional({"linear_value_head_dim"}, 0);
    st.conv_kernel = r.Optional({"linear_conv_kernel_dim"}, 4);
    if (st.num_k_heads > 0 && st.num_v_heads > 0 && st.head_k_dim > 0 && st.head_v_dim > 0)
      st.formula = StateLayerFormula::kGatedDeltaNet;
    // vLLM's config.py hook for Qwen3.5 (v0.22 - v0.24 at least) sets the SSM cache dtype from
    // hf_text_config.mamba_ssm_dtype when the flag is auto; Qwen3-Next has no such hook.
    if (StartsWith(type, "qwen3_5")) spec.checkpoint_state_ssm_dtype = r.String("mamba_ssm_dtype", "");
    return;
  }
  const int64_t heads = r.Optional({"mamba_n_heads", "mamba_num_heads"}, 0);
  const int64_t head_dim = r.Optional({"mamba_d_head", "mamba_head_dim"}, 0);
  const int64_t d_state = r.Optional({"mamba_d_state", "ssm_state_size"}, 0);
  if (heads <= 0 || head_dim <= 0 || d_state <= 0) return;
  st.num_v_heads = heads;
  st.head_v_dim = head_dim;
  st.head_k_dim = d_state;
  st.n_groups = r.Optional({"mamba_n_groups", "n_groups"}, 1);
  st.conv_kernel = r.Optional({"mamba_d_conv", "conv_kernel"}, 4);
  // vLLM's granitemoehybrid.py sizes the mixer as mamba_expand x hidden, nemotron_h.py as heads x head_dim.
  const int64_t expand = r.Optional({"mamba_expand"}, 0);
  st.inner = expand > 0 && type != "nemotron_h" ? expand * spec.hidden_size : heads * head_dim;
  st.formula = StateLayerFormula::kMamba2;
  // vLLM's NemotronHForCausalLMConfig.verify_and_update_config (model_executor/models/config.py)
  // sets the SSM cache dtype from the config's mamba_ssm_cache_dtype when the flag is auto. Its
  // default for a config without the key moved (float16, later float32), so only a stated one is taken.
  if (type == "nemotron_h") spec.checkpoint_state_ssm_dtype = r.String("mamba_ssm_cache_dtype", "");
}

void ReadLayerKinds(const FieldReader& r, const std::string& type, ModelSpec& spec) {
  const int64_t n = spec.num_layers;
  spec.layers.assign(n, LayerAttention{});
  const nlohmann::json& cfg = r.object();
  const int64_t window = r.Optional({"sliding_window", "sliding_window_size"}, 0);

  if (ReadExplicitLayerTypes(r, window, spec)) return;
  if (const std::string pattern = HybridPattern(r, type, n); !pattern.empty()) {
    for (int64_t i = 0; i < n; ++i) {
      const char block = pattern[static_cast<size_t>(i)];
      if (block == 'M') spec.layers[i] = {AttentionKind::kStateOnly, 0};
      if (block == '-' || block == 'E') spec.layers[i].has_mixer = false;
    }
    return;
  }
  if (UsesGatedDeltaNet(type)) {
    // Gated DeltaNet linear attention, with full attention every `full_attention_interval` layers.
    const int64_t interval = std::max<int64_t>(1, r.Optional({"full_attention_interval"}, 4));
    for (int64_t i = 0; i < n; ++i)
      if ((i + 1) % interval != 0) spec.layers[i] = {AttentionKind::kStateOnly, 0};
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
  if (window > 0) ReadWindowPattern(r, type, window, spec);
}

}  // namespace

void ReadLayerAttention(const FieldReader& r, const std::string& type, ModelSpec& spec) {
  ReadLayerKinds(r, type, spec);
  ReadKvSharing(r, spec);
  if (spec.kv_layers() < spec.num_layers) ReadStateLayerShape(r, type, spec);
}

}  // namespace kvsim
