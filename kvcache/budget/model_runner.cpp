#include "kvcache/budget/model_runner.h"

#include "kvcache/budget/release_rules.h"

namespace kvsim {
namespace {

// "Dense" as PR #44443 scoped it: no routed experts and no linear-attention / SSM layers (the hybrid
// models kept V1 until the all-model switch: their 0.26-0.27 logs load through gpu_model_runner.py).
bool IsDense(const ModelSpec& spec) {
  if (spec.is_moe()) return false;
  for (const LayerAttention& l : spec.layers)
    if (l.kind == AttentionKind::kStateOnly) return false;
  return true;
}

}  // namespace

ModelRunner SelectModelRunner(const VllmVersion& version, const ModelSpec& spec, const std::string& speculative_method) {
  if (speculative_method == "ngram") return ModelRunner::kV1;  // a fallback the capability check keeps
  if (HasRule(version, ReleaseRule::kModelRunnerV2AllModels)) return ModelRunner::kV2;
  if (HasRule(version, ReleaseRule::kModelRunnerV2Dense) && IsDense(spec)) return ModelRunner::kV2;
  return ModelRunner::kV1;
}

double SamplerBytesPerLogit(ModelRunner runner, const VllmVersion& version) {
  // V2: the model-dtype logits compute_logits returns (2) and their one fp32 copy (4).
  return runner == ModelRunner::kV2 ? 6.0 : version.sampler_bytes_per_logit();
}

double SamplerStateBytesPerLogit(ModelRunner runner) {
  // V2: output_bin_counts (int32) and prompt_bin_mask (one int32 word per 32 entries).
  return runner == ModelRunner::kV2 ? 4.0 + 4.0 / 32.0 : 0.0;
}

bool RunnerProfilesCudaGraphs(ModelRunner runner, const VllmVersion& version) {
  return runner == ModelRunner::kV1 || HasRule(version, ReleaseRule::kV2RunnerProfilesGraphs);
}

}  // namespace kvsim
