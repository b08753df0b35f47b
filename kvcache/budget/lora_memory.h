// GPU and host memory of LoRA adapter slots, as vLLM allocates them when --enable-lora is on.
//
// vLLM (v0.11: vllm/lora/models.py LoRAModelManager._create_lora_modules, vllm/lora/layers/
// base_linear.py and column_parallel_linear.py create_lora_weights) wraps every supported linear of
// the language model and allocates, per slice, zeroed stacked buffers for all --max-loras slots at
// --max-lora-rank, whatever rank the adapters later loaded have:
//   lora_a_stacked [max_loras, 1, rank_a, input_size]   lora_b_stacked [max_loras, 1, output, rank]
// Column-parallel layers (qkv, gate_up; one slice per packed sub-module: q, k, v / gate, up) keep
// their sharded output in B and the full input in A; row-parallel ones (o, down) the sharded input
// in A and the full output in B. --fully-sharded-loras splits A's rank (column-parallel) and B's
// output (row-parallel) over TP as well. The model's embedding_modules (embed_tokens, lm_head) get
// VocabParallelEmbeddingWithLoRA / LogitsProcessorWithLoRA buffers over the vocabulary plus
// lora_extra_vocab_size, and the base embedding and lm_head grow by those extra rows. This happens
// while the model loads, so the bytes count in "Model loading took" and come out of the KV budget.
#ifndef KVSIM_KVCACHE_BUDGET_LORA_MEMORY_H_
#define KVSIM_KVCACHE_BUDGET_LORA_MEMORY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "kvcache/budget/deployment_settings.h"
#include "kvcache/model/model_spec.h"
#include "kvcache/model/numeric_format.h"
#include "kvcache/model/weight_tensors.h"

namespace kvsim {

// One LoRA-wrapped module kind of vLLM (qkv_proj, o_proj, gate_up_proj, down_proj, embed_tokens,
// lm_head, ...) summed over the layers of one GPU.
struct LoraModuleBytes {
  std::string module;
  int64_t layers = 0;    // decoder layers it appears in (1 for the embedding and lm_head)
  double a_bytes = 0;    // lora_a_stacked, all slices and slots
  double b_bytes = 0;    // lora_b_stacked
  double other_bytes = 0;  // embeddings_tensors for the extra vocabulary (model dtype)
  double total() const { return a_bytes + b_bytes + other_bytes; }
};

// What one wrapped module gives vLLM's punica kernels to do on this GPU, per layer and adapter:
// shrink multiplies the tokens' input [T x in] by each slice's A [rank x in] into an fp32
// [T x slices·rank] buffer; expand multiplies that by each slice's B [out x rank] and adds the
// result to the layer's output [T x out_total]. The embedding's A is looked up by token id
// (`gather`: a row per token, not a product); lm_head's runs on one row per sampled sequence.
struct LoraKernelShape {
  std::string module;
  int64_t layers = 0;
  int64_t slices = 0;      // packed sub-modules (q, k, v; gate, up)
  int64_t rank = 0;        // A's rows per slice (max_lora_rank; split over TP under --fully-sharded-loras)
  int64_t in = 0;          // A's columns
  int64_t out_total = 0;   // B's rows over the slices
  int64_t a_elements = 0;  // one adapter's A over the slices
  int64_t b_elements = 0;  // one adapter's B over the slices
  bool per_sequence = false;
  bool gather = false;
};

struct LoraMemory {
  std::vector<LoraModuleBytes> modules;
  std::vector<LoraKernelShape> kernels;  // per module on this GPU, for the replay's step time
  double element_bytes = 2;              // of the adapter buffers (--lora-dtype)
  double extra_vocab_weight_bytes = 0;  // the base embedding / lm_head rows the extra vocabulary adds
  double skipped_expert_elements = 0;   // routed-expert weights left unwrapped (see notes)
  // Host memory of the CPU adapter cache: max_cpu_loras adapters at max_lora_rank, whole (unsharded).
  double host_bytes_per_adapter = 0;
  double host_bytes = 0;
  double gpu_bytes() const;
};

struct LoraPlacement {
  int tp = 1;
  int64_t first_layer = 0;   // decoder layers [first_layer, end_layer) on this GPU
  int64_t end_layer = 0;
  bool first_stage = true;   // holds embed_tokens
  bool last_stage = true;    // holds lm_head
};

// REQUIRES: settings.enabled.
LoraMemory LoraBuffersOnGpu(const ModelSpec& spec, const std::vector<WeightTensor>& tensors,
                            const LoraSettings& settings, NumericFormat model_dtype, const LoraPlacement& where);

// The format of the adapter buffers: --lora-dtype, or the model dtype for auto.
NumericFormat LoraDtype(const LoraSettings& settings, NumericFormat model_dtype);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_LORA_MEMORY_H_
