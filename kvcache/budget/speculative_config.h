// --speculative-config checked as vLLM's SpeculativeConfig checks it (vllm/config/speculative.py,
// vllm-project/vllm @ 002e77c1): the method one vLLM knows, every key a SpeculativeConfig field,
// each value in its range; a key kvsim cannot model is refused with the reason rather than dropped.
// Checks that need the target model (MTP layers, draft TP against the target's) are separate, since
// the JSON is read before the model is resolved.
#ifndef KVSIM_KVCACHE_BUDGET_SPECULATIVE_CONFIG_H_
#define KVSIM_KVCACHE_BUDGET_SPECULATIVE_CONFIG_H_

#include <nlohmann/json.hpp>

#include "kvcache/budget/deployment_settings.h"
#include "kvcache/model/model_spec.h"

namespace kvsim {

// The parsed JSON object of --speculative-config. Throws kvsim::Error naming the flag and the key.
SpeculativeSettings SpeculativeFromJson(const nlohmann::json& config);

// What only the target decides: "mtp" needs the target's MTP layers (vLLM finds no MTP model class
// for a config without them), a token count beyond them must be a multiple of them, and
// draft_tensor_parallel_size is 1 or the target's TP. Throws kvsim::Error naming the model.
void CheckSpeculativeAgainstTarget(const SpeculativeSettings& speculative, const ModelSpec& target,
                                   int tensor_parallel_size);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_SPECULATIVE_CONFIG_H_
