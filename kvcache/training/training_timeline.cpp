#include "kvcache/training/training_timeline.h"

#include <algorithm>

#include "kvcache/base/text_format.h"

namespace kvsim {

std::vector<TimelinePoint> BuildTimeline(const TimelineInputs& in, int64_t first_layer) {
  std::vector<TimelinePoint> out;
  TimelinePoint p;
  p.weights = in.weights;
  p.optimizer = in.optimizer;
  p.activations = in.per_microbatch * (in.microbatches_in_flight - 1);  // earlier micro-batches in flight
  p.label = "start";
  out.push_back(p);
  for (size_t i = 0; i < in.layer_kept.size(); ++i) {
    p.activations += in.layer_kept[i];
    p.label = Format("fwd L%lld", static_cast<long long>(first_layer) + static_cast<long long>(i));
    out.push_back(p);
  }
  p.activations += in.head_saved;
  const double share = in.trainable > 0 ? in.gradients / in.trainable : 0;
  p.label = "loss";
  out.push_back(p);
  p.phase = 1;
  p.activations -= in.head_saved;
  p.gradients += share * in.layer_trainable.back();  // lm_head, final norm, embeddings
  TimelinePoint peak_loss = p;
  peak_loss.activations += in.head_saved + in.transient;
  peak_loss.label = "loss backward";
  out.push_back(peak_loss);
  for (size_t i = in.layer_kept.size(); i-- > 0;) {
    p.activations -= in.layer_kept[i];
    p.gradients += share * in.layer_trainable[i];
    p.label = Format("bwd L%lld", static_cast<long long>(first_layer) + static_cast<long long>(i));
    out.push_back(p);
  }
  p.phase = 2;
  p.activations = std::max(0.0, p.activations);
  p.gradients = in.gradients;
  p.intermediates = in.optimizer_intermediates;
  p.label = "optimizer step";
  out.push_back(p);
  p.gradients = p.intermediates = 0;
  p.label = "zero_grad";
  out.push_back(p);
  return out;
}

}  // namespace kvsim
