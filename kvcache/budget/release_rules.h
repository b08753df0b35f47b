// The vLLM releases kvsim models and every budgeting rule that changed between them, declared once:
// each rule names the release that first shipped it (and the last, for one that was withdrawn), the
// pull request or file it comes from, and what it moves. The code asks `HasRule(version, rule)`
// instead of comparing minor numbers, so `kvsim releases` prints the same table the code obeys and
// docs/CAPACITY_MODEL.md's table "release -> rules" is generated from it.
#ifndef KVSIM_KVCACHE_BUDGET_RELEASE_RULES_H_
#define KVSIM_KVCACHE_BUDGET_RELEASE_RULES_H_

#include <span>

#include "kvcache/base/enum_names.h"
#include "kvcache/budget/serving_engine.h"

namespace kvsim {

enum class ReleaseRule {
  kV1Engine,                 // V1 engine by default: hybrid KV groups, block 0 held as the null block
  kGroupedTokenReport,       // "GPU KV cache size" = num_blocks // groups × block_size
  kFullAndPiecewiseGraphs,   // CUDA-graph mode FULL_AND_PIECEWISE by default
  kEncoderPlaceholderBudget, // multimodal profile sized by the placeholder (timestamps) of a Qwen3-VL video
  kNoLoraExtraVocab,         // LoRA extra vocabulary removed
  kSortFreeSampler,          // the profile's sampler pass no longer sorts logits
  kCudaGraphEstimateOptIn,   // VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS exists (off by default)
  kConcurrencyTokenReport,   // "GPU KV cache size" = int(max_concurrency × max_model_len)
  kCudaGraphEstimateCharged, // the CUDA-graph estimate comes out of the KV budget by default
  kUtilization092,           // default --gpu-memory-utilization 0.92
  kNullBlockOutOfCheck,      // the start-up check leaves the null block out of the pool
  kModelRunnerV2Dense,       // dense models profile with the V2 model runner (model_runner.h)
  kV2RunnerProfilesGraphs,   // the V2 runner measures its CUDA graphs during the profile
  kModelRunnerV2AllModels,   // every model family profiles with the V2 runner
  kCheckpointKvCacheDtype,   // --kv-cache-dtype auto takes a ModelOpt checkpoint's kv_cache_quant_algo
  kDrafterCudaGraphs,        // EAGLE / EAGLE-3 drafter passes under torch.compile and CUDA graphs
  kJointQkNormAllReduce,     // MiniMax-M2's q and k norms share one all-reduce per layer under TP
};

template <>
struct EnumNames<ReleaseRule> {
  static constexpr EnumEntry<ReleaseRule> kEntries[] = {
      {ReleaseRule::kV1Engine, "v1-engine"},
      {ReleaseRule::kGroupedTokenReport, "tokens-per-group-report"},
      {ReleaseRule::kFullAndPiecewiseGraphs, "full-and-piecewise-graphs"},
      {ReleaseRule::kEncoderPlaceholderBudget, "encoder-placeholder-budget"},
      {ReleaseRule::kNoLoraExtraVocab, "no-lora-extra-vocab"},
      {ReleaseRule::kSortFreeSampler, "sort-free-sampler"},
      {ReleaseRule::kCudaGraphEstimateOptIn, "cuda-graph-estimate-opt-in"},
      {ReleaseRule::kConcurrencyTokenReport, "concurrency-token-report"},
      {ReleaseRule::kCudaGraphEstimateCharged, "cuda-graph-estimate-charged"},
      {ReleaseRule::kUtilization092, "utilization-0.92"},
      {ReleaseRule::kNullBlockOutOfCheck, "null-block-out-of-check"},
      {ReleaseRule::kModelRunnerV2Dense, "model-runner-v2-dense"},
      {ReleaseRule::kV2RunnerProfilesGraphs, "v2-runner-profiles-graphs"},
      {ReleaseRule::kModelRunnerV2AllModels, "model-runner-v2-all-models"},
      {ReleaseRule::kCheckpointKvCacheDtype, "checkpoint-kv-cache-dtype"},
      {ReleaseRule::kDrafterCudaGraphs, "drafter-cuda-graphs"},
      {ReleaseRule::kJointQkNormAllReduce, "joint-qk-norm-all-reduce"}};
};

struct ReleaseRuleEntry {
  ReleaseRule rule;
  int first_minor;     // first release 0.<first_minor> that ships the rule
  int last_minor;      // last release that has it; 0 = still in force
  const char* source;  // the pull request or the file (and release) it was read from
  const char* moves;   // the figure kvsim prints that it moves
};

// Every release-dependent rule of vLLM's V1 engine, oldest first. The V0 engine (releases before
// 0.8, or --vllm-version v0) has none of them.
std::span<const ReleaseRuleEntry> ReleaseRules();

// True when `version` (a V1-engine release) has `rule`.
bool HasRule(const VllmVersion& version, ReleaseRule rule);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_RELEASE_RULES_H_
