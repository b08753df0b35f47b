// vLLM start-up rules beyond the basic budget, each after vLLM's own code
// (vllm-project/vllm, the v0.11 line: vllm/v1/core/kv_cache_utils.py, vllm/config/model.py):
//
//  - --disable-sliding-window: every layer attends to the whole context, and the context is capped
//    at the sliding window (ModelConfig._get_and_verify_max_len: "max_model_len should be less
//    than the sliding window length" when the window is disabled).
//  - --max-model-len auto / -1: the largest length one request of which fits the KV pool
//    (kv_cache_utils.estimate_max_model_len, a binary search over max_memory_usage_bytes).
//  - --num-gpu-blocks-override: the pool has exactly that many blocks (kv_cache_utils.get_num_blocks).
//  - the pool must hold at least one block and one request of max_model_len, --kv-cache-memory or
//    not (kv_cache_utils.check_enough_kv_cache_memory).
//  - --speculative-config: a draft model's weights and its attention layers in the same KV pool, and
//    the KV slots a decoding request takes beyond its context for draft tokens and lookahead
//    (vllm/v1/core/sched/scheduler.py num_lookahead_tokens, kv_cache_manager.allocate_slots).
#ifndef KVSIM_KVCACHE_BUDGET_STARTUP_RULES_H_
#define KVSIM_KVCACHE_BUDGET_STARTUP_RULES_H_

#include <cstdint>
#include <string>

#include "kvcache/budget/deployment.h"
#include "kvcache/budget/kv_cache_layout.h"
#include "kvcache/budget/serving_engine.h"
#include "kvcache/model/model_spec.h"

namespace kvsim {

// The model as the server sees it after --disable-sliding-window.
ModelSpec ApplyServeModelOverrides(const ModelSpec& spec, const DeploymentConfig& config);

// Ranks the routed experts are split over: TP x DP, with or without --enable-expert-parallel.
// vLLM's FusedMoE folds the DP ranks into its tensor-parallel size (FusedMoEParallelConfig.make,
// flatten_tp_across_dp[_and_pcp], vllm/model_executor/layers/fused_moe/config.py; before that class,
// FusedMoE.__init__ "Adjust TP size for DP attention", PR #13931, v0.8.0): without EP every rank
// holds a 1/(TP x DP) slice of every expert's intermediate dimension, with EP E/(TP x DP) whole
// experts. Either way one GPU holds 1/(TP x DP) of the routed-expert bytes. The dense layers
// (attention, shared experts, embeddings, router) stay split by TP alone, replicated per DP rank.
// vLLM's newest release read (main, September 2026) still folds DP in (the proposal to stop,
// PR #36240, was closed unmerged); releases before 0.8 served no --data-parallel-size.
int ExpertShards(const DeploymentConfig& config);

// The largest max_model_len in [1, upper] whose pages fit `num_blocks`; 0 when not even one token fits.
int64_t EstimateMaxModelLen(const KvCacheLayout& layout, int64_t num_blocks, int64_t max_num_batched_tokens,
                            int64_t upper);

// The draft model's (full-attention) layers join the pool as vLLM's get_kv_cache_groups does:
//  - same page size: they count as full-attention layers and the layers are regrouped (gpt-oss-20b + an
//    EAGLE layer: 12 sliding + 13 full -> two groups of 13, one padding layer);
//  - another page size next to a full-attention-only target: one group of per-layer pages
//    (UniformTypeKVCacheSpecs), a block the sum of every layer's page.
// Returns false (layout unchanged) for another page size next to a hybrid target: vLLM then raises the
// block size of the smaller pages (unify_kv_cache_spec_page_size), per-group block sizes kvsim lacks.
bool AddDraftKvLayers(KvCacheLayout& layout, const KvCacheLayout& draft);

// KV slots a decoding request holds beyond the tokens of its context under speculative decoding.
// V1: each step schedules the k draft tokens after the last sampled one (num_new_tokens = 1 + k) and
// allocate_slots adds num_lookahead_tokens for the proposer's next drafts: k for EAGLE, EAGLE-3, MTP
// (SpeculativeConfig.use_eagle) and draft models (uses_draft_model), 0 for ngram / medusa / suffix.
// V0: the block manager appends num_lookahead_slots = k slots per decode step, whatever the method.
// vLLM caps the slots at max_model_len, so a max_model_len request needs no more blocks than without
// speculative decoding. 0 without --speculative-config.
int64_t SpeculativeDecodeSlots(const SpeculativeSettings& speculative, VllmEra era);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_STARTUP_RULES_H_
