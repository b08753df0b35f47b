#include "kvcache/budget/lora_memory.h"

#include <algorithm>
#include <map>

#include "kvcache/base/check.h"

namespace kvsim {
namespace {

constexpr int64_t kVocabPadding = 64;       // vLLM DEFAULT_VOCAB_PADDING_SIZE
constexpr int64_t kLoraVocabPadding = 256;  // LoRAConfig.lora_vocab_padding_size: lm_head under LoRA

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t RoundUp(int64_t a, int64_t b) { return CeilDiv(a, b) * b; }

// vLLM's module name for a kvsim tensor: q/k/v are the slices of one packed qkv_proj.
std::string ModuleName(const std::string& tensor) {
  const std::string leaf = tensor.substr(tensor.rfind('.') + 1);
  if (leaf == "q_proj" || leaf == "k_proj" || leaf == "v_proj") return "qkv_proj";
  return leaf;
}

bool IsWrappedLinear(const WeightTensor& t) {
  if (t.layer < 0 || t.cols <= 1) return false;  // vectors, and the embeddings handled apart
  return t.role == WeightRole::kAttention || t.role == WeightRole::kMlp || t.role == WeightRole::kRouter;
}

struct SliceShape {
  int64_t slices = 1;
  int64_t a_rows = 0, a_cols = 0;  // per slice
  int64_t b_rows = 0, b_cols = 0;  // per slice
};

SliceShape ShapeOnRank(const WeightTensor& t, const ModelSpec& spec, const LoraSettings& l, int tp) {
  SliceShape s;
  const int64_t r = l.max_lora_rank;
  // gate_up of a gated MLP is two packed sub-modules (gate_proj, up_proj), one slice each.
  s.slices = (ModuleName(t.name) == "gate_up_proj" && spec.mlp_kind == MlpKind::kGated) ? 2 : 1;
  const int64_t rows = t.rows / s.slices;
  switch (t.sharding) {
    case Sharding::kRows:
    case Sharding::kKvHeads: {  // column-parallel: B holds this rank's output rows
      int64_t out = CeilDiv(rows, tp);
      if (t.sharding == Sharding::kKvHeads && spec.num_kv_heads > 0)
        out = rows / spec.num_kv_heads * std::max<int64_t>(1, spec.num_kv_heads / tp);
      s.a_rows = l.fully_sharded ? CeilDiv(r, tp) : r;
      s.a_cols = t.cols;
      s.b_rows = out;
      s.b_cols = r;
      break;
    }
    case Sharding::kCols:  // row-parallel: A holds this rank's input columns
      s.a_rows = r;
      s.a_cols = CeilDiv(t.cols, tp);
      s.b_rows = l.fully_sharded ? CeilDiv(rows, tp) : rows;
      s.b_cols = r;
      break;
    default:  // replicated
      s.a_rows = r;
      s.a_cols = t.cols;
      s.b_rows = rows;
      s.b_cols = r;
  }
  return s;
}

}  // namespace

double LoraMemory::gpu_bytes() const {
  double sum = extra_vocab_weight_bytes;
  for (const auto& m : modules) sum += m.total();
  return sum;
}

NumericFormat LoraDtype(const LoraSettings& l, NumericFormat model_dtype) {
  if (l.lora_dtype == "float16" || l.lora_dtype == "fp16") return NumericFormat::kFloat16;
  if (l.lora_dtype == "bfloat16" || l.lora_dtype == "bf16") return NumericFormat::kBFloat16;
  return model_dtype;
}

LoraMemory LoraBuffersOnGpu(const ModelSpec& spec, const std::vector<WeightTensor>& tensors, const LoraSettings& l,
                            NumericFormat model_dtype, const LoraPlacement& where) {
  KVSIM_DCHECK(l.enabled && where.tp >= 1);
  LoraMemory m;
  const double e = BytesPerElement(LoraDtype(l, model_dtype));
  m.element_bytes = e;
  const double w = BytesPerElement(model_dtype);
  const double slots = static_cast<double>(l.max_loras);
  const int64_t r = l.max_lora_rank, h = spec.hidden_size, tp = where.tp;
  std::map<std::string, size_t> index;
  std::map<std::string, int64_t> last_layer;
  std::map<std::string, int64_t> first_layer;  // the layer whose tensors give a module's kernel shape
  auto module = [&](const std::string& name) -> LoraModuleBytes& {
    auto it = index.find(name);
    if (it == index.end()) {
      it = index.emplace(name, m.modules.size()).first;
      m.modules.push_back({name});
    }
    return m.modules[it->second];
  };

  if (where.first_stage) {
    // VocabParallelEmbeddingWithLoRA: A [slots, V + extra, r], B [slots, 1, h, r] (not split over
    // TP), embeddings_tensors [slots, extra, h] in the model dtype.
    LoraModuleBytes& emb = module("embed_tokens");
    emb.layers = 1;
    emb.a_bytes = slots * static_cast<double>((spec.vocab_size + l.extra_vocab_size) * r) * e;
    emb.b_bytes = slots * static_cast<double>(h * r) * e;
    emb.other_bytes = slots * static_cast<double>(l.extra_vocab_size * h) * w;
    const int64_t v = spec.vocab_size + l.extra_vocab_size;
    m.kernels.push_back({"embed_tokens", 1, 1, r, v, h, v * r, h * r, false, true});
    const int64_t before = CeilDiv(RoundUp(spec.vocab_size, kVocabPadding), tp);
    const int64_t after = CeilDiv(RoundUp(spec.vocab_size + l.extra_vocab_size, kVocabPadding), tp);
    m.extra_vocab_weight_bytes += static_cast<double>((after - before) * h) * w;
  }
  for (const WeightTensor& t : tensors) {
    if (t.layer < where.first_layer || t.layer >= where.end_layer) continue;
    if (t.role == WeightRole::kExpert) {
      m.skipped_expert_elements += static_cast<double>(t.elements());
      continue;
    }
    if (!IsWrappedLinear(t)) continue;
    const SliceShape s = ShapeOnRank(t, spec, l, static_cast<int>(tp));
    LoraModuleBytes& mod = module(ModuleName(t.name));
    const double copies = slots * static_cast<double>(t.copies * s.slices);
    mod.a_bytes += copies * static_cast<double>(s.a_rows * s.a_cols) * e;
    mod.b_bytes += copies * static_cast<double>(s.b_rows * s.b_cols) * e;
    auto [it, fresh] = last_layer.emplace(mod.module, t.layer);
    if (fresh || it->second != t.layer) ++mod.layers;
    it->second = t.layer;
    // q, k and v (gate and up) are tensors of one packed module: one launch over their slices.
    const int64_t shaped = first_layer.emplace(mod.module, t.layer).first->second;
    auto k = std::find_if(m.kernels.begin(), m.kernels.end(), [&](const LoraKernelShape& x) { return x.module == mod.module; });
    if (k == m.kernels.end()) k = m.kernels.insert(m.kernels.end(), LoraKernelShape{mod.module});
    k->layers = mod.layers;
    if (t.layer == shaped) {
      const int64_t n = s.slices * t.copies;
      k->slices += n;
      k->rank = s.a_rows;
      k->in = s.a_cols;
      k->out_total += n * s.b_rows;
      k->a_elements += n * s.a_rows * s.a_cols;
      k->b_elements += n * s.b_rows * s.b_cols;
    }
  }
  if (where.last_stage) {
    // LogitsProcessorWithLoRA: A [slots, 1, r, h], B [slots, 1, (V + extra) padded to 256, r] over
    // the whole vocabulary, embeddings_tensors [slots, extra, h]; the lm_head itself is padded to
    // 256 under LoRA (Llama's ParallelLMHead padding_size = lora_vocab_padding_size).
    const int64_t vocab = spec.vocab_size + l.extra_vocab_size;
    LoraModuleBytes& head = module("lm_head");
    head.layers = 1;
    head.a_bytes = slots * static_cast<double>(r * h) * e;
    head.b_bytes = slots * static_cast<double>(RoundUp(vocab, kLoraVocabPadding) * r) * e;
    head.other_bytes = slots * static_cast<double>(l.extra_vocab_size * h) * w;
    const int64_t rows = RoundUp(vocab, kLoraVocabPadding);
    m.kernels.push_back({"lm_head", 1, 1, r, h, rows, r * h, rows * r, true, false});
    if (!spec.tie_word_embeddings && l.extra_vocab_size > 0) {
      const int64_t before = CeilDiv(RoundUp(spec.vocab_size, kVocabPadding), tp);
      const int64_t after = CeilDiv(RoundUp(vocab, kLoraVocabPadding), tp);
      m.extra_vocab_weight_bytes += static_cast<double>((after - before) * h) * w;
    }
  }
  // A host copy of an adapter holds every module whole, at the rank it was trained with; the cache
  // is sized here at max_lora_rank, its upper bound (vllm/lora/models.py LoRAModel tensors on CPU).
  double per_adapter = 0;
  for (const WeightTensor& t : tensors)
    if (IsWrappedLinear(t)) {
      const int64_t slices = ShapeOnRank(t, spec, l, 1).slices;
      per_adapter += static_cast<double>(t.copies * r * (t.rows + slices * t.cols)) * e;
    }
  m.host_bytes_per_adapter = per_adapter;
  m.host_bytes = per_adapter * static_cast<double>(l.cpu_loras());
  return m;
}

}  // namespace kvsim
