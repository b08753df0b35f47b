#include "kvcache/budget/release_rules.h"

#include "kvcache/base/check.h"

namespace kvsim {
namespace {

constexpr ReleaseRuleEntry kRules[] = {
    {ReleaseRule::kV1Engine, 8, 0,
     "V1 engine by default (v0.8.0); BlockPool.__init__ takes block 0 as the null block (vllm/v1/core/block_pool.py, PR #14097)",
     "hybrid KV groups; usable blocks = num_gpu_blocks - 1; max concurrency = blocks / pages of one request"},
    {ReleaseRule::kGroupedTokenReport, 9, 19, "vllm/v1/core/kv_cache_utils.py (0.9 - 0.19)",
     "\"GPU KV cache size\" = num_blocks // groups x block_size"},
    {ReleaseRule::kDrafterCudaGraphs, 9, 0,
     "PR #17211 (EAGLE, opened 2025-04-26) and PR #17504 (EAGLE-3, merged 2025-05-01): first in v0.9.0",
     "drafting time (not memory): before, every drafter kernel is launched from Python, as with \"enforce_eager\""},
    {ReleaseRule::kFullAndPiecewiseGraphs, 11, 0, "vllm/config/compilation.py cudagraph_mode default (v0.11.0)",
     "CUDA graphs: piecewise graphs for every size plus full decode graphs"},
    {ReleaseRule::kEncoderPlaceholderBudget, 11, 12, "PR #25810 (0.11), withdrawn by PR #30475 (0.13)",
     "Qwen3-VL encoder profile: a video counted by its placeholder with timestamps"},
    {ReleaseRule::kNoLoraExtraVocab, 12, 0, "lora_extra_vocab_size removed (v0.12.0)",
     "LoRA buffers: no extra vocabulary rows"},
    {ReleaseRule::kCheckpointKvCacheDtype, 14, 0,
     "PR #30785 (vllm/engine/arg_utils.py resolves the cache dtype when CacheConfig is built; merged 2025-12-16, "
     "after 0.13.0's release branch)",
     "KV bytes: --kv-cache-dtype auto stores a ModelOpt checkpoint's KV in its kv_cache_quant_algo (FP8)"},
    {ReleaseRule::kJointQkNormAllReduce, 14, 0,
     "PR #31493 (MiniMaxText01RMSNormTP.forward_qk all-reduces q's and k's variances as one tensor; opened "
     "2025-12-29, after 0.13.0's release branch)",
     "step time (not memory): MiniMax-M2 under TP, one small all-reduce per layer for its QK norms instead of two"},
    {ReleaseRule::kSortFreeSampler, 17, 0, "V1 sampler, greedy profile pass without top-k/top-p sort (v0.17.0)",
     "activation peak: sampler 15 B per logit instead of 38"},
    {ReleaseRule::kCudaGraphEstimateOptIn, 18, 0, "PR #30515 (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1)",
     "CUDA-graph estimate charged to the KV budget when the variable is set"},
    {ReleaseRule::kConcurrencyTokenReport, 20, 0, "vllm/v1/core/kv_cache_utils.py (v0.20.0)",
     "\"GPU KV cache size\" = int(max_concurrency x max_model_len): hybrid models report every group's tokens"},
    {ReleaseRule::kCudaGraphEstimateCharged, 21, 0, "PR #38284 (estimate on by default)",
     "KV budget minus the CUDA-graph estimate"},
    {ReleaseRule::kUtilization092, 21, 0, "PR #38284 (vllm/config/cache.py)",
     "default --gpu-memory-utilization 0.92 (was 0.90)"},
    {ReleaseRule::kNullBlockOutOfCheck, 25, 0, "PR #47272 (merged 2026-07-01)",
     "start-up check: one max_model_len request must fit in num_gpu_blocks - 1"},
    {ReleaseRule::kModelRunnerV2Dense, 25, 0,
     "PR #44443 (V2 model runner for all dense models, merged 2026-07-02; 0.25.1 per vllm#49233) and PR #42667 (Qwen, DeepSeek-V2 MoE)",
     "dense, Qwen-MoE and DeepSeek-V2 models: sampler 6 B per logit plus int32 penalty counts per request and vocab entry; no graph estimate until 0.28"},
    {ReleaseRule::kV2RunnerProfilesGraphs, 28, 0,
     "PR #53306 (V2's profile_cudagraph_memory() returned 0 before: PR #36520, vllm#49224)",
     "the V2 runner's CUDA-graph estimate comes out of the KV budget"},
    {ReleaseRule::kModelRunnerV2AllModels, 29, 0,
     "PR #53183 (V2 runner for every model family; v0.29.0 per the vLLM blog of 2026-08-31)",
     "MoE and hybrid models get the V2 runner's sampler and state too (n-gram drafting stays on V1)"},
};

}  // namespace

std::span<const ReleaseRuleEntry> ReleaseRules() { return kRules; }

// The era is what two rules make of a release, so it is defined here, beside them.
VllmEra VllmVersion::era() const {
  if (!HasRule(*this, ReleaseRule::kV1Engine)) return VllmEra::kV0;
  if (!HasRule(*this, ReleaseRule::kSortFreeSampler)) return VllmEra::kV1Sort;
  return VllmEra::kV1;
}

bool HasRule(const VllmVersion& version, ReleaseRule rule) {
  if (version.v0_engine) return false;
  for (const ReleaseRuleEntry& e : kRules)
    if (e.rule == rule) return version.minor >= e.first_minor && (e.last_minor == 0 || version.minor <= e.last_minor);
  KVSIM_CHECK(false, "release rule missing from the table");
  return false;
}

}  // namespace kvsim
