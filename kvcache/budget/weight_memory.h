// Weight memory on one GPU, as vLLM loads it: quantized linear layers at their storage size,
// everything else in the model dtype, split by tensor parallelism (vocab-parallel embeddings padded
// to a multiple of 64, replicated norms and routers, KV heads replicated when TP > kv_heads) and
// pipeline parallelism (vLLM's get_pp_indices layer split; embeddings on the first stage, final
// norm and lm_head on the last), plus the RoPE cos/sin cache buffer each rank keeps.
#ifndef KVSIM_KVCACHE_BUDGET_WEIGHT_MEMORY_H_
#define KVSIM_KVCACHE_BUDGET_WEIGHT_MEMORY_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "kvcache/model/model_spec.h"
#include "kvcache/model/weight_tensors.h"

namespace kvsim {

struct WeightMemory {
  double quantized_bytes = 0;    // linear layers stored in the quantized format
  double full_width_bytes = 0;   // embeddings, lm_head, norms, biases, routers, unquantized linears
  double rope_cache_bytes = 0;   // cos/sin cache buffer
  double cpu_offloaded_bytes = 0;  // --cpu-offload-gb: kept in CPU memory, streamed in each forward
  double init_buffer_bytes = 0;    // buffers the model allocates at load (Qwen3-VL's deepstack input embeds)
  double draft_bytes = 0;          // a speculative-decoding proposer's weights (speculative_memory.h)
  double lora_bytes = 0;           // LoRA slots' stacked buffers and extra vocabulary (lora_memory.h)
  double total_bytes() const {
    return quantized_bytes + full_width_bytes + rope_cache_bytes + init_buffer_bytes + draft_bytes + lora_bytes -
           cpu_offloaded_bytes;
  }
};

// [first_layer, end_layer) of each pipeline stage, as vLLM's get_pp_indices splits them: equal
// shares, the remainder going to the stages just before the last one.
std::vector<std::pair<int64_t, int64_t>> PipelineStageLayers(int64_t num_layers, int pp);

// REQUIRES: tp >= 1, pp >= 1, 0 <= stage < pp, expert_shards >= 1. Routed experts are split over
// `expert_shards` ranks: tp by default; a deployment passes tp x dp (ExpertShards, startup_rules.h).
WeightMemory WeightsOnGpu(const ModelSpec& spec, const std::vector<WeightTensor>& tensors,
                          const QuantizationSpec& quant, NumericFormat dtype, int tp, int pp, int stage,
                          int expert_shards = 0);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_WEIGHT_MEMORY_H_
