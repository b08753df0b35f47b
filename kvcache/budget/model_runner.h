// The GPU model runner whose profile run sizes the KV budget, and what its profile holds.
//
// vLLM has two: V1 (vllm/v1/worker/gpu_model_runner.py) and V2 (vllm/v1/worker/gpu/model_runner.py;
// its log says "Using V2 Model Runner" and its load line comes from model_runner.py). A capability
// check picks one per deployment (PR #39337). V2 became the default for dense models in 0.25 (PR
// #44443, "Enable by default for all dense models", merged 2026-07-02; 0.25.1 per vllm#49233; the Qwen
// and DeepSeek-V2 MoE families a month before, PR #42667) and for
// every model family in 0.29 (PR #53183; the vLLM blog "From Opt-In to Default", 2026-08-31, names
// v0.29.0 as its first release), with n-gram speculative decoding still routed to V1. Qwen3 dense
// models ran on V2 earlier as the rollout's canary (PR #39337, 2026-05-14); kvsim gives them V2 from
// 0.25 with the other dense models.
//
// What differs in the start-up budget:
//   sampler     V1 keeps the fp32 logits, probabilities and log-probabilities of the dummy batch
//               (serving_engine.h: 15 B per logit). V2's Sampler.sample copies the model-dtype logits
//               once to fp32 and works in place up to a fused Gumbel-max kernel
//               (vllm/v1/worker/gpu/sample/sampler.py): 2 + 4 = 6 B per logit.
//   state       V2's PenaltiesState allocates, with the sampler at load, an int32 count per request
//               and vocabulary entry (output_bin_counts, "can be very large, taking up GBs") and a
//               packed int32 prompt bitmask (prompt_bin_mask, vocab / 32 words per request):
//               4 + 4/32 B per (max_num_seqs x vocabulary) on the last pipeline stage, held through
//               the profile (vllm/v1/worker/gpu/sample/penalties.py).
//   CUDA graphs V2's profile_cudagraph_memory() returned 0 (PR #36520, vllm#49224), so 0.25-0.27
//               charged no graph estimate to the KV budget; PR #53306 (0.28) made it capture them.
#ifndef KVSIM_KVCACHE_BUDGET_MODEL_RUNNER_H_
#define KVSIM_KVCACHE_BUDGET_MODEL_RUNNER_H_

#include <string>

#include "kvcache/base/enum_names.h"
#include "kvcache/budget/serving_engine.h"
#include "kvcache/model/model_spec.h"

namespace kvsim {

enum class ModelRunner { kV1, kV2 };
template <>
struct EnumNames<ModelRunner> {
  static constexpr EnumEntry<ModelRunner> kEntries[] = {{ModelRunner::kV1, "v1"}, {ModelRunner::kV2, "v2"}};
};

// The runner vLLM `version` picks for `spec` (`speculative_method`: --speculative-config's method,
// empty without one). The V0 engine and V1-engine releases before 0.25 have only the V1 runner.
ModelRunner SelectModelRunner(const VllmVersion& version, const ModelSpec& spec, const std::string& speculative_method);

// Bytes one logit of the dummy batch costs in the profile's sampler pass.
double SamplerBytesPerLogit(ModelRunner runner, const VllmVersion& version);

// Bytes per (request slot x vocabulary entry) of sampler state held through the profile.
double SamplerStateBytesPerLogit(ModelRunner runner);

// True when the profile measures the CUDA graphs it will capture (so the estimate can be charged).
bool RunnerProfilesCudaGraphs(ModelRunner runner, const VllmVersion& version);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_MODEL_RUNNER_H_
