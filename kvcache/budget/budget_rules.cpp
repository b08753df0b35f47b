#include "kvcache/budget/budget_rules.h"

#include <algorithm>
#include <cmath>

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "kvcache/base/units.h"
#include "kvcache/budget/release_rules.h"
#include "kvcache/budget/runtime_overhead.h"

namespace kvsim {
namespace {

class VllmRule final : public BudgetRule {
 public:
  using BudgetRule::BudgetRule;

  double KvCacheBytes(const DeploymentConfig& c, double total_bytes, double utilization, double weights,
                      RuntimeOverhead& o) const override {
    if (c.kv_cache_memory_bytes) {
      // vLLM skips the profile and allocates exactly this; past what the weights leave of the GPU the
      // allocation fails with an out-of-memory error at start-up.
      const double room = total_bytes - weights - o.non_torch_bytes;
      if (*c.kv_cache_memory_bytes > room)
        throw Error(Format("--kv-cache-memory: %.2f GiB does not fit on a GPU of %.2f GiB beside %.2f GiB of weights and "
                           "%.2f GiB outside PyTorch (at most %.2f GiB): vLLM's allocation would fail",
                           BytesToGiB(*c.kv_cache_memory_bytes), BytesToGiB(total_bytes), BytesToGiB(weights),
                           BytesToGiB(o.non_torch_bytes), BytesToGiB(std::max(0.0, room))));
      return *c.kv_cache_memory_bytes;
    }
    return total_bytes * utilization - weights - o.activation_peak_bytes - o.non_torch_bytes - o.encoder_profile_bytes -
           o.sparse_indexer_bytes - o.cuda_graph_bytes;
  }

  // get_num_blocks: available // page_size // group_size; one group of mixed page sizes
  // (UniformTypeKVCacheSpecs): available // the sum of its pages.
  int64_t Blocks(double kv_bytes, const KvCacheLayout& layout) const override {
    if (layout.mixed_page_sizes) return static_cast<int64_t>(std::floor(kv_bytes / static_cast<double>(layout.block_bytes)));
    return static_cast<int64_t>(std::floor(kv_bytes / static_cast<double>(layout.page_bytes))) / layout.group_size;
  }

  double MaxConcurrency(int64_t blocks, int64_t pages_per_request, const KvCacheLayout& layout,
                        int64_t max_model_len) const override {
    if (version_.era() == VllmEra::kV0)
      return static_cast<double>(blocks * layout.block_size) / static_cast<double>(max_model_len);
    return BudgetRule::MaxConcurrency(blocks, pages_per_request, layout, max_model_len);
  }

  // "GPU KV cache size": blocks × block_size (v0, < 0.9), blocks // groups × block_size
  // (0.9 .. 0.19), int(max_concurrency × max_model_len) (>= 0.20).
  int64_t ReportedTokens(int64_t blocks, const KvCacheLayout& layout, double max_concurrency,
                         int64_t max_model_len) const override {
    if (HasRule(version_, ReleaseRule::kConcurrencyTokenReport))
      return static_cast<int64_t>(max_concurrency * static_cast<double>(max_model_len));
    // _report_kv_cache_config multiplies one rank's tokens by the DCP size; the concurrency above already
    // counts max_model_len / dcp tokens a request per rank.
    if (HasRule(version_, ReleaseRule::kGroupedTokenReport))
      return blocks / static_cast<int64_t>(layout.groups.size()) * layout.block_size * layout.context_parallel;
    return blocks * layout.block_size * layout.context_parallel;
  }

  // kv_cache_utils.check_enough_kv_cache_memory runs whether the pool is profiled or given with
  // --kv-cache-memory-bytes: no blocks, or no room for one max_model_len request, and vLLM refuses to
  // start (vllm/v1/core/kv_cache_utils.py, v0.11).
  bool RequiresOneFullRequest(const DeploymentConfig&) const override { return true; }
  // Until PR #47272 (merged 2026-07-01, first in 0.25) the check compared the whole pool, null block
  // included, so a pool of exactly one request's blocks started and that request waited forever;
  // since then the check and its estimate of the longest request leave block 0 out.
  bool ChecksWithoutNullBlock() const override { return HasRule(version_, ReleaseRule::kNullBlockOutOfCheck); }

