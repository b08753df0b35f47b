// Weight memory on one GPU, as vLLM loads it: quantized linear layers at their storage size,
// everything else in the model dtype, split by tensor parallelism (vocab-parallel embeddings padded
// to a multiple of 64, replicated norms and routers, KV heads replicated when TP > kv_heads) and
// pipeline parallelism (vLLM's get_pp_indices layer split; embeddings on the first stage, final
// norm and lm_head on the last), plus the RoPE cos/sin cache buffer each rank keeps.
#ifndef KVSIM_KVCACHE_BUDGET_WEIGHT_MEMORY_H_
#define KVSIM_KVCACHE_BUDGET_WEIGHT_MEMORY_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kvcache/model/model_spec.h"
#include "kvcache/model/weight_tensors.h"

namespace kvsim {

struct WeightMemory {
  double quantized_bytes = 0;    // linear layers stored in the quantized format
  double full_width_bytes = 0;   // embeddings, lm_head, norms, biases, routers, unquantized linears
  double rope_cache_bytes = 0;   // cos/sin cache buffer
  double layer_bytes = 0;          // the stage's decoder layers (of the above), the part --cpu-offload-gb may move
  double cpu_offloaded_bytes = 0;  // --cpu-offload-gb: kept in CPU memory, read over the host link in each forward
  double init_buffer_bytes = 0;    // buffers the model allocates at load (Qwen3-VL's deepstack input embeds)
  double draft_bytes = 0;          // a speculative-decoding proposer's weights (speculative_memory.h)
  double lora_bytes = 0;           // LoRA slots' stacked buffers and extra vocabulary (lora_memory.h)
  double total_bytes() const {
    return quantized_bytes + full_width_bytes + rope_cache_bytes + init_buffer_bytes + draft_bytes + lora_bytes -
           cpu_offloaded_bytes;
  }
};

// [first_layer, end_layer) of each pipeline stage, as vLLM's get_pp_indices splits them: `partition`'s
// counts when given (VLLM_PP_LAYER_PARTITION), else equal shares, the remainder going to the stages just
// before the last one. Throws kvsim::Error, as vLLM raises ValueError, when the partition's stages are
// not `pp` or its layers not `num_layers`.
std::vector<std::pair<int64_t, int64_t>> PipelineStageLayers(int64_t num_layers, int pp,
                                                             const std::vector<int64_t>& partition = {});

// VLLM_PP_LAYER_PARTITION's text as vLLM reads it (int() of each comma-separated item: spaces, a sign and
// digit-separating underscores allowed); empty: none given. Throws kvsim::Error for an item int() refuses
// (vLLM: "Invalid partition string"), and for a stage without layers or with fewer than none.
std::vector<int64_t> ParsePipelineLayerPartition(const std::string& text);

// REQUIRES: tp >= 1, pp >= 1, 0 <= stage < pp, expert_shards >= 1. Routed experts are split over
// `expert_shards` ranks: tp by default; a deployment passes tp x dp (ExpertShards, startup_rules.h).
// `cpu_offload_bytes` (--cpu-offload-gb, per GPU) moves decoder-layer parameters to CPU memory as
// vLLM's maybe_offload_to_cpu does (model_executor/models/utils.py, called by make_layers on each
// layer): whole parameters, layer by layer, each one taken while the bytes moved so far are below
// the budget (the last may pass it); embeddings, the final norm and lm_head are not in make_layers
// and stay. kvsim's tensors are vLLM's parameters but for q, k and v, which vLLM fuses in one.
WeightMemory WeightsOnGpu(const ModelSpec& spec, const std::vector<WeightTensor>& tensors,
                          const QuantizationSpec& quant, NumericFormat dtype, int tp, int pp, int stage,
                          int expert_shards = 0, double cpu_offload_bytes = 0,
                          const std::vector<int64_t>& pp_partition = {});

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_WEIGHT_MEMORY_H_
