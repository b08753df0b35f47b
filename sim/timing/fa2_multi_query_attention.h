// FlashAttention-2's paged-KV forward over sequences that each bring a few queries (a speculative
// verify: each decoding request's last sampled token and its k drafts), as vLLM runs it on Ampere
// and Ada GPUs.
//
// vLLM's flash_attn_varlen_func (vllm-project/flash-attention, csrc/flash_attn/flash_api.cpp,
// mha_varlen_fwd) folds each group of query heads sharing a KV head into the query-length dimension
// only when max_seqlen_q == 1 (seqlenq_ngroups_swapped), and it sets up split-KV only on that path
// ("Only apply split-k for decoding"). A batch with 1 + k queries per sequence gets neither: the
// paged-KV call runs the split kernel with a single split (run_mha_fwd(params, stream, paged_KV) ->
// run_mha_fwd_splitkv_dispatch in csrc/flash_attn/src/flash_fwd_launch_template.h), a grid of
// ceil(max_seqlen_q / kBlockM) x batch x query-heads CTAs. Each CTA walks its sequence's keys
// kBlockN at a time and multiplies whole kBlockM x kBlockN tiles (Q·K^T, then P·V) however few of
// the kBlockM query rows are real. One CTA per query head, each on one SM: at batch 1 the 32 query
// heads of Llama-3.1-8B keep 32 of an A100's 108 SMs busy, each looping over the whole context.
// Hopper runs FlashAttention-3 (fa_utils.py get_flash_attn_version: version 3 when the compute
// capability's major is 9, else 2), which packs the query-head group for varlen batches: this term
// is not Hopper's. Figures from vllm-project/flash-attention at 04325b6 (flash_api.cpp) and 039af71
// (flash_fwd_launch_template.h).
#ifndef KVSIM_SIM_TIMING_FA2_MULTI_QUERY_ATTENTION_H_
#define KVSIM_SIM_TIMING_FA2_MULTI_QUERY_ATTENTION_H_

#include <cstdint>

#include "kvcache/model/gpu_catalog.h"

namespace kvsim {

// Whether vLLM's FlashAttention backend runs FlashAttention-2 on this GPU (compute capability 8.x:
// the Ampere and Ada generations); FlashAttention-3 on Hopper, other backends elsewhere.
bool VllmRunsFlashAttention2(const GpuSpec& gpu);

// One layer of the kernel over the batch, and what it computed.
struct Fa2LayerTime {
  double ctas = 0;           // thread blocks: query-row blocks x sequences x query heads
  double tiles_per_cta = 0;  // kBlockN-key tiles each CTA walks: ceil((context + queries) / kBlockN)
  double flops = 0;          // tensor-core FLOPs of the whole tiles, all CTAs
  double kv_bytes = 0;       // the KV cache the batch reads, once per KV head
  double seconds = 0;        // the slower of the tiles on their SMs and the KV read, plus a kernel floor
};

class Fa2MultiQueryAttention {
 public:
  static constexpr int64_t kBlockM = 64;  // run_mha_fwd_splitkv_dispatch: "Fixed for all head dimensions"

  // Per GPU (one TP rank): `query_heads` of `head_dim`, `sm_count` SMs, `tensor_flops` the 16-bit
  // tensor rate the attention kernels sustain over the whole GPU (peak x attention efficiency),
  // `memory_rate` the KV-streaming bandwidth, `kv_bytes_per_token` one layer's K and V per token,
  // `floor_s` a kernel's fixed cost. REQUIRES: all positive.
  Fa2MultiQueryAttention(int64_t query_heads, int64_t head_dim, int sm_count, double tensor_flops, double memory_rate,
                         double kv_bytes_per_token, double floor_s);

  // run_mha_fwd_splitkv_dispatch: 256 keys per tile up to head_dim 80, 128 up to 128, 64 above.
  int64_t BlockN() const { return head_dim_ <= 80 ? 256 : (head_dim_ <= 128 ? 128 : 64); }

  // One layer for `sequences` requests, each with `queries` new tokens (1 <= queries <= kBlockM: one
  // query-row block) attending `context` cached tokens (the mean over the batch) and themselves.
  Fa2LayerTime Layer(int64_t sequences, double queries, double context) const;

 private:
  int64_t query_heads_ = 0, head_dim_ = 0;
  int sm_count_ = 0;
  double tensor_flops_ = 0, memory_rate_ = 0, kv_bytes_per_token_ = 0, floor_s_ = 0;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_TIMING_FA2_MULTI_QUERY_ATTENTION_H_