  // V1 (>= 0.8, PR #14097): BlockPool.__init__ pops block 0 off the free queue as the null block
  // whatever the model, so requests share num_gpu_blocks - 1 (get_num_free_blocks, get_usage);
  // get_max_concurrency_for_kv_cache_config and the "GPU KV cache size" line divide the whole
  // num_blocks (vllm/v1/core/block_pool.py, kv_cache_utils.py, v0.8 - v0.11). V0 takes a null
  // block only when a sliding window drops blocks (vllm/core/block/block_table.py
  // append_token_ids -> allocate_or_get_null_block, v0.6).
  int64_t NullBlocks(const ModelSpec& spec) const override {
    if (version_.era() != VllmEra::kV0) return 1;
    for (const LayerAttention& l : spec.layers)
      if (l.kind == AttentionKind::kSlidingWindow) return 1;
    return 0;
  }

 protected:
  int64_t DefaultBlockSize() const override { return 16; }
  // 0.92 since 0.21, which also began charging CUDA graphs to the KV budget (vllm/config/cache.py;
  // PR #38284 raised the default to keep the pool about where it was).
  double DefaultMemoryFraction(int) const override {
    return HasRule(version_, ReleaseRule::kUtilization092) ? 0.92 : 0.9;
  }
  KvGrouping Grouping(const DeploymentConfig& c) const override {
    return version_.era() == VllmEra::kV0 ? KvGrouping::kSingleGroup : c.kv_grouping;
  }
};

class SglangRule final : public BudgetRule {
 public:
  using BudgetRule::BudgetRule;

  // SGLang measures free memory after loading, so the CUDA context and NCCL are already gone; it
  // keeps (1 − mem_fraction_static) of memory for activations instead of profiling them.
  double KvCacheBytes(const DeploymentConfig& c, double total_bytes, double utilization, double weights,
                      RuntimeOverhead& o) const override {
    const double context = kCudaContextBytes + GiBToBytes(c.tensor_parallel_size > 1 ? 1.0 : 0.0);  // NCCL with TP
    o.non_torch_bytes = context;
    o.activation_peak_bytes = 0;
    return (total_bytes - weights - context) - total_bytes * (1.0 - utilization);
  }

  int64_t Blocks(double kv_bytes, const KvCacheLayout& layout) const override {
    const int64_t tokens = static_cast<int64_t>(kv_bytes / layout.bytes_per_token);
    return tokens / layout.block_size;
  }

  std::string Note() const override { return "sglang budgeting rule (see docs/CAPACITY_MODEL.md)"; }

 protected:
  int64_t DefaultBlockSize() const override { return 1; }  // token-granular radix cache
  // mem_fraction_static's default shrinks with TP (larger NCCL and graph buffers).
  double DefaultMemoryFraction(int tp) const override { return tp >= 8 ? 0.81 : tp >= 4 ? 0.85 : tp >= 2 ? 0.87 : 0.88; }
  KvGrouping Grouping(const DeploymentConfig&) const override { return KvGrouping::kSingleGroup; }
};

class TrtllmRule final : public BudgetRule {
 public:
  using BudgetRule::BudgetRule;

  double KvCacheBytes(const DeploymentConfig&, double total_bytes, double fraction, double weights,
                      RuntimeOverhead& o) const override {
    return fraction * (total_bytes - weights - o.activation_peak_bytes - o.non_torch_bytes);
  }

  int64_t Blocks(double kv_bytes, const KvCacheLayout& layout) const override {
    return static_cast<int64_t>(kv_bytes / (layout.bytes_per_token * static_cast<double>(layout.block_size)));
  }

  std::string Note() const override { return "trtllm budgeting rule (see docs/CAPACITY_MODEL.md)"; }

