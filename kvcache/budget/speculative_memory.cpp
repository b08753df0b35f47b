#include "kvcache/budget/speculative_memory.h"

#include <algorithm>

#include "kvcache/base/text_format.h"
#include "kvcache/model/weight_tensors.h"

namespace kvsim {
namespace {

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

WeightTensor Tensor(std::string name, WeightRole role, Sharding sharding, int64_t rows, int64_t cols, int64_t layer) {
  WeightTensor t;
  t.name = std::move(name);
  t.role = role;
  t.sharding = sharding;
  t.rows = rows;
  t.cols = cols;
  t.layer = layer;
  return t;
}

// An EAGLE / EAGLE-3 head over `shape`'s dimensions (the draft config's, or the target's when none
// is given): `layers` Llama decoder layers whose first one reads `first_in` features.
std::vector<WeightTensor> EagleHead(const ModelSpec& shape, int64_t layers, int64_t first_in, int64_t fc_in) {
  const int64_t h = shape.hidden_size;
  const int64_t q = shape.num_attention_heads * shape.head_dim, kv = shape.num_kv_heads * shape.head_dim;
  std::vector<WeightTensor> out;
  out.push_back(Tensor("fc", WeightRole::kAttention, Sharding::kReplicated, h, fc_in, 0));
  for (int64_t l = 0; l < layers; ++l) {
    const int64_t in = l == 0 ? first_in : h;
    out.push_back(Tensor("attn.q_proj", WeightRole::kAttention, Sharding::kRows, q, in, l));
    out.push_back(Tensor("attn.k_proj", WeightRole::kAttention, Sharding::kKvHeads, kv, in, l));
    out.push_back(Tensor("attn.v_proj", WeightRole::kAttention, Sharding::kKvHeads, kv, in, l));
    out.push_back(Tensor("attn.o_proj", WeightRole::kAttention, Sharding::kCols, h, q, l));
    out.push_back(Tensor("mlp.gate_up_proj", WeightRole::kMlp, Sharding::kRows, 2 * shape.intermediate_size, h, l));
    out.push_back(Tensor("mlp.down_proj", WeightRole::kMlp, Sharding::kCols, h, shape.intermediate_size, l));
    out.push_back(Tensor("norms", WeightRole::kNorm, Sharding::kReplicated, h, 1, l));
    out.back().copies = 2;  // input_layernorm, post_attention_layernorm
  }
  out.push_back(Tensor("norm", WeightRole::kNorm, Sharding::kReplicated, h, 1, 0));
  return out;
}

}  // namespace

ProposerKind ClassifyProposer(const SpeculativeSettings& s) {
  const std::string& m = s.method;
  if (m.empty()) return ProposerKind::kNone;
  if (m == "ngram" || m == "suffix") return ProposerKind::kNgram;
  if (m == "eagle") return ProposerKind::kEagle;
  if (m == "eagle3") return ProposerKind::kEagle3;
  if (m == "medusa" || m == "mlp_speculator") return ProposerKind::kMedusa;
  if (m == "mtp" || EndsWith(m, "_mtp")) return ProposerKind::kMtp;  // deepseek_mtp, qwen3_next_mtp, ernie_mtp, ...
  return ProposerKind::kDraftModel;
}

DraftWeights DraftWeightsOnGpu(const ModelSpec& target, const std::vector<WeightTensor>& target_tensors,
                               const SpeculativeSettings& s, const QuantizationSpec& quant, NumericFormat dtype, int tp) {
  DraftWeights out;
  const ProposerKind kind = ClassifyProposer(s);
  const QuantizationSpec none;
  // vLLM builds the drafter's ModelConfig with the config's own quantization (an EAGLE head and a
  // draft model: their checkpoint's, else none; MTP layers: the target's) and loads it at
  // draft_tensor_parallel_size, 1 or the target's TP (speculative.py _verify_and_get_draft_tp).
  const auto quantized = [&](const QuantizationSpec& checkpoint) {
    return s.quantization.empty() ? checkpoint : ParseQuantizationFlag(s.quantization, checkpoint);
  };
  if (s.draft_tensor_parallel_size > 0) tp = s.draft_tensor_parallel_size;
  const std::string spelled = s.quantization.empty() ? std::string() : ", " + s.quantization;
  const std::string draft_tp = s.draft_tensor_parallel_size > 0 ? Format(", draft TP %d", tp) : std::string();
  const int64_t h = target.hidden_size;
  if (kind == ProposerKind::kNone || kind == ProposerKind::kNgram) return out;
  if (kind == ProposerKind::kEagle || kind == ProposerKind::kEagle3) {
    const ModelSpec& shape = s.draft ? *s.draft : target;
    const int64_t layers = s.draft ? shape.num_layers : 1;
    const bool three = kind == ProposerKind::kEagle3;
    std::vector<WeightTensor> head =
        EagleHead(shape, layers, three ? 2 * shape.hidden_size : shape.hidden_size, (three ? 3 : 2) * h);
    int64_t vocab = 0;
    if (three) {
      head.push_back(Tensor("hidden_norm", WeightRole::kNorm, Sharding::kReplicated, shape.hidden_size, 1, 0));
      vocab = shape.draft_vocab_size > 0 ? shape.draft_vocab_size : shape.vocab_size;
      head.push_back(Tensor("lm_head", WeightRole::kLmHead, Sharding::kVocab, vocab, shape.hidden_size, -1));
      head.back().on_last_stage = true;
    }
    ModelSpec one = shape;
    one.num_layers = layers;
    out.memory = WeightsOnGpu(one, head, quantized(s.draft ? shape.checkpoint_quantization : none), dtype, tp, 1, 0);
    out.memory.rope_cache_bytes = 0;  // get_rope caches by its arguments: the target's cos/sin buffer
    // draft_id_to_target_id, int64, when the draft vocabulary differs (llama_eagle3.py)
    if (three && vocab != target.vocab_size) out.memory.full_width_bytes += 8.0 * static_cast<double>(vocab);
    out.what = Format("%s head (%lld layer%s%s)", three ? "EAGLE-3" : "EAGLE", static_cast<long long>(layers),
                      layers == 1 ? "" : "s", three ? Format(", draft vocab %lld", static_cast<long long>(vocab)).c_str() : "") +
               spelled + draft_tp;
    return out;
  }
  if (kind == ProposerKind::kMtp && !s.draft) {
    const int64_t n = target.num_layers;
    out.memory = WeightsOnGpu(target, target_tensors, s.quantization.empty() ? quant : quantized(target.checkpoint_quantization),
                              dtype, tp, static_cast<int>(n), static_cast<int>(n - 1));
    out.memory.rope_cache_bytes = 0;
    // enorm, hnorm and eh_proj [h, 2h], unquantized and replicated.
    out.memory.full_width_bytes += static_cast<double>(2 * h + 2 * h * h) * BytesPerElement(dtype);
    // The drafter holds every one of the checkpoint's num_nextn_predict_layers, each with its own
    // shared_head (deepseek_mtp.py DeepSeekMultiTokenPredictor builds one layer per index).
    const int64_t layers = std::max<int64_t>(1, target.mtp_layers);
    out.memory.quantized_bytes *= static_cast<double>(layers);
    out.memory.full_width_bytes *= static_cast<double>(layers);
    out.what = (layers == 1 ? std::string("MTP layer (the target's last layer's shape, eh_proj, shared_head)")
                            : Format("%lld MTP layers (each the target's last layer's shape, eh_proj, shared_head)",
                                     static_cast<long long>(layers))) + spelled + draft_tp;
    return out;
  }
  if (s.draft) {
    const ModelSpec& d = *s.draft;
    out.memory = WeightsOnGpu(d, EnumerateWeights(d), quantized(d.checkpoint_quantization), dtype, tp, 1, 0);
    out.what = "draft model " + d.name + spelled + draft_tp;
  }
  return out;
}

std::optional<ModelSpec> ProposerModel(const ModelSpec& target, const SpeculativeSettings& s) {
  const ProposerKind kind = ClassifyProposer(s);
  if (kind == ProposerKind::kDraftModel) return s.draft ? std::optional<ModelSpec>(*s.draft) : std::nullopt;
  if (kind != ProposerKind::kEagle && kind != ProposerKind::kEagle3 && kind != ProposerKind::kMtp) return std::nullopt;
  if (s.draft && kind != ProposerKind::kMtp) {
    ModelSpec d = *s.draft;
    if (d.draft_vocab_size > 0) d.vocab_size = d.draft_vocab_size;  // EAGLE-3's lm_head
    return d;
  }
  // One layer of the target's last layer's shape (an MTP layer is one; an EAGLE head without a
  // config is taken as one).
  ModelSpec one = target;
  const size_t last = static_cast<size_t>(target.num_layers - 1);
  one.num_layers = 1;
  if (!target.layers.empty()) one.layers = {target.layers[last]};
  one.mla.indexer_on_layer.clear();  // an MTP layer runs its own indexer (it lies past the schedule's layers)
  if (!target.moe.layer_is_moe.empty()) one.moe.layer_is_moe = {target.moe.layer_is_moe[last]};
  if (!target.moe.layer_has_mlp.empty()) one.moe.layer_has_mlp = {target.moe.layer_has_mlp[last]};
  return one;
}

int64_t ProposerPasses(const SpeculativeSettings& s) {
  const ProposerKind kind = ClassifyProposer(s);
  const bool gpu = kind == ProposerKind::kEagle || kind == ProposerKind::kEagle3 || kind == ProposerKind::kMtp ||
                   (kind == ProposerKind::kDraftModel && s.draft);
  return gpu ? s.num_speculative_tokens : 0;
}

}  // namespace kvsim
