// The model states one GPU of a pipeline stage holds before ZeRO shards them: its TP shard of the
// weights (frozen base and adapters when fine-tuning), the trainable elements per layer, and
// Adafactor's factored moments.
#ifndef KVSIM_KVCACHE_TRAINING_STAGE_STATES_H_
#define KVSIM_KVCACHE_TRAINING_STAGE_STATES_H_

#include <cstdint>
#include <vector>

#include "kvcache/model/model_spec.h"
#include "kvcache/model/weight_tensors.h"
#include "kvcache/training/training_setup.h"

namespace kvsim {

// Model states on one GPU of one pipeline stage, before ZeRO sharding.
struct StageStates {
  double weights = 0;            // bytes
  double trainable = 0;          // elements
  double trainable_bytes = 0;    // bytes of one trainable element (compute or adapter dtype)
  double largest_layer_weights = 0;  // bytes: what ZeRO-3 gathers live
  std::vector<double> layer_trainable;  // elements per layer of the stage; last entry: non-layer tensors
  double params_total = 0;       // whole model, unsharded
  double trainable_total = 0;
  double factored_moments = 0;   // Adafactor's second-moment elements on this GPU
};

// The elements of `t` on one TP rank.
double ShardedElements(const WeightTensor& t, const ModelSpec& spec, int tp);
// A projection (what LoRA adapts and QLoRA quantizes), not an embedding, norm or router.
bool IsLinear(const WeightTensor& t);
// Whether `t` lives on `stage` (layers [first, end)); embeddings on the first, the head on the last.
bool OnStage(const WeightTensor& t, int64_t first, int64_t end, int stage, int pp);
StageStates StatesOnStage(const ModelSpec& spec, const std::vector<WeightTensor>& tensors, const TrainingSetup& setup,
                          int stage, int64_t first, int64_t end);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_TRAINING_STAGE_STATES_H_
