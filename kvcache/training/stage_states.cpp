#include "kvcache/training/stage_states.h"

#include <algorithm>

#include "kvcache/base/units.h"
#include "kvcache/model/quantization.h"

namespace kvsim {
namespace {

bool IsLoraTarget(const WeightTensor& t, LoraTargets targets) {
  if (!IsLinear(t)) return false;
  return t.role == WeightRole::kAttention || targets == LoraTargets::kAllLinear;
}

// kvsim lists gate and up as one [2I, h] tensor; Hugging Face models (and so LoRA) have two linears.
bool IsFusedGateUp(const WeightTensor& t, const ModelSpec& spec) {
  return spec.mlp_kind == MlpKind::kGated && t.name.size() >= 12 &&
         t.name.compare(t.name.size() - 12, 12, "gate_up_proj") == 0;
}

// Adapter parameters on one linear: A [r, cols] and B [rows, r].
double AdapterParams(const WeightTensor& t, const ModelSpec& spec, int64_t r) {
  const double rr = static_cast<double>(r), copies = static_cast<double>(t.copies);
  if (IsFusedGateUp(t, spec)) return copies * 2 * rr * static_cast<double>(t.rows / 2 + t.cols);
  return copies * rr * static_cast<double>(t.rows + t.cols);
}

// Adafactor keeps a row and a column vector per matrix (the full vector for 1-D tensors).
double FactoredMoments(double rows, double cols, double copies) { return copies * (cols <= 1 ? rows : rows + cols); }

double AdapterFactoredMoments(const WeightTensor& t, const ModelSpec& spec, int64_t r) {
  const double rr = static_cast<double>(r);
  const double linears = IsFusedGateUp(t, spec) ? 2 : 1;
  const double rows = static_cast<double>(t.rows) / linears, cols = static_cast<double>(t.cols);
  return static_cast<double>(t.copies) * linears * ((rr + cols) + (rows + rr));
}

double FrozenBaseBytes(const WeightTensor& t, const TrainingSetup& s) {
  // QLoRA stores linears as bitsandbytes NF4 with double quantization (the bytes scale with the elements).
  if (s.finetune == Finetune::kQlora) return IsLinear(t) ? LinearWeightBytes(BitsAndBytesNf4(), 1, 1, 0) : 4.0;
  return ComputeBytes(s.precision);
}

}  // namespace
double ShardedElements(const WeightTensor& t, const ModelSpec& spec, int tp) {
  const double rows = static_cast<double>(t.rows), cols = static_cast<double>(t.cols);
  double e = rows * cols;
  switch (t.sharding) {
    case Sharding::kReplicated: break;
    case Sharding::kRows:
    case Sharding::kVocab: e = static_cast<double>(CeilDiv(t.rows, tp)) * cols; break;
    case Sharding::kCols: e = rows * static_cast<double>(CeilDiv(t.cols, tp)); break;
    case Sharding::kKvHeads: {
      const int64_t per_head = t.rows / std::max<int64_t>(1, spec.num_kv_heads);
      e = static_cast<double>(std::max<int64_t>(1, spec.num_kv_heads / tp) * per_head) * cols;
      break;
    }
  }
  return e * static_cast<double>(t.copies);
}

bool IsLinear(const WeightTensor& t) {
  return t.cols > 1 && (t.role == WeightRole::kAttention || t.role == WeightRole::kMlp || t.role == WeightRole::kExpert);
}

bool OnStage(const WeightTensor& t, int64_t first, int64_t end, int stage, int pp) {
  if (t.layer >= 0) return t.layer >= first && t.layer < end;
  return t.on_last_stage ? stage == pp - 1 : stage == 0;
}

StageStates StatesOnStage(const ModelSpec& spec, const std::vector<WeightTensor>& tensors, const TrainingSetup& s,
                          int stage, int64_t first, int64_t end) {
  StageStates st;
  const bool full = s.finetune == Finetune::kFull;
  st.trainable_bytes = full ? ComputeBytes(s.precision) : (s.precision == TrainPrecision::kBf16 ? 2.0 : 4.0);
  st.layer_trainable.assign(static_cast<size_t>(end - first) + 1, 0.0);
  std::vector<double> layer_weights(st.layer_trainable.size(), 0.0);
  for (const WeightTensor& t : tensors) {
    const double all = static_cast<double>(t.elements());
    const double adapters = full ? 0 : (IsLoraTarget(t, s.lora_targets) && t.role != WeightRole::kVision ? AdapterParams(t, spec, s.lora_rank) : 0);
    st.params_total += all;
    st.trainable_total += full ? all : adapters;
    if (!OnStage(t, first, end, stage, s.pp)) continue;
    const double mine = ShardedElements(t, spec, s.tp);
    const double trainable = full ? mine : adapters;  // adapters are replicated across TP ranks
    const double bytes = (full ? mine * st.trainable_bytes : mine * FrozenBaseBytes(t, s) + adapters * st.trainable_bytes);
    if (full) {
      const double rows_here = mine / (static_cast<double>(t.cols) * static_cast<double>(t.copies));
      st.factored_moments += FactoredMoments(rows_here, static_cast<double>(t.cols), static_cast<double>(t.copies));
    } else if (adapters > 0) {
      st.factored_moments += AdapterFactoredMoments(t, spec, s.lora_rank);
    }
    const size_t slot = t.layer >= 0 ? static_cast<size_t>(t.layer - first) : st.layer_trainable.size() - 1;
    st.weights += bytes;
    st.trainable += trainable;
    st.layer_trainable[slot] += trainable;
    layer_weights[slot] += bytes;
    // ZeRO-3 gathers module by module: a decoder layer, or the embedding / lm_head on their own.
    if (t.layer < 0) st.largest_layer_weights = std::max(st.largest_layer_weights, bytes);
  }
  layer_weights.pop_back();
  for (double w : layer_weights) st.largest_layer_weights = std::max(st.largest_layer_weights, w);
  return st;
}

}  // namespace kvsim
