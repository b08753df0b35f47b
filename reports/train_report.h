// Renders `kvsim train`: the per-GPU table (components, the article's peak rule, fit on the GPU),
// the articles' activation formulas beside the tensor-by-tensor count, one layer's saved tensors;
// JSON with `parameters`, `trainable_parameters`, `per_gpu_bytes`, `activations_by_formula`, `fits`;
// and an HTML page / standalone SVG of memory over one iteration (forward, backward, optimizer step).
#ifndef KVSIM_REPORTS_TRAIN_REPORT_H_
#define KVSIM_REPORTS_TRAIN_REPORT_H_

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "kvcache/training/training_memory.h"

namespace kvsim {

struct TrainReport {
  std::string model;        // preset, path, or "N parameters"
  std::string gpu;          // GPU name; empty when no GPU was given
  TrainingSetup setup;
  TrainingMemory memory;
  int64_t max_micro_batch = -1;  // --find micro-batch-size; -1: not asked
};

// The Korthikanti et al. formula variant the settings select (FlashAttention: the selective one).
std::string KorthikantiVariant(const TrainingSetup& setup);

std::string RenderTrainText(const TrainReport& report);
nlohmann::json TrainToJson(const TrainReport& report);
// Stacked areas: weights, optimizer states, gradients, optimizer step temporaries, activations (GiB).
std::string RenderTrainSvg(const TrainReport& report);
std::string RenderTrainHtml(const TrainReport& report);

}  // namespace kvsim

#endif  // KVSIM_REPORTS_TRAIN_REPORT_H_
