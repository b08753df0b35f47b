// How each serving engine (and vLLM release era) turns GPU memory into a KV-cache budget: one small
// rule per engine instead of branches in the planner. PlanCapacity (capacity_planner.h) computes
// the weights, the profiled overhead and the KV layout of every stage and asks the rule for the
// rest.
//
//   vLLM v1 (>= 0.8)  kv = --kv-cache-memory, or total × utilization − weights − activation − non-torch;
//                     blocks = floor(floor(kv / page) / group_size); concurrency = blocks / pages of
//                     one max_model_len request; refuses to start when that is below 1;
//                     block 0 is the null block, never handed to a request
//   vLLM v0           the same budget, one group, concurrency = blocks × block_size / max_model_len
//   SGLang            kv = (total − weights − context) − total × (1 − mem_fraction_static), the
//                     CUDA context measured after loading; token-granular cells
//   TRT-LLM           kv = free_gpu_memory_fraction × (total − weights − activation − non-torch)
// (docs/CAPACITY_MODEL.md §2-§4 derive each and list the logs behind them.)
#ifndef KVSIM_KVCACHE_BUDGET_BUDGET_RULES_H_
#define KVSIM_KVCACHE_BUDGET_BUDGET_RULES_H_

#include <cstdint>
#include <memory>
#include <string>

#include "kvcache/budget/deployment.h"
#include "kvcache/budget/kv_cache_layout.h"
#include "kvcache/budget/runtime_overhead.h"
#include "kvcache/budget/serving_engine.h"
#include "kvcache/model/gpu_catalog.h"

namespace kvsim {

// The server limits an engine fills in when the user leaves them unset.
struct EngineDefaults {
  int64_t block_size = 16;
  double gpu_memory_utilization = 0.9;
  int64_t max_num_seqs = 256;
  int64_t max_num_batched_tokens = 2048;
  KvGrouping kv_grouping = KvGrouping::kHybrid;
};

class BudgetRule {
 public:
  explicit BudgetRule(VllmVersion version) : version_(std::move(version)) {}
  virtual ~BudgetRule() = default;

  // The settings the user left unset: batch limits as vLLM's get_batch_defaults (the other engines'
  // own defaults are close and rarely logged), then the engine's block size, memory fraction and
  // KV grouping. REQUIRES: max_model_len resolved (the v0 token budget depends on it).
  EngineDefaults Defaults(const GpuSpec& gpu, double total_gib, const DeploymentConfig& config,
                          int64_t max_model_len) const;
  // KV-cache bytes of one stage. May restate what the engine charges besides weights (SGLang
  // counts the CUDA context and keeps no separate activation peak). Negative: does not fit.
  virtual double KvCacheBytes(const DeploymentConfig& config, double total_bytes, double utilization,
                              double weight_bytes, RuntimeOverhead& overhead) const = 0;
  // Blocks that `kv_bytes` hold under `layout`.
  virtual int64_t Blocks(double kv_bytes, const KvCacheLayout& layout) const = 0;
  // Requests of max_model_len tokens the blocks hold at once.
  virtual double MaxConcurrency(int64_t blocks, int64_t pages_per_request, const KvCacheLayout& layout,
                                int64_t max_model_len) const;
  // What the engine's log calls its KV-cache size in tokens.
  virtual int64_t ReportedTokens(int64_t blocks, const KvCacheLayout& layout, double max_concurrency,
                                 int64_t max_model_len) const;
  // True when the engine refuses to start if one max_model_len request does not fit.
  virtual bool RequiresOneFullRequest(const DeploymentConfig& /*config*/) const { return false; }
  // True when that start-up check leaves the null block out of the pool it compares against.
  virtual bool ChecksWithoutNullBlock() const { return false; }
  // Blocks of the pool no request can ever hold (vLLM's null block). The logged figures ("GPU KV
  // cache size", "Maximum concurrency", num_gpu_blocks) still count them; the scheduler does not.
  virtual int64_t NullBlocks(const ModelSpec& /*spec*/) const { return 0; }
  // A note for the capacity output; empty for vLLM.
  virtual std::string Note() const { return ""; }

 protected:
  virtual int64_t DefaultBlockSize() const = 0;
  virtual double DefaultMemoryFraction(int tensor_parallel_size) const = 0;
  virtual KvGrouping Grouping(const DeploymentConfig& config) const = 0;

  VllmVersion version_;
};

std::unique_ptr<BudgetRule> MakeBudgetRule(Engine engine, const VllmVersion& version);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_BUDGET_RULES_H_
