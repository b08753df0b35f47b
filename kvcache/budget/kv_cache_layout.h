// How the KV cache of one GPU (one pipeline stage, one TP rank) is laid out in vLLM v1:
// per-layer page sizes, the grouping of layers that share block ids (hybrid KV-cache manager), and
// how many pages one request of a given length needs.
//
// Per layer and token: 2 × max(1, kv_heads / TP) × head_dim × kv_bytes (K and V; heads replicated
// when TP > kv_heads); MLA stores one latent of kv_lora_rank + qk_rope_head_dim (no ×2, not split
// by TP); DeepSeek-V3.2's fp8_ds_mla stores 656 bytes, plus 132 bytes of its indexer's fp8 key cache. A page is block_size tokens of one layer.
// Layers with the same attention kind form groups of `group_size` layers; one block id addresses
// one page in each of group_size tensors, so a block costs page_bytes × group_size.
// (reference/serving-memory-facts.md §1.4, §1.5, §8.)
#ifndef KVSIM_KVCACHE_BUDGET_KV_CACHE_LAYOUT_H_
#define KVSIM_KVCACHE_BUDGET_KV_CACHE_LAYOUT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kvcache/model/model_spec.h"

namespace kvsim {

// How sliding-window and chunked-local layers get their KV cache.
enum class KvGrouping {
  kHybrid,       // vLLM's hybrid KV-cache manager: one block group per attention kind (default)
  kSingleGroup,  // --disable-hybrid-kv-cache-manager, vLLM v0, SGLang, TRT-LLM: every layer full length
};

// KV element format: model dtype by default ("auto"); fp8 halves a 16-bit cache.
struct KvCacheFormat {
  double bytes_per_element = 2.0;
  bool fp8_ds_mla = false;   // DeepSeek-V3.2 FlashMLA-sparse layout: 656 B per token and layer
  std::string name = "auto";
  double state_bytes_per_element = 2.0;     // linear-attention / SSM conv state: the model dtype (mamba_cache_dtype auto)
  double temporal_bytes_per_element = 2.0;  // its SSM / temporal state: as the conv state (mamba_ssm_cache_dtype auto)
};

// --mamba-cache-dtype and --mamba-ssm-cache-dtype (auto, float32, float16, bfloat16) on `format`:
// "auto" keeps the model dtype for the conv state, and the conv state's dtype for the temporal one
// (vLLM's MambaStateDtypeCalculator). Throws kvsim::Error for other names.
void ApplyStateDtypes(const std::string& mamba_cache_dtype, const std::string& mamba_ssm_cache_dtype, KvCacheFormat& format);

// Parses --kv-cache-dtype (auto, fp16, bf16, fp8, fp8_e4m3, fp8_e5m2, fp8_ds_mla, int8, int4).
// Throws kvsim::Error for unknown names.
KvCacheFormat ParseKvCacheFormat(const std::string& flag, const ModelSpec& spec, NumericFormat model_dtype);

struct KvCacheGroup {
  AttentionKind kind = AttentionKind::kFull;
  int64_t window_tokens = 0;
  int64_t num_layers = 0;   // real layers; group_size - num_layers are padding
};

struct KvCacheLayout {
  int64_t block_size = 16;            // tokens per block
  int64_t num_attention_layers = 0;   // on this GPU
  double bytes_per_token_per_layer = 0;
  // Decode context parallelism: the ranks of a TP group that share each request's tokens (token i on
  // rank i % dcp), so a request needs the blocks of max_model_len / dcp tokens on each and the pool
  // holds dcp times the tokens of one rank's blocks.
  int64_t context_parallel = 1;
  double bytes_per_token = 0;         // Σ over this GPU's layers, every layer holding the token
  int64_t page_bytes = 0;             // one layer, block_size tokens
  int64_t group_size = 0;             // layers (tensors) sharing one block id
  int64_t padding_layers = 0;
  int64_t block_bytes = 0;            // page_bytes × group_size: memory behind one block id
  int64_t state_page_bytes = 0;       // one state-only layer's per-request state before padding to
                                      // page_bytes (0: no state layers in the pool)
  // Layers of one attention kind whose pages differ in size (a drafter of another shape next to the
  // target) form one group in vLLM (UniformTypeKVCacheSpecs): a block holds one page of each layer,
  // so block_bytes is the sum of their pages, not page_bytes × group_size.
  bool mixed_page_sizes = false;
  std::vector<KvCacheGroup> groups;

  // Real layers per attention type (kind, window), from the groups.
  std::map<std::pair<AttentionKind, int64_t>, int64_t> LayersPerType() const;

  // Pages a request of `max_model_len` tokens may hold at once in every group together
  // (vLLM max_memory_usage_bytes / page size, summed over groups; a state group: one page, the
  // MambaSpec of mamba_cache_mode "none").
  int64_t PagesPerRequest(int64_t max_model_len, int64_t max_num_batched_tokens) const;
};

// Bytes per token of one attention layer on one TP rank: K and V of max(1, kv_heads / TP) heads, or
// MLA's latent (fp8_ds_mla: 656 B), plus DeepSeek-V3.2's indexer keys.
double AttentionBytesPerTokenPerLayer(const ModelSpec& spec, const KvCacheFormat& format, int tp);

// One state-only layer's per-request state on one TP rank (vLLM MambaSpec.page_size_bytes before
// padding): the model_spec.h StateLayerSpec shapes, both states in the model dtype
// (mamba_cache_dtype and mamba_ssm_cache_dtype "auto"). 0 when the model has no state layers or
// kvsim does not know their shapes.
int64_t StatePageBytes(const ModelSpec& spec, const KvCacheFormat& format, int tp);

// The attention block size vLLM raises block_size to, so that one attention page holds one state
// page (vllm/model_executor/models/config.py HybridAttentionMambaModelConfig.verify_and_update_config,
// v0.11: alignment 16): 16 x ceil(state page / (16 x attention bytes per token and layer)). The state
// page is then padded to the attention page. 0 without state layers.
int64_t HybridStateBlockSize(const ModelSpec& spec, const KvCacheFormat& format, int tp);

// Groups layers of one page size as vLLM's _get_kv_cache_groups_uniform_page_size: one type keeps all
// its layers in one group; several types get groups of the rarest type's count, or of the largest count
// when the counts are within 1.5x (the smaller types padded). Sets group_size, groups, padding_layers
// and block_bytes. REQUIRES: page_bytes set, every count > 0.
void AssignLayerGroups(const std::map<std::pair<AttentionKind, int64_t>, int64_t>& layers_per_type, KvCacheLayout& layout);

// KvGrouping::kSingleGroup (vLLM v0, or --disable-hybrid-kv-cache-manager) keeps every layer at
// full length in one group. REQUIRES: first_layer < end_layer <= spec.num_layers, tp >= 1.
KvCacheLayout BuildKvCacheLayout(const ModelSpec& spec, const KvCacheFormat& format, int tp, int64_t first_layer,
                                 int64_t end_layer, int64_t block_size, KvGrouping grouping);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_KV_CACHE_LAYOUT_H_
