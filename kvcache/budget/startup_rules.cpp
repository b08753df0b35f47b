#include "kvcache/budget/startup_rules.h"

#include <algorithm>

namespace kvsim {

ModelSpec ApplyServeModelOverrides(const ModelSpec& spec, const DeploymentConfig& c) {
  if (!c.disable_sliding_window) return spec;
  ModelSpec out = spec;
  int64_t window = 0;
  for (LayerAttention& l : out.layers) {
    if (l.kind != AttentionKind::kSlidingWindow) continue;
    window = window == 0 ? l.window_tokens : std::min(window, l.window_tokens);
    l = LayerAttention{};
  }
  if (window > 0 && window < out.derived_max_model_len) {
    out.derived_max_model_len = window;
    out.notes.push_back("--disable-sliding-window: every layer keeps the full context, capped at the " +
                        std::to_string(window) + "-token window as vLLM does");
  }
  return out;
}

int ExpertShards(const DeploymentConfig& c) {
  return c.tensor_parallel_size * std::max(1, c.data_parallel_size);
}

int64_t EstimateMaxModelLen(const KvCacheLayout& layout, int64_t num_blocks, int64_t max_num_batched_tokens,
                            int64_t upper) {
  int64_t lo = 0, hi = upper;  // invariant: lo fits (0 trivially), everything above hi does not
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (layout.PagesPerRequest(mid, max_num_batched_tokens) <= num_blocks) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

bool AddDraftKvLayers(KvCacheLayout& layout, const KvCacheLayout& draft) {
  const int64_t extra = draft.num_attention_layers;
  if (extra == 0) return false;
  if (draft.page_bytes == layout.page_bytes && !layout.mixed_page_sizes) {
    auto types = layout.LayersPerType();
    types[{AttentionKind::kFull, 0}] += extra;
    AssignLayerGroups(types, layout);
  } else if (layout.groups.size() == 1 && layout.groups[0].kind == AttentionKind::kFull) {
    layout.mixed_page_sizes = true;
    layout.group_size += extra;
    layout.groups[0].num_layers += extra;
    layout.block_bytes += draft.page_bytes * extra;
  } else {
    return false;
  }
  layout.num_attention_layers += extra;
  layout.bytes_per_token += draft.bytes_per_token;
  return true;
}

int64_t SpeculativeDecodeSlots(const SpeculativeSettings& s, VllmEra era) {
  const int64_t k = s.num_speculative_tokens;
  if (s.method.empty() || k == 0) return 0;
  if (era == VllmEra::kV0) return k;
  const std::string& m = s.method;
  const bool mtp = m == "mtp" || (m.size() > 4 && m.compare(m.size() - 4, 4, "_mtp") == 0);  // deepseek_mtp, ernie_mtp, ...
  const bool proposer_has_kv = m == "eagle" || m == "eagle3" || mtp || m == "draft_model";
  return k + (proposer_has_kv ? k : 0);
}

}  // namespace kvsim
