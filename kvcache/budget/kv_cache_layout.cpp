#include "kvcache/budget/kv_cache_layout.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "kvcache/base/check.h"
#include "kvcache/base/error.h"
#include "kvcache/base/units.h"

namespace kvsim {

KvCacheFormat ParseKvCacheFormat(const std::string& flag, const ModelSpec& spec, NumericFormat model_dtype) {
  KvCacheFormat f;
  f.name = flag;
  f.state_bytes_per_element = f.temporal_bytes_per_element = BytesPerElement(model_dtype);
  if (flag == "auto" || flag.empty()) {
    f.name = "auto";
    f.bytes_per_element = BytesPerElement(model_dtype);
    f.fp8_ds_mla = spec.has_mla && spec.mla.fp8_ds_mla_default;
    return f;
  }
  if (flag == "fp8_ds_mla") {
    if (!spec.has_mla) throw Error("--kv-cache-dtype fp8_ds_mla: only for MLA models");
    f.fp8_ds_mla = true;
    f.bytes_per_element = 1.0;
    return f;
  }
  auto fmt = ParseNumericFormat(flag);
  if (!fmt) throw Error("--kv-cache-dtype: '" + flag + "' is not known (auto, fp16, bf16, fp8, fp8_e4m3, fp8_e5m2, int8, int4)");
  f.bytes_per_element = BytesPerElement(*fmt);
  return f;
}

void ApplyStateDtypes(const std::string& mamba_cache_dtype, const std::string& mamba_ssm_cache_dtype, KvCacheFormat& f) {
  auto bytes = [](const std::string& name, const char* flag) -> double {
    if (name == "float32" || name == "fp32") return 4.0;
    if (name == "float16" || name == "fp16" || name == "half" || name == "bfloat16" || name == "bf16") return 2.0;
    throw Error(std::string(flag) + ": '" + name + "' is not known (auto, float32, float16, bfloat16)");
  };
  if (!mamba_cache_dtype.empty() && mamba_cache_dtype != "auto")
    f.state_bytes_per_element = f.temporal_bytes_per_element = bytes(mamba_cache_dtype, "--mamba-cache-dtype");
  if (!mamba_ssm_cache_dtype.empty() && mamba_ssm_cache_dtype != "auto")
    f.temporal_bytes_per_element = bytes(mamba_ssm_cache_dtype, "--mamba-ssm-cache-dtype");
}

std::map<std::pair<AttentionKind, int64_t>, int64_t> KvCacheLayout::LayersPerType() const {
  std::map<std::pair<AttentionKind, int64_t>, int64_t> types;
  for (const KvCacheGroup& g : groups) types[{g.kind, g.window_tokens}] += g.num_layers;
  return types;
}

void AssignLayerGroups(const std::map<std::pair<AttentionKind, int64_t>, int64_t>& types, KvCacheLayout& layout) {
  KVSIM_DCHECK(layout.page_bytes > 0);  // the page size comes first
  layout.groups.clear();
  layout.padding_layers = 0;
  layout.group_size = 0;
  if (types.size() == 1) {
    const auto& [key, count] = *types.begin();
    layout.group_size = count;
    layout.groups.push_back({key.first, key.second, count});
  } else if (!types.empty()) {
    int64_t min_count = INT64_MAX, max_count = 0;
    for (const auto& [key, count] : types) {
      KVSIM_DCHECK(count > 0);
      min_count = std::min(min_count, count);
      max_count = std::max(max_count, count);
    }
    // vLLM: groups as large as the rarest type, unless the types are nearly balanced, in which case
    // pad the smaller ones up to the largest (fewer groups, a little padding).
    layout.group_size = static_cast<double>(max_count) < 1.5 * static_cast<double>(min_count) ? max_count : min_count;
    for (const auto& [key, count] : types) {
      for (int64_t left = count; left > 0; left -= layout.group_size) {
        const int64_t real = std::min(left, layout.group_size);
        layout.padding_layers += layout.group_size - real;
        layout.groups.push_back({key.first, key.second, real});
      }
    }
  }
  layout.block_bytes = layout.page_bytes * layout.group_size;
}

int64_t KvCacheLayout::PagesPerRequest(int64_t max_model_len, int64_t max_num_batched_tokens) const {
  // vLLM's AttentionSpec.max_memory_usage_bytes: each DCP rank keeps cdiv(max_model_len, dcp) tokens.
  max_model_len = CeilDiv(max_model_len, context_parallel);
  int64_t pages = 0;
  for (const KvCacheGroup& g : groups) {
    switch (g.kind) {
      case AttentionKind::kFull:
        pages += CeilDiv(max_model_len, block_size);
        break;
      case AttentionKind::kSlidingWindow:
        pages += CeilDiv(std::min(g.window_tokens - 1 + max_num_batched_tokens, max_model_len), block_size) + 1;
        break;
      case AttentionKind::kChunkedLocal:
        pages += CeilDiv(std::min(g.window_tokens + max_num_batched_tokens, max_model_len), block_size);
        break;
      case AttentionKind::kStateOnly:
        pages += 1;  // a fixed-size state, whatever the length
        break;
    }
  }
  return pages;
}

namespace {

// vllm/model_executor/models/deepseek_v2.py DeepseekV32IndexerCache: an MLAAttentionSpec of head_size
// index_head_dim + index_head_dim / 128 x 4, uint8 -- fp8 keys plus one fp32 scale per 128 values:
// 132 B per token and layer for index_head_dim 128.
double IndexerKeyBytesPerToken(const ModelSpec& spec) {
  if (!spec.has_mla || spec.mla.indexer_head_dim <= 0) return 0;
  return static_cast<double>(spec.mla.indexer_head_dim + spec.mla.indexer_head_dim / 128 * 4);
}

}  // namespace

double AttentionBytesPerTokenPerLayer(const ModelSpec& spec, const KvCacheFormat& format, int tp) {
  if (spec.has_mla) {
    double bytes = format.fp8_ds_mla
        ? 656.0
        : static_cast<double>(spec.mla.kv_lora_rank + spec.mla.qk_rope_head_dim) * format.bytes_per_element;
    // DeepSeek-V3.2's sparse-attention indexer keeps its own key cache in every layer, in
    // the same blocks (IndexerKeyBytesPerToken); where only some layers run one, BuildKvCacheLayout
    // counts their pages apart.
    if (spec.mla.indexer_head_dim > 0 && spec.mla.indexer_on_layer.empty()) bytes += IndexerKeyBytesPerToken(spec);
    return bytes;
  }
  const int64_t heads = std::max<int64_t>(1, spec.num_kv_heads / tp);
  return 2.0 * static_cast<double>(heads * spec.head_dim) * format.bytes_per_element;
}

int64_t StatePageBytes(const ModelSpec& spec, const KvCacheFormat& format, int tp) {
  const StateLayerSpec& st = spec.state;
  if (st.formula == StateLayerFormula::kNone || spec.kv_layers() == spec.num_layers) return 0;
  const double state = format.state_bytes_per_element;
  const double temporal_bytes = format.temporal_bytes_per_element;
  const int64_t conv_rows = st.conv_kernel - 1;
  if (st.formula == StateLayerFormula::kGatedDeltaNet) {
    const int64_t conv_dim = 2 * st.num_k_heads * st.head_k_dim + st.num_v_heads * st.head_v_dim;
    return static_cast<int64_t>(static_cast<double>(conv_rows * (conv_dim / tp)) * state +
                                static_cast<double>(st.num_v_heads / tp * st.head_k_dim * st.head_v_dim) * temporal_bytes);
  }
  // Mamba2: B/C groups replicated up to TP when TP does not divide them (extra_groups_for_head_shards).
  const int64_t groups = st.n_groups % tp == 0 ? st.n_groups : tp;
  const int64_t conv_dim = st.inner + 2 * groups * st.head_k_dim;
  return static_cast<int64_t>(static_cast<double>(conv_rows * (conv_dim / tp)) * state +
                              static_cast<double>(st.num_v_heads / tp * st.head_v_dim * st.head_k_dim) * temporal_bytes);
}

int64_t HybridStateBlockSize(const ModelSpec& spec, const KvCacheFormat& format, int tp) {
  constexpr int64_t kAlignment = 16;
  const int64_t state = StatePageBytes(spec, format, tp);
  if (state == 0) return 0;
  const auto per_token = static_cast<int64_t>(std::ceil(AttentionBytesPerTokenPerLayer(spec, format, tp)));
  return kAlignment * CeilDiv(state, kAlignment * per_token);
}

namespace {

// A model whose indexer runs on some layers only (GLM-5.2): each such layer's key cache is a layer
// of the KV pool of its own, of another page size than the latent's. vLLM keeps layers of one
// attention type but several page sizes in one group whose block spans every layer's page
// (UniformTypeKVCacheSpecs, vllm/v1/kv_cache_interface.py), so a block holds the latent pages and
// these.
void AddIndexerPages(const ModelSpec& spec, int64_t first_layer, int64_t end_layer, KvCacheLayout& layout) {
  int64_t indexed = 0;
  for (int64_t i = first_layer; i < end_layer; ++i) indexed += spec.layers[static_cast<size_t>(i)].HasOwnKv() && spec.mla.HasIndexer(i);
  if (indexed == 0) return;
  const double per_token = IndexerKeyBytesPerToken(spec);
  layout.bytes_per_token += per_token * static_cast<double>(indexed);
  layout.block_bytes += static_cast<int64_t>(std::ceil(per_token * static_cast<double>(layout.block_size))) * indexed;
  layout.mixed_page_sizes = true;
}

}  // namespace

KvCacheLayout BuildKvCacheLayout(const ModelSpec& spec, const KvCacheFormat& format, int tp, int64_t first_layer,
                                 int64_t end_layer, int64_t block_size, KvGrouping grouping) {
  KvCacheLayout layout;
  layout.block_size = block_size;
  layout.num_attention_layers = 0;
  for (int64_t i = first_layer; i < end_layer; ++i) layout.num_attention_layers += spec.layers[i].HasOwnKv();
  layout.bytes_per_token_per_layer = AttentionBytesPerTokenPerLayer(spec, format, tp);
  layout.bytes_per_token = layout.bytes_per_token_per_layer * static_cast<double>(layout.num_attention_layers);
  layout.page_bytes = static_cast<int64_t>(std::ceil(layout.bytes_per_token_per_layer * static_cast<double>(block_size)));
  // State-only layers take one page per request, their state padded to the attention page
  // (vLLM's hybrid manager only; without it kvsim leaves them out, as before).
  const int64_t state = grouping == KvGrouping::kHybrid ? StatePageBytes(spec, format, tp) : 0;
  if (state > 0) {
    layout.state_page_bytes = state;
    layout.page_bytes = std::max(layout.page_bytes, state);
  }

  // Count layers per attention type; std::map keeps the group order deterministic.
  std::map<std::pair<AttentionKind, int64_t>, int64_t> types;
  for (int64_t i = first_layer; i < end_layer; ++i) {
    if (state > 0 && spec.layers[i].kind == AttentionKind::kStateOnly) {
      types[{AttentionKind::kStateOnly, 0}] += 1;
      continue;
    }
    if (!spec.layers[i].HasOwnKv()) continue;  // KV-sharing layers, and states kvsim cannot size, get no pages
    LayerAttention a = grouping == KvGrouping::kHybrid ? spec.layers[i] : LayerAttention{};
    types[{a.kind, a.window_tokens}] += 1;
  }
  AssignLayerGroups(types, layout);
  if (spec.has_mla && !spec.mla.indexer_on_layer.empty()) AddIndexerPages(spec, first_layer, end_layer, layout);
  return layout;
}

}  // namespace kvsim