 protected:
  int64_t DefaultBlockSize() const override { return 32; }            // tokens_per_block
  double DefaultMemoryFraction(int) const override { return 0.9; }     // free_gpu_memory_fraction
  KvGrouping Grouping(const DeploymentConfig&) const override { return KvGrouping::kSingleGroup; }
};

}  // namespace

// vLLM's get_batch_defaults (API server column): big-memory GPUs other than A100 batch more. V0
// turned chunked prefill on by itself above 32K context, with a small token budget.
EngineDefaults BudgetRule::Defaults(const GpuSpec& gpu, double total_gib, const DeploymentConfig& c,
                                    int64_t max_model_len) const {
  EngineDefaults d;
  const bool big_gpu = total_gib >= 70.0 && gpu.id.rfind("a100", 0) != 0;
  if (version_.era() == VllmEra::kV0) {
    d.max_num_seqs = c.max_num_seqs.value_or(256);
    const int64_t fallback = max_model_len > 32768 ? 512 : std::max<int64_t>(max_model_len, 2048);
    d.max_num_batched_tokens = c.max_num_batched_tokens.value_or(fallback);
  } else {
    const int64_t chunked = big_gpu ? 8192 : 2048;
    // Without chunked prefill a prompt runs in one step, so vLLM's SchedulerConfig makes the budget
    // hold a whole max_model_len prompt, and refuses a smaller one it is given (vllm/config/scheduler.py).
    d.max_num_batched_tokens =
        c.max_num_batched_tokens.value_or(c.enable_chunked_prefill ? chunked : std::max(max_model_len, chunked));
    // vLLM's default running-request cap never exceeds the token budget (EngineArgs._set_default_args:
    // min(the default, max_num_batched_tokens)): --max-num-batched-tokens 256 alone runs 256 requests.
    d.max_num_seqs = c.max_num_seqs.value_or(std::min<int64_t>(big_gpu ? 1024 : 256, d.max_num_batched_tokens));
    if (!c.enable_chunked_prefill && d.max_num_batched_tokens < max_model_len)
      throw Error("--max-num-batched-tokens: " + std::to_string(d.max_num_batched_tokens) + " is smaller than max-model-len " +
                  std::to_string(max_model_len) + " with chunked prefill off; vLLM refuses it (a prompt must fit one step): "
                  "raise --max-num-batched-tokens or lower --max-model-len");
  }
  // Every running request takes at least one token of a step, so vLLM's SchedulerConfig._verify_args
  // refuses a budget below the request cap (vllm/config/scheduler.py).
  if (c.engine == Engine::kVllm && d.max_num_batched_tokens < d.max_num_seqs)
    throw Error("--max-num-batched-tokens: " + std::to_string(d.max_num_batched_tokens) + " is smaller than --max-num-seqs " +
                std::to_string(d.max_num_seqs) + "; vLLM refuses it (each running request takes a token of every step): "
                "raise --max-num-batched-tokens or lower --max-num-seqs");
  d.block_size = c.block_size.value_or(DefaultBlockSize());
  d.gpu_memory_utilization = c.gpu_memory_utilization.value_or(DefaultMemoryFraction(c.tensor_parallel_size));
  d.kv_grouping = Grouping(c);
  return d;
}

double BudgetRule::MaxConcurrency(int64_t blocks, int64_t pages_per_request, const KvCacheLayout&, int64_t) const {
  return static_cast<double>(blocks) / static_cast<double>(pages_per_request);
}

int64_t BudgetRule::ReportedTokens(int64_t blocks, const KvCacheLayout& layout, double, int64_t) const {
  return blocks * layout.block_size;
}

std::unique_ptr<BudgetRule> MakeBudgetRule(Engine engine, const VllmVersion& version) {
  switch (engine) {
    case Engine::kVllm: return std::make_unique<VllmRule>(version);
    case Engine::kSglang: return std::make_unique<SglangRule>(version);
    case Engine::kTrtllm: return std::make_unique<TrtllmRule>(version);
  }
  return std::make_unique<VllmRule>(version);
}

}  // namespace kvsim
