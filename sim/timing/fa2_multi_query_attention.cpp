#include "sim/timing/fa2_multi_query_attention.h"

#include <algorithm>
#include <cmath>

#include "kvcache/base/check.h"

namespace kvsim {

bool VllmRunsFlashAttention2(const GpuSpec& gpu) { return gpu.generation == "ampere" || gpu.generation == "ada"; }

Fa2MultiQueryAttention::Fa2MultiQueryAttention(int64_t query_heads, int64_t head_dim, int sm_count, double tensor_flops,
                                               double memory_rate, double kv_bytes_per_token, double floor_s)
    : query_heads_(query_heads), head_dim_(head_dim), sm_count_(sm_count), tensor_flops_(tensor_flops),
      memory_rate_(memory_rate), kv_bytes_per_token_(kv_bytes_per_token), floor_s_(floor_s) {
  KVSIM_CHECK(query_heads_ > 0 && head_dim_ > 0 && sm_count_ > 0 && tensor_flops_ > 0 && memory_rate_ > 0 &&
                  kv_bytes_per_token_ > 0 && floor_s_ >= 0,
              "the FlashAttention-2 tile model needs heads, a head size, SMs, a tensor rate and a bandwidth");
}

Fa2LayerTime Fa2MultiQueryAttention::Layer(int64_t sequences, double queries, double context) const {
  KVSIM_DCHECK(sequences >= 1 && queries >= 1 && queries <= static_cast<double>(kBlockM) && context >= 0);
  Fa2LayerTime t;
  const double n = static_cast<double>(BlockN()), d = static_cast<double>(head_dim_);
  // The new tokens' K and V are in the cache before the kernel runs (reshape_and_cache_flash), so
  // each CTA walks context + queries keys.
  const double keys = context + queries;
  t.ctas = static_cast<double>(sequences) * static_cast<double>(query_heads_);
  t.tiles_per_cta = std::ceil(keys / n);
  // Per tile: Q·K^T (kBlockM x kBlockN x d) and P·V (kBlockM x d x kBlockN), 2 FLOPs per multiply-add.
  const double tile_flops = 4.0 * static_cast<double>(kBlockM) * n * d;
  t.flops = t.ctas * t.tiles_per_cta * tile_flops;
  // A CTA runs on one SM at that SM's share of the tensor rate; more CTAs than SMs queue behind one
  // another on the same SMs.
  const double sm_rate = tensor_flops_ / static_cast<double>(sm_count_);
  const double compute = t.tiles_per_cta * tile_flops / sm_rate * std::max(1.0, t.ctas / static_cast<double>(sm_count_));
  // The query heads of a group run at once and read the same K and V, so HBM serves each KV head
  // once (the rest from L2): the batch's KV cache as the one-query decode reads it.
  t.kv_bytes = static_cast<double>(sequences) * keys * kv_bytes_per_token_;
  t.seconds = std::max(compute, t.kv_bytes / memory_rate_) + floor_s_;
  return t;
}

}  // namespace kvsim
