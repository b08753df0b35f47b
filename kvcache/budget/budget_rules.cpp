#include "kvcache/budget/budget_rules.h"

#include <algorithm>
#include <cmath>

#include "kvcache/base/units.h"

namespace kvsim {
namespace {

// vLLM's get_batch_defaults (API server column): big-memory GPUs other than A100 batch more. V0
// turned chunked prefill on by itself above 32K context, with a small token budget. The other
// engines' rules take the same limits (their own defaults are close and rarely logged).
EngineDefaults VllmBatchDefaults(const GpuSpec& gpu, double total_gib, const VllmVersion& version,
                                 const DeploymentConfig& c, int64_t max_model_len) {
  EngineDefaults d;
  const bool big_gpu = total_gib >= 70.0 && gpu.id.rfind("a100", 0) != 0;
  if (version.era() == VllmEra::kV0) {
    d.max_num_seqs = c.max_num_seqs.value_or(256);
    const int64_t fallback = max_model_len > 32768 ? 512 : std::max<int64_t>(max_model_len, 2048);
    d.max_num_batched_tokens = c.max_num_batched_tokens.value_or(fallback);
  } else {
    d.max_num_seqs = c.max_num_seqs.value_or(big_gpu ? 1024 : 256);
    d.max_num_batched_tokens = c.max_num_batched_tokens.value_or(big_gpu ? 8192 : 2048);
  }
  return d;
}

class VllmRule final : public BudgetRule {
 public:
  explicit VllmRule(VllmVersion version) : version_(std::move(version)) {}

  EngineDefaults Defaults(const GpuSpec& gpu, double total_gib, const DeploymentConfig& c,
                          int64_t max_model_len) const override {
    EngineDefaults d = VllmBatchDefaults(gpu, total_gib, version_, c, max_model_len);
    d.block_size = c.block_size.value_or(16);
    d.gpu_memory_utilization = c.gpu_memory_utilization.value_or(0.9);
    d.kv_grouping = version_.era() == VllmEra::kV0 ? KvGrouping::kSingleGroup : c.kv_grouping;
    return d;
  }

  double KvCacheBytes(const DeploymentConfig& c, double total_bytes, double utilization, double weights,
                      RuntimeOverhead& o) const override {
    if (c.kv_cache_memory_bytes) return *c.kv_cache_memory_bytes;
    return total_bytes * utilization - weights - o.activation_peak_bytes - o.non_torch_bytes;
  }

  int64_t Blocks(double kv_bytes, const KvCacheLayout& layout) const override {
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
    if (version_.era() == VllmEra::kV0 || version_.minor < 9) return blocks * layout.block_size;
    if (version_.minor >= 20) return static_cast<int64_t>(max_concurrency * static_cast<double>(max_model_len));
    return blocks / static_cast<int64_t>(layout.groups.size()) * layout.block_size;
  }

  bool RequiresOneFullRequest(const DeploymentConfig& c) const override { return !c.kv_cache_memory_bytes; }

 private:
  VllmVersion version_;
};

class SglangRule final : public BudgetRule {
 public:
  explicit SglangRule(VllmVersion version) : version_(std::move(version)) {}

  EngineDefaults Defaults(const GpuSpec& gpu, double total_gib, const DeploymentConfig& c,
                          int64_t max_model_len) const override {
    EngineDefaults d = VllmBatchDefaults(gpu, total_gib, version_, c, max_model_len);
    const int tp = c.tensor_parallel_size;
    d.block_size = c.block_size.value_or(1);  // token-granular radix cache
    d.gpu_memory_utilization = c.gpu_memory_utilization.value_or(tp >= 8 ? 0.81 : tp >= 4 ? 0.85 : tp >= 2 ? 0.87 : 0.88);
    d.kv_grouping = KvGrouping::kSingleGroup;
    return d;
  }

  // SGLang measures free memory after loading, so the CUDA context and NCCL are already gone; it
  // keeps (1 − mem_fraction_static) of memory for activations instead of profiling them.
  double KvCacheBytes(const DeploymentConfig& c, double total_bytes, double utilization, double weights,
                      RuntimeOverhead& o) const override {
    const double context = GiBToBytes(0.5 + (c.tensor_parallel_size > 1 ? 1.0 : 0.0));
    o.non_torch_bytes = context;
    o.activation_peak_bytes = 0;
    return (total_bytes - weights - context) - total_bytes * (1.0 - utilization);
  }

  int64_t Blocks(double kv_bytes, const KvCacheLayout& layout) const override {
    const int64_t tokens = static_cast<int64_t>(kv_bytes / layout.bytes_per_token);
    return tokens / layout.block_size;
  }

  std::string Note() const override { return "sglang budgeting rule (see docs/CAPACITY_MODEL.md)"; }

 private:
  VllmVersion version_;
};

class TrtllmRule final : public BudgetRule {
 public:
  explicit TrtllmRule(VllmVersion version) : version_(std::move(version)) {}

  EngineDefaults Defaults(const GpuSpec& gpu, double total_gib, const DeploymentConfig& c,
                          int64_t max_model_len) const override {
    EngineDefaults d = VllmBatchDefaults(gpu, total_gib, version_, c, max_model_len);
    d.block_size = c.block_size.value_or(32);                          // tokens_per_block
    d.gpu_memory_utilization = c.gpu_memory_utilization.value_or(0.9);  // free_gpu_memory_fraction
    d.kv_grouping = KvGrouping::kSingleGroup;
    return d;
  }

  double KvCacheBytes(const DeploymentConfig&, double total_bytes, double fraction, double weights,
                      RuntimeOverhead& o) const override {
    return fraction * (total_bytes - weights - o.activation_peak_bytes - o.non_torch_bytes);
  }

  int64_t Blocks(double kv_bytes, const KvCacheLayout& layout) const override {
    return static_cast<int64_t>(kv_bytes / (layout.bytes_per_token * static_cast<double>(layout.block_size)));
  }

  std::string Note() const override { return "trtllm budgeting rule (see docs/CAPACITY_MODEL.md)"; }

 private:
  VllmVersion version_;
};

}  // namespace

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
