// Training and fine-tuning memory per GPU (`kvsim train`): a static memory model, its own layer above the budget.
//
//   model states   weights, gradients, optimizer (fp32 master + moments) per trainable parameter
//                  (optimizer_states.h), split by tensor parallelism (each tensor's own sharding) and
//                  pipeline stage, sharded over the data-parallel group by ZeRO (1: optimizer and its
//                  step temporaries, 2: + gradients, 3: + weights, with the largest layer's parameters
//                  gathered live); --offload-optimizer moves the optimizer and its step to the CPU;
//                  plain DDP (ZeRO 0, D > 1) keeps its all-reduce buckets as a second gradient copy
//   LoRA / QLoRA   frozen base (QLoRA: NF4 linears, 0.5 B + an 8-bit absmax per 64 weights + an fp32
//                  scale per 256 absmax = 0.51587 B/param; the rest cast to fp32 as PEFT's
//                  prepare_model_for_kbit_training does) plus rank-r adapters in fp32 that train
//   activations    tensor by tensor (training_activations.h); pipeline stage i of P keeps P − i
//                  micro-batches in flight (1F1B); plus the largest transient (loss backward, the
//                  layer being recomputed, a dequantized 4-bit weight)
//   peak           the PyTorch-memory article's rule, per component:
//                  weights + optimizer + max(gradients + optimizer intermediates, activations)
//                  + CUDA context (0.5 GiB) + allocator reserve (the largest single activation tensor,
//                  which the caching allocator keeps once freed)
// The stage with the highest peak is reported. All byte counts are per GPU.
#ifndef KVSIM_KVCACHE_TRAINING_TRAINING_MEMORY_H_
#define KVSIM_KVCACHE_TRAINING_TRAINING_MEMORY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvcache/base/enum_names.h"
#include "kvcache/training/activation_formulas.h"
#include "kvcache/training/optimizer_states.h"
#include "kvcache/training/training_activations.h"
#include "kvcache/training/training_setup.h"
#include "kvcache/training/training_timeline.h"
#include "kvcache/budget/runtime_overhead.h"
#include "kvcache/model/model_spec.h"

namespace kvsim {

struct TrainingMemory {
  double parameters = 0;
  double trainable_parameters = 0;
  int stage = 0;                     // pipeline stage reported
  int64_t stage_layers = 0;
  int microbatches_in_flight = 1;
  // Per GPU, bytes.
  double weights = 0, gradients = 0, optimizer = 0, optimizer_master = 0, optimizer_moments = 0;
  double optimizer_intermediates = 0, activations = 0, activations_saved = 0, activations_transient = 0;
  double zero3_live_params = 0, cuda_context = 0, allocator_reserve = 0, peak = 0;
  double optimizer_cpu = 0;          // offloaded
  bool peak_in_optimizer_step = false;  // gradients + intermediates > activations
  // Tensor by tensor, per token of one micro-batch (first layer of the stage; the head on the last).
  std::vector<SavedTensor> layer_tensors;
  std::vector<SavedTensor> head_tensors;
  double layer_kept_bytes_per_token = 0;
  FormulaActivations by_formula;
  // The articles' model-state conventions for all parameters on one GPU (no sharding): 16/18/20 Φ.
  double phi16 = 0, phi18 = 0, phi20 = 0;
  std::vector<TimelinePoint> timeline;
  double gpu_memory = 0;
  bool fits = true;
  double margin = 0;                 // gpu_memory − peak (negative: short by)
  std::vector<std::string> notes;
};

// Throws kvsim::Error for settings that cannot describe a run (naming the option).
TrainingMemory EstimateTrainingMemory(const TrainingSetup& setup);

// The largest micro-batch size whose peak fits `setup.gpu_memory_bytes`; 0 when even 1 does not.
int64_t FindMaxMicroBatch(TrainingSetup setup);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_TRAINING_TRAINING_MEMORY_H_
