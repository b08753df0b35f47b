// ModelSpec: the shapes of a decoder-only transformer that decide its memory, read from a
// Hugging Face config.json (see model_config_parser.h). Architecture-neutral: one struct covers
// dense GQA models, MoE, MLA and interleaved sliding-window / chunked-local attention.
#ifndef KVSIM_KVCACHE_MODEL_MODEL_SPEC_H_
#define KVSIM_KVCACHE_MODEL_MODEL_SPEC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "kvcache/model/numeric_format.h"
#include "kvcache/model/quantization.h"
#include "kvcache/model/vision_spec.h"

namespace kvsim {

// What a layer's attention keeps in the KV cache.
enum class AttentionKind {
  kFull,           // every token of the context
  kSlidingWindow,  // the last `window_tokens` tokens (Mistral v0.1, Gemma 2/3 local layers, gpt-oss)
  kChunkedLocal,   // tokens of the current chunk of `window_tokens` (Llama 4 RoPE layers)
  kStateOnly,      // linear attention / SSM (Qwen3-Next, Mamba hybrids): a fixed-size state per
                   // request and no per-token KV; kvsim leaves that state out of the KV pool
};

struct LayerAttention {
  AttentionKind kind = AttentionKind::kFull;
  int64_t window_tokens = 0;  // window or chunk size; 0 for kFull
  // Cross-layer KV sharing (config num_kv_shared_layers, vLLM's kv_sharing_target_layer_name):
  // the layer attends over an earlier layer's KV and keeps none of its own.
  bool shares_kv = false;
  // False for a block with an MLP or MoE and no token mixer at all (Nemotron-H's '-' and 'E' layers
  // of hybrid_override_pattern): it keeps neither KV nor state.
  bool has_mixer = true;

  // True when the layer keeps per-token KV of its own in the pool.
  bool HasOwnKv() const { return has_mixer && kind != AttentionKind::kStateOnly && !shares_kv; }
};

enum class NormKind { kRmsNorm, kLayerNorm };  // LayerNorm also has a bias vector
enum class MlpKind { kGated, kPlain };         // gated = gate+up+down (SwiGLU/GeGLU); plain = up+down

struct MoeSpec {
  int64_t num_experts = 0;                 // routed experts; 0 means a dense model
  int64_t experts_per_token = 0;
  int64_t expert_intermediate_size = 0;    // width of one routed expert
  int64_t shared_intermediate_size = 0;    // total width of the always-on shared expert(s); 0 = none
  bool shared_expert_gate = false;         // Qwen2-MoE: sigmoid gate, hidden -> 1
  bool router_bias = false;                // gpt-oss
  bool expert_bias = false;                // gpt-oss experts carry biases
  bool router_correction_bias = false;     // DeepSeek-V3 e_score_correction_bias [num_experts]
  std::vector<bool> layer_is_moe;          // per layer; dense layers use dense_intermediate_size
  // Per layer: false for a mixer-only block (Nemotron-H's attention and Mamba layers have no MLP).
  // Empty: every layer has its feed-forward.
  std::vector<bool> layer_has_mlp;
  int64_t dense_intermediate_size = 0;
  // Nemotron-3's LatentMoE (moe_latent_size): the routed experts work in this narrower width, between a
  // projection down from the hidden state and one back up; 0 = the experts read the hidden state.
  int64_t latent_size = 0;
};

// DeepSeek multi-head latent attention.
struct MlaSpec {
  int64_t q_lora_rank = 0;  // 0: queries projected directly from the hidden state
  int64_t kv_lora_rank = 0;
  int64_t qk_nope_head_dim = 0;
  int64_t qk_rope_head_dim = 0;
  int64_t v_head_dim = 0;
  int64_t indexer_heads = 0;     // DeepSeek-V3.2 sparse-attention indexer (0 = none)
  int64_t indexer_head_dim = 0;
  // Per layer, whether it runs an indexer of its own (weights and key cache); the others reuse the
  // top-k of the last layer that did (GLM-5.2's IndexShare, kvcache/model/indexer_schedule.h).
  // Empty: every layer does, as in DeepSeek-V3.2 and GLM-5; layers past its end (MTP) do too.
  std::vector<bool> indexer_on_layer;
  bool fp8_ds_mla_default = false;  // V3.2: vLLM stores the latent as fp8_ds_mla (656 B/token/layer)

