#include "kvcache/budget/model_runner.h"

#include "kvcache/budget/release_rules.h"

namespace kvsim {
namespace {

// On V2 from 0.25: the dense models of PR #44443 (no routed experts, no linear-attention / SSM layers;
// hybrid models kept V1 until the all-model switch, their 0.26-0.27 logs loading through
// gpu_model_runner.py) and the Qwen and DeepSeek-V2 MoE families PR #42667 moved a month earlier
// (2026-06-12). Other MoE families (gpt-oss, Mixtral, DeepSeek-V3, Llama 4) are not named by any
// rollout step before PR #53183 and stay on V1 until 0.29.
bool OnV2From025(const ModelSpec& spec) {
  for (const LayerAttention& l : spec.layers)
    if (l.kind == AttentionKind::kStateOnly) return false;
  if (!spec.is_moe()) return true;
  return spec.model_type == "qwen2_moe" || spec.model_type == "qwen3_moe" || spec.model_type == "deepseek_v2";
}

}  // namespace

ModelRunner SelectModelRunner(const VllmVersion& version, const ModelSpec& spec, const std::string& speculative_method) {
  if (speculative_method == "ngram") return ModelRunner::kV1;  // a fallback the capability check keeps
  if (HasRule(version, ReleaseRule::kModelRunnerV2AllModels)) return ModelRunner::kV2;
  if (HasRule(version, ReleaseRule::kModelRunnerV2Dense) && OnV2From025(spec)) return ModelRunner::kV2;
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
