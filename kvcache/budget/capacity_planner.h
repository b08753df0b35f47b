// The static capacity answer: for a model, a GPU and server settings, how vLLM (or SGLang,
// TensorRT-LLM) splits GPU memory into weights, activation peak, runtime overhead and KV cache, and
// how many blocks, tokens and max_model_len requests that KV cache holds.
//
// vLLM (reference/serving-memory-facts.md §1):
//   kv_cache_bytes = total × gpu_memory_utilization − weights − activation_peak − non_torch
//                    (or --kv-cache-memory as given)
//   num_blocks     = floor(floor(kv_cache_bytes / page_bytes) / group_size), min over PP stages
//   max_concurrency = num_blocks / Σ_groups pages one max_model_len request needs
// SGLang:  kv = (total − weights − context) − total × (1 − mem_fraction_static); tokens = kv / cell
// TRT-LLM: kv = free_gpu_memory_fraction (0.9) × (total − weights − activation − non_torch)
#ifndef KVSIM_KVCACHE_BUDGET_CAPACITY_PLANNER_H_
#define KVSIM_KVCACHE_BUDGET_CAPACITY_PLANNER_H_

#include <cstdint>

#include "kvcache/budget/capacity_result.h"
#include "kvcache/budget/deployment.h"
#include "kvcache/model/gpu_catalog.h"
#include "kvcache/model/model_spec.h"

namespace kvsim {

// Throws kvsim::Error when a setting is invalid for the model (TP not dividing the heads,
// --max-model-len above the model's limit, ...). A model that does not fit is not an exception
// here: see CapacityResult::does_not_fit.
CapacityResult PlanCapacity(const ModelSpec& spec, const GpuSpec& gpu, const DeploymentConfig& config);

// Requests of `tokens` tokens each decoding at once in the planned KV cache: see
// CapacityResult::concurrency_at.
double ConcurrencyAt(const CapacityResult& result, int64_t tokens);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_CAPACITY_PLANNER_H_