  bool HasIndexer(int64_t layer) const {
    return indexer_head_dim > 0 &&
           (layer < 0 || static_cast<size_t>(layer) >= indexer_on_layer.size() || indexer_on_layer[static_cast<size_t>(layer)]);
  }
};

// The fixed per-request state of a linear-attention / SSM layer, shaped as vLLM's
// MambaStateShapeCalculator does (vllm/model_executor/layers/mamba/mamba_utils.py):
//   Gated DeltaNet (Qwen3-Next): conv (kernel - 1) x (2 Hk dk + Hv dv) / TP, temporal (Hv / TP) x dk x dv
//   Mamba2 (Granite-4.0-H, Nemotron-H): groups padded to a multiple of TP when TP does not divide them;
//                  conv (kernel - 1) x (inner + 2 groups d_state) / TP, temporal (heads / TP) x head_dim x d_state
enum class StateLayerFormula { kNone, kGatedDeltaNet, kMamba2 };

struct StateLayerSpec {
  StateLayerFormula formula = StateLayerFormula::kNone;  // kNone: shapes unknown, the state is not modelled
  int64_t conv_kernel = 4;
  int64_t num_k_heads = 0;   // Gated DeltaNet key heads; Mamba2: 0
  int64_t num_v_heads = 0;   // Gated DeltaNet value heads; Mamba2: SSM heads
  int64_t head_k_dim = 0;    // Mamba2: d_state
  int64_t head_v_dim = 0;    // Mamba2: head_dim
  int64_t n_groups = 0;      // Mamba2 B/C groups
  int64_t inner = 0;         // Mamba2 inner width (Granite: expand x hidden; Nemotron-H: heads x head_dim)
};

// What a model's QK norms (qk_norm) normalize over, which decides what tensor parallelism costs them
// (vLLM's model files): each head alone (Qwen3, Gemma 3: a rank holds every head it normalizes); all
// heads at once, the ranks' per-token sums of squares all-reduced (MiniMax-M2: MiniMaxText01RMSNormTP in
// minimax_m2.py); or all heads at once after q and k are gathered whole (OLMo 2 and 3: olmo2.py
// _apply_qk_norm all-gathers them, normalizes and splits them again).
enum class QkNormSpan { kPerHead, kAllHeadsReduced, kAllHeadsGathered };

struct ModelSpec {
  std::string name;           // preset id or file path, as the user gave it
  std::string architecture;   // architectures[0], e.g. "LlamaForCausalLM"
  std::string model_type;     // text model_type, e.g. "llama"

  int64_t hidden_size = 0;
  int64_t num_layers = 0;
  int64_t num_attention_heads = 0;
  int64_t num_kv_heads = 0;
  int64_t head_dim = 0;
  int64_t intermediate_size = 0;
  int64_t vocab_size = 0;
  int64_t draft_vocab_size = 0;        // EAGLE-3 heads: their own lm_head's vocabulary (0: vocab_size)
  // Multi-token-prediction layers shipped beside the decoder (num_nextn_predict_layers; Qwen3.5's
  // mtp_num_hidden_layers). Not in num_layers: vLLM's causal-LM class skips them and only the MTP
  // drafter (--speculative-config method "mtp") loads them. 0: the checkpoint has none.
  int64_t mtp_layers = 0;
  int64_t max_position_embeddings = 0;
  int64_t derived_max_model_len = 0;   // what vLLM takes as max_model_len when none is given

  bool tie_word_embeddings = false;
  bool qkv_bias = false;
  bool o_proj_bias = false;
  bool mlp_bias = false;
  bool lm_head_bias = false;
  bool qk_norm = false;                    // per-head q_norm/k_norm weights (Qwen3, OLMo2)
  QkNormSpan qk_norm_span = QkNormSpan::kPerHead;
  int64_t attention_sinks = 0;             // learned per-head sink logits per layer (gpt-oss)
  int64_t learned_position_embeddings = 0; // rows of a learned position table (OPT: max_pos + 2)
  NormKind norm_kind = NormKind::kRmsNorm;
  int64_t norms_per_layer = 2;             // Gemma 2/3: 4; Phi-2 (parallel block): 1
  MlpKind mlp_kind = MlpKind::kGated;
  // Dropout probabilities (they matter to training memory only): on the attention probabilities, and
  // on the attention / MLP outputs before the residual adds. Modern decoder configs set both to 0.
  double attention_dropout = 0;
  double hidden_dropout = 0;

  std::vector<LayerAttention> layers;      // size num_layers
  StateLayerSpec state;                    // shapes of the kStateOnly layers' per-request state
  // The SSM / temporal state's dtype the checkpoint asks for (Nemotron-H's mamba_ssm_cache_dtype,
  // Qwen3.5's mamba_ssm_dtype), which vLLM takes when --mamba-ssm-cache-dtype is auto. Empty: none.
  std::string checkpoint_state_ssm_dtype;
  MoeSpec moe;
  bool has_mla = false;
  MlaSpec mla;

  int64_t rotary_dim = 0;                  // width of the RoPE cos/sin cache (0: no RoPE)
  int64_t rope_cache_positions = 0;        // rows of that cache

  NumericFormat dtype = NumericFormat::kBFloat16;   // torch_dtype
  QuantizationSpec checkpoint_quantization;         // from quantization_config

  int64_t vision_params = 0;   // multimodal encoder + projector, estimated from vision_config
  VisionSpec vision;           // what sizes vLLM's encoder profile run
  std::vector<std::string> notes;  // assumptions taken while reading the config

  bool is_moe() const { return moe.num_experts > 0; }
  // Layers that keep per-token KV of their own (not kStateOnly, not sharing another layer's).
  int64_t kv_layers() const {
    int64_t n = 0;
    for (const auto& l : layers) n += l.HasOwnKv();
    return n;
  }
  // Layers that attend over a KV cache, their own or a shared one (all but kStateOnly and MLP-only blocks).
  int64_t attention_layers() const {
    int64_t n = 0;
    for (const auto& l : layers) n += l.has_mixer && l.kind != AttentionKind::kStateOnly;
    return n;
  }
};

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_MODEL_MODEL_SPEC_H_
