// One training step's memory over time on one GPU of a pipeline stage, for the timeline chart:
// the earlier micro-batches' activations, the forward pass layer by layer, the loss, the backward
// pass freeing activations and accumulating gradients layer by layer, the optimizer step and
// zero_grad.
#ifndef KVSIM_KVCACHE_TRAINING_TRAINING_TIMELINE_H_
#define KVSIM_KVCACHE_TRAINING_TRAINING_TIMELINE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace kvsim {

// Memory at one point of an iteration (the report's chart), bytes per GPU.
struct TimelinePoint {
  std::string label;      // "fwd L3", "loss", "bwd L3", "optimizer step"
  int phase = 0;          // 0 forward, 1 backward, 2 optimizer step
  double weights = 0, optimizer = 0, activations = 0, gradients = 0, intermediates = 0;
  double total() const { return weights + optimizer + activations + gradients + intermediates; }
};

// What one GPU of the stage holds, bytes (elements for the trainable counts).
struct TimelineInputs {
  double weights = 0, optimizer = 0, gradients = 0, optimizer_intermediates = 0;
  int microbatches_in_flight = 1;       // 1F1B: the stage's warm-up depth
  double per_microbatch = 0;            // activation bytes saved by one micro-batch
  std::vector<double> layer_kept;       // of them, per layer of the stage
  double head_saved = 0;                // the loss head's saved activations
  double transient = 0;                 // the largest transient buffer
  double trainable = 0;                 // trainable elements on the stage
  std::vector<double> layer_trainable;  // per layer; the last entry: non-layer tensors
};

std::vector<TimelinePoint> BuildTimeline(const TimelineInputs& inputs, int64_t first_layer);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_TRAINING_TRAINING_TIMELINE_H_
