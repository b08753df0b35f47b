#include "kvcache/training/training_activations.h"

#include <algorithm>

#include "kvcache/base/units.h"

namespace kvsim {
namespace {

struct RankWidths {
  double d = 0;       // hidden, divided by T under sequence parallelism (norm region)
  double q = 0, k = 0, v = 0;
  double heads = 0;   // query heads on this rank
};

RankWidths WidthsOf(const ModelSpec& spec, const ActivationSettings& s) {
  RankWidths w;
  const int64_t tp = s.tp;
  w.d = static_cast<double>(spec.hidden_size) / (s.sequence_parallel ? static_cast<double>(tp) : 1.0);
  const int64_t heads = std::max<int64_t>(1, CeilDiv(spec.num_attention_heads, tp));
  w.heads = static_cast<double>(heads);
  if (spec.has_mla) {
    const MlaSpec& m = spec.mla;
    w.q = w.k = static_cast<double>(heads * (m.qk_nope_head_dim + m.qk_rope_head_dim));
    w.v = static_cast<double>(heads * m.v_head_dim);
  } else {
    w.q = static_cast<double>(heads * spec.head_dim);
    w.k = w.v = static_cast<double>(std::max<int64_t>(1, spec.num_kv_heads / tp) * spec.head_dim);
  }
  return w;
}

// HF's RMSNorm upcasts its input to fp32 (kept by pow) and keeps the normalised 16-bit input for the
// weight multiply; LayerNorm's fused kernel keeps only its input.
double NormBytes(const ModelSpec& spec, double d, double a) {
  return spec.norm_kind == NormKind::kRmsNorm ? (4 + a) * d : a * d;
}

// LoRA on one linear with `cols` inputs (PEFT under autocast): each adapter casts its input to the
// adapter dtype and autocast casts it back for the matmul, so lora_A keeps its own compute-dtype copy
// of the input, and lora_B keeps the rank-r hidden state.
void AddLora(std::vector<SavedTensor>& out, const std::string& name, double cols, double copies,
             const ActivationSettings& s) {
  out.push_back({"lora " + name + " input copy + hidden",
                 copies * s.compute_bytes * (cols + static_cast<double>(s.lora_rank))});
}

void AddAttention(std::vector<SavedTensor>& out, const ModelSpec& spec, const RankWidths& w,
                  const ActivationSettings& s) {
  const double a = s.compute_bytes;
  const double full_d = static_cast<double>(spec.hidden_size);
  out.push_back({"input norm", NormBytes(spec, w.d, a)});
  if (s.attention_trainable) out.push_back({"q/k/v input (norm output)", a * w.d});
  if (spec.has_mla) {
    const MlaSpec& m = spec.mla;
    out.push_back({"MLA latents (kv_a, q_a outputs)", a * static_cast<double>(m.kv_lora_rank + m.q_lora_rank)});
  }
  const double seq = static_cast<double>(s.seq_len);
  const double out_width = spec.has_mla ? w.v : w.q;  // heads x V head width
  if (s.flash_attention) {
    out.push_back({"q, k, v (flash)", a * (w.q + w.k + w.v)});
    out.push_back({"attention output (flash; also the o_proj input)", a * out_width});
    out.push_back({"softmax logsumexp (fp32)", 4 * w.heads});
  } else {
    // Eager attention repeats GQA K/V to every query head (repeat_kv copies) before the matmuls.
    const double k_rep = spec.has_mla ? w.k : w.q, v_rep = spec.has_mla ? w.v : w.q;
    out.push_back({"q, K and V repeated to the query heads", a * (w.q + k_rep + v_rep)});
    out.push_back({"softmax output (fp32) n*s", 4 * w.heads * seq, true});
    if (spec.attention_dropout > 0) {
      // The dropout keeps its 1-byte mask; P·V keeps the dropped probabilities instead of the cast ones.
      out.push_back({"attention dropout mask + output n*s", (1 + a) * w.heads * seq, true});
    } else if (a < 4) {
      out.push_back({"attention probabilities n*s", a * w.heads * seq, true});
    }
    if (s.attention_trainable) out.push_back({"o_proj input", a * out_width});
  }
  // Dropout on the attention output before the residual add keeps a 1-byte mask.
  if (spec.hidden_dropout > 0) out.push_back({"attention-output dropout mask", w.d});
  if (s.lora_attention) {
    AddLora(out, "q/k/v_proj", full_d, 3, s);
    AddLora(out, "o_proj", out_width * s.tp, 1, s);
  }
}

// A gated or plain MLP of width `inter` (this rank's share), `copies` per token.
void AddMlp(std::vector<SavedTensor>& out, const ModelSpec& spec, const std::string& name, double inter,
            double copies, const ActivationSettings& s) {
  const double a = s.compute_bytes;
  const bool gated = spec.mlp_kind == MlpKind::kGated;
  // gated: SiLU keeps the gate output, the product keeps act(gate) and up; plain: the activation's input.
  out.push_back({name + (gated ? " gate, act(gate), up" : " activation input"), copies * a * inter * (gated ? 3 : 1)});
  if (s.mlp_trainable) out.push_back({name + " down_proj input", copies * a * inter});
  if (s.lora_mlp) {
    AddLora(out, name + (gated ? " gate/up_proj" : " up_proj"), static_cast<double>(spec.hidden_size), copies * (gated ? 2 : 1), s);
    AddLora(out, name + " down_proj", inter * s.tp, copies, s);
  }
}

void AddFeedForward(std::vector<SavedTensor>& out, const ModelSpec& spec, int64_t layer, const RankWidths& w,
                    const ActivationSettings& s) {
  const double a = s.compute_bytes;
  const MoeSpec& moe = spec.moe;
  const bool moe_layer = spec.is_moe() && moe.layer_is_moe[layer];
  if (spec.norms_per_layer == 1) {
    // Parallel block (Phi-2): the MLP reads the same norm output as the attention.
    if ((s.mlp_trainable || moe_layer) && !s.attention_trainable) out.push_back({"MLP input (norm output)", a * w.d});
  } else {
    out.push_back({"post-attention norm", NormBytes(spec, w.d, a)});
    if (s.mlp_trainable || moe_layer) out.push_back({"MLP input (norm output)", a * w.d});
  }
  // Gemma 2/3 also normalise the attention and MLP outputs before the residual adds.
  if (spec.norms_per_layer >= 4) out.push_back({"attention/MLP output norms", 2 * NormBytes(spec, w.d, a)});
  if (spec.hidden_dropout > 0) out.push_back({"MLP-output dropout mask", w.d});
  if (!moe_layer) {
    const int64_t inter = spec.is_moe() ? moe.dense_intermediate_size : spec.intermediate_size;
    AddMlp(out, spec, "MLP", static_cast<double>(CeilDiv(inter, s.tp)), 1, s);
    return;
  }
  const double k = static_cast<double>(moe.experts_per_token);
  const double d = static_cast<double>(spec.hidden_size);
  out.push_back({"router probabilities (fp32)", 4 * static_cast<double>(moe.num_experts)});
  out.push_back({"routed token copies (top-k inputs and outputs)", k * 2 * a * d});
  AddMlp(out, spec, "experts", static_cast<double>(CeilDiv(moe.expert_intermediate_size, s.tp)), k, s);
  if (moe.shared_intermediate_size > 0)
    AddMlp(out, spec, "shared expert", static_cast<double>(CeilDiv(moe.shared_intermediate_size, s.tp)), 1, s);
}

}  // namespace

double SumBytes(const std::vector<SavedTensor>& tensors) {
  double sum = 0;
  for (const auto& t : tensors) sum += t.bytes_per_token;
  return sum;
}

std::vector<SavedTensor> LayerSavedTensors(const ModelSpec& spec, int64_t layer, const ActivationSettings& s) {
  std::vector<SavedTensor> out;
  const RankWidths w = WidthsOf(spec, s);
  AddAttention(out, spec, w, s);
  AddFeedForward(out, spec, layer, w, s);
  return out;
}

double LayerKeptBytesPerToken(const std::vector<SavedTensor>& tensors, const ModelSpec& spec,
                              const ActivationSettings& s) {
  switch (s.recompute) {
    case Recompute::kNone: return SumBytes(tensors);
    case Recompute::kSelective: {
      double sum = 0;
      for (const auto& t : tensors) sum += t.quadratic ? 0 : t.bytes_per_token;
      return sum;
    }
    case Recompute::kFull:
      // The checkpointed layer input (sequence-parallel: this rank's share of the tokens).
      return s.compute_bytes * static_cast<double>(spec.hidden_size) / (s.sequence_parallel ? s.tp : 1);
  }
  return SumBytes(tensors);
}

HeadActivations HeadSavedTensors(const ModelSpec& spec, const ActivationSettings& s) {
  HeadActivations h;
  const double a = s.compute_bytes;
  const double d = static_cast<double>(spec.hidden_size) / (s.sequence_parallel ? s.tp : 1);
  const double v = static_cast<double>(CeilDiv(spec.vocab_size, s.tp));  // vocab-parallel logits
  h.saved.push_back({"final norm", NormBytes(spec, d, a)});
  if (s.lm_head_trainable) h.saved.push_back({"lm_head input", a * d});
  h.saved.push_back({"log-softmax (fp32, kept by the loss)", 4 * v});
  h.saved.push_back({"input ids and labels (int64)", 16.0 / (s.sequence_parallel ? s.tp : 1)});
  // The loss forward holds the logits (a·V) and their fp32 copy (4V, none in fp32) beside the
  // log-softmax; its backward the gradients of the log-probabilities and of the fp32 logits (8V).
  h.transient_bytes_per_token = std::max((a < 4 ? a + 4 : 4) * v, 8 * v);
  return h;
}

}  // namespace kvsim
