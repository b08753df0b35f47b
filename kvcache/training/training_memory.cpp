#include "kvcache/training/training_memory.h"

#include <algorithm>
#include <cmath>

#include "kvcache/base/check.h"
#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "kvcache/base/units.h"
#include "kvcache/budget/weight_memory.h"
#include "kvcache/model/quantization.h"
#include "kvcache/model/weight_tensors.h"
#include "kvcache/training/stage_states.h"

namespace kvsim {
namespace {

void Validate(const TrainingSetup& s) {
  auto in = [](int64_t v, int64_t lo, int64_t hi, const char* flag) {
    if (v < lo || v > hi)
      throw Error(Format("--%s: %lld is outside [%lld, %lld]", flag, static_cast<long long>(v),
                         static_cast<long long>(lo), static_cast<long long>(hi)));
  };
  in(s.micro_batch, 1, 1 << 20, "micro-batch-size");
  in(s.seq_len, 1, 1 << 24, "seq-len");
  in(s.tp, 1, 1024, "tensor-parallel-size");
  in(s.pp, 1, 1024, "pipeline-parallel-size");
  in(s.dp, 1, 1 << 20, "data-parallel-size");
  in(s.zero, 0, 3, "zero");
  if (s.finetune != Finetune::kFull) in(s.lora_rank, 1, 1 << 16, "lora-rank");
  if (s.sequence_parallel && s.tp == 1) throw Error("--sequence-parallel needs --tensor-parallel-size > 1");
  // Sequence parallelism scatters each sequence evenly over the TP ranks; Megatron-LM asserts the
  // split (megatron/core/tensor_parallel/mappings.py, _split_along_first_dim: "First dimension of
  // the tensor should be divisible by tensor parallel size").
  if (s.sequence_parallel && s.seq_len % s.tp != 0)
    throw Error(Format("--sequence-parallel: --seq-len %lld is not a multiple of --tensor-parallel-size %d; the "
                       "sequence is split evenly over the TP ranks (Megatron-LM refuses an uneven split)",
                       static_cast<long long>(s.seq_len), s.tp));
  // DeepSpeed offloads the optimizer as part of ZeRO (its offload_optimizer config: "Valid for ZeRO
  // stage 1, 2, 3"); plain data parallelism has no optimizer offload to model.
  if (s.offload_optimizer && s.zero == 0)
    throw Error("--offload-optimizer: DeepSpeed offloads the optimizer with ZeRO stage 1, 2 or 3 only; give --zero 1 "
                "or more");
  if (!s.model) {
    if (!(s.params > 0 && s.params < 1e15)) throw Error("--params: give a positive parameter count (e.g. 7.5e9)");
    if (s.finetune != Finetune::kFull) throw Error("--finetune lora/qlora needs --model (adapters follow the projections' shapes)");
    if (s.optimizer == Optimizer::kAdafactor) throw Error("--optimizer adafactor needs --model (its factored moments follow tensor shapes)");
    return;
  }
  // Megatron-style tensor parallelism splits the attention heads evenly over the ranks (Megatron-LM
  // asserts num_attention_heads % tensor_model_parallel_size == 0 at start-up).
  if (s.model->num_attention_heads % s.tp != 0)
    throw Error(Format("--tensor-parallel-size %d does not divide the model's %lld attention heads", s.tp,
                       static_cast<long long>(s.model->num_attention_heads)));
  if (s.pp > s.model->num_layers)
    throw Error(Format("--pipeline-parallel-size %d exceeds the model's %lld layers", s.pp,
                       static_cast<long long>(s.model->num_layers)));
}


// Optimizer bytes on this GPU before ZeRO: master + moments + step temporaries.
StateBytesPerParam OptimizerBytes(const TrainingSetup& s, double trainable, double factored_moments) {
  // LoRA adapters are fp32 (pure bf16: bf16) parameters: no master copy.
  const TrainPrecision p = s.finetune == Finetune::kFull ? s.precision
                           : s.precision == TrainPrecision::kBf16 ? TrainPrecision::kBf16
                                                                  : TrainPrecision::kFp32;
  StateBytesPerParam per;
  if (s.optimizer != Optimizer::kAdafactor) {
    per = OptimizerBytesPerParam(p, s.optimizer);
  } else {
    // Factored second moment over this GPU's trainable tensors (full fine-tune), the update's
    // squared-gradient temporary parameter-sized.
    per.master = KeepsMasterWeights(p) ? 4.0 : 0.0;
    per.intermediates = StateBytes(p);
    per.moments = trainable > 0 ? StateBytes(p) * factored_moments / trainable : 0;
  }
  return {per.master * trainable, per.moments * trainable, per.intermediates * trainable};
}

struct StageActivations {
  double saved = 0, transient = 0, largest_tensor = 0;
  double per_microbatch = 0;              // saved bytes of one micro-batch
  std::vector<double> layer_kept;         // bytes of one micro-batch, per layer of the stage
  double head_saved = 0;
  std::vector<SavedTensor> layer_tensors, head_tensors;
  double layer_kept_per_token = 0;
};

ActivationSettings ActivationSettingsOf(const TrainingSetup& s) {
  ActivationSettings a;
  a.seq_len = s.seq_len;
  a.compute_bytes = ComputeBytes(s.precision);
  a.recompute = s.recompute;
  a.flash_attention = s.flash_attention;
  a.tp = s.tp;
  a.sequence_parallel = s.sequence_parallel;
  if (s.finetune != Finetune::kFull) {
    a.attention_trainable = a.mlp_trainable = a.lm_head_trainable = false;
    a.lora_rank = s.lora_rank;
    a.lora_attention = true;
    a.lora_mlp = s.lora_targets == LoraTargets::kAllLinear;
  }
  return a;
}

double LargestLinearBytes(const std::vector<WeightTensor>& tensors, const ModelSpec& spec, const TrainingSetup& s) {
  double largest = 0;
  for (const WeightTensor& t : tensors)
    if (IsLinear(t)) largest = std::max(largest, ShardedElements(t, spec, s.tp) / static_cast<double>(t.copies));
  return largest * ComputeBytes(s.precision);
}

StageActivations ActivationsOnStage(const ModelSpec& spec, const std::vector<WeightTensor>& tensors,
                                    const TrainingSetup& s, int stage, int64_t first, int64_t end, int in_flight) {
  const ActivationSettings as = ActivationSettingsOf(s);
  const double tokens = static_cast<double>(s.micro_batch) * static_cast<double>(s.seq_len);
  StageActivations out;
  double recompute_layer = 0;
  for (int64_t layer = first; layer < end; ++layer) {
    std::vector<SavedTensor> tensors_here = LayerSavedTensors(spec, layer, as);
    const double kept = LayerKeptBytesPerToken(tensors_here, spec, as);
    out.layer_kept.push_back(kept * tokens);
    // Recomputing a layer in the backward pass materialises what it would have saved.
    if (s.recompute != Recompute::kNone) recompute_layer = std::max(recompute_layer, (SumBytes(tensors_here) - kept) * tokens);
    for (const auto& t : tensors_here) out.largest_tensor = std::max(out.largest_tensor, t.bytes_per_token * tokens);
    if (layer == first) {
      out.layer_tensors = std::move(tensors_here);
      out.layer_kept_per_token = kept;
    }
  }
  for (double b : out.layer_kept) out.per_microbatch += b;
  double transient = recompute_layer;
  if (stage == s.pp - 1) {
    const HeadActivations head = HeadSavedTensors(spec, as);
    out.head_saved = SumBytes(head.saved) * tokens;
    out.head_tensors = head.saved;
    for (const auto& t : head.saved) out.largest_tensor = std::max(out.largest_tensor, t.bytes_per_token * tokens);
    transient = std::max(transient, head.transient_bytes_per_token * tokens);
  }
  if (s.finetune == Finetune::kQlora) transient += LargestLinearBytes(tensors, spec, s);  // dequantized for the matmul
  // 1F1B: the in-flight micro-batches all hold their layers' activations; the head's are freed by
  // the loss backward right after each forward on the last stage (which holds one).
  out.saved = out.per_microbatch * in_flight + out.head_saved;
  out.transient = transient;
  return out;
}


// ZeRO over the data-parallel group and CPU offload, applied to one stage's model states.
void ShardModelStates(const TrainingSetup& s, const StageStates& st, TrainingMemory& m) {
  const double dp = s.dp;
  const StateBytesPerParam opt = OptimizerBytes(s, st.trainable, st.factored_moments);
  m.weights = st.weights;
  m.gradients = st.trainable * st.trainable_bytes;
  m.optimizer_master = opt.master;
  m.optimizer_moments = opt.moments;
  m.optimizer_intermediates = opt.intermediates;
  if (s.zero >= 1) {
    m.optimizer_master /= dp;
    m.optimizer_moments /= dp;
    m.optimizer_intermediates /= dp;  // each rank steps only its shard
  }
  // PyTorch DDP (ZeRO 0) all-reduces through bucket buffers that, by default
  // (gradient_as_bucket_view=False), are a second copy of every gradient.
  if (s.zero == 0 && s.dp > 1) m.gradients *= 2;
  if (s.zero >= 2) m.gradients /= dp;
  if (s.zero >= 3) {
    m.weights /= dp;
    m.zero3_live_params = s.dp > 1 ? st.largest_layer_weights : 0;
    m.weights += m.zero3_live_params;
  }
  m.optimizer = m.optimizer_master + m.optimizer_moments;
  if (s.offload_optimizer) {
    m.optimizer_cpu = m.optimizer;
    m.optimizer = m.optimizer_master = m.optimizer_moments = m.optimizer_intermediates = 0;
  }
}

FormulaInputs FormulaInputsOf(const TrainingSetup& s, double parameters) {
  FormulaInputs in;
  if (s.model) {
    in.layers = s.model->num_layers;
    in.hidden = s.model->hidden_size;
    in.heads = s.model->num_attention_heads;
    in.vocab = s.model->vocab_size;
  }
  in.micro_batch = s.micro_batch;
  in.seq_len = s.seq_len;
  in.parameters = parameters;
  in.compute_bytes = ComputeBytes(s.precision);
  in.tp = s.tp;
  in.sequence_parallel = s.sequence_parallel;
  in.flash_attention = s.flash_attention;
  in.recompute = s.recompute;
  return in;
}

void AddPeak(const TrainingSetup& s, TrainingMemory& m) {
  m.activations = m.activations_saved + m.activations_transient;
  m.cuda_context = kCudaContextBytes;
  const double step = m.gradients + m.optimizer_intermediates;
  m.peak_in_optimizer_step = step > m.activations;
  m.peak = m.weights + m.optimizer + std::max(step, m.activations) + m.cuda_context + m.allocator_reserve;
  m.phi16 = 16 * m.parameters;
  m.phi18 = 18 * m.parameters;
  m.phi20 = 20 * m.parameters;
  m.gpu_memory = s.gpu_memory_bytes;
  if (s.gpu_memory_bytes > 0) {
    m.margin = s.gpu_memory_bytes - m.peak;
    m.fits = m.margin >= 0;
  }
}

// Without an architecture (--params): the articles' rules, model states / (TP·PP), activations by
// the PyTorch-memory article's heuristic.
TrainingMemory CountOnly(const TrainingSetup& s) {
  TrainingMemory m;
  m.parameters = m.trainable_parameters = s.params;
  StageStates st;
  st.trainable_bytes = ComputeBytes(s.precision);
  st.trainable = s.params / (s.tp * s.pp);
  st.weights = st.trainable * st.trainable_bytes;
  st.largest_layer_weights = 0;
  ShardModelStates(s, st, m);
  m.by_formula = ActivationsByFormula(FormulaInputsOf(s, s.params));
  m.activations_saved = m.by_formula.hf_heuristic;
  m.notes.push_back("--params: no architecture, so activations are the PyTorch-memory article's heuristic A·b·s·bytes");
  AddPeak(s, m);
  return m;
}


TrainingMemory EstimateStage(const TrainingSetup& s, const std::vector<WeightTensor>& tensors, int stage) {
  const ModelSpec& spec = *s.model;
  const auto ranges = PipelineStageLayers(spec.num_layers, s.pp);
  const auto [first, end] = ranges[static_cast<size_t>(stage)];
  TrainingMemory m;
  m.stage = stage;
  m.stage_layers = end - first;
  m.microbatches_in_flight = s.pp - stage;  // 1F1B warm-up depth of this stage
  const StageStates st = StatesOnStage(spec, tensors, s, stage, first, end);
  m.parameters = st.params_total;
  m.trainable_parameters = st.trainable_total;
  ShardModelStates(s, st, m);
  const StageActivations act = ActivationsOnStage(spec, tensors, s, stage, first, end, m.microbatches_in_flight);
  m.activations_saved = act.saved;
  m.activations_transient = act.transient;
  m.allocator_reserve = act.largest_tensor;
  m.layer_tensors = act.layer_tensors;
  m.head_tensors = act.head_tensors;
  m.layer_kept_bytes_per_token = act.layer_kept_per_token;
  m.by_formula = ActivationsByFormula(FormulaInputsOf(s, m.parameters));
  AddPeak(s, m);
  TimelineInputs timeline;
  timeline.weights = m.weights;
  timeline.optimizer = m.optimizer;
  timeline.gradients = m.gradients;
  timeline.optimizer_intermediates = m.optimizer_intermediates;
  timeline.microbatches_in_flight = m.microbatches_in_flight;
  timeline.per_microbatch = act.per_microbatch;
  timeline.layer_kept = act.layer_kept;
  timeline.head_saved = act.head_saved;
  timeline.transient = act.transient;
  timeline.trainable = st.trainable;
  timeline.layer_trainable = st.layer_trainable;
  m.timeline = BuildTimeline(timeline, first);
  return m;
}

void AddNotes(const TrainingSetup& s, TrainingMemory& m) {
  if (s.model && s.model->vision_params > 0)
    m.notes.push_back("the vision encoder's weights count; its activations do not (text tokens only)");
  if (s.finetune == Finetune::kQlora)
    m.notes.push_back("QLoRA: NF4 linears with double-quantized scales; norms, embeddings and lm_head cast to fp32 (PEFT)");
  if (s.pp > 1)
    m.notes.push_back(Format("1F1B: stage %d holds %d micro-batches in flight", m.stage, m.microbatches_in_flight));
  if (s.zero >= 1 && s.dp == 1) m.notes.push_back("--zero with --data-parallel-size 1 shards nothing");
  if (s.zero == 0 && s.dp > 1) m.notes.push_back("DDP: gradients counted twice (the all-reduce buckets are a copy)");
}

}  // namespace

TrainingMemory EstimateTrainingMemory(const TrainingSetup& setup) {
  Validate(setup);
  if (!setup.model) {
    TrainingMemory m = CountOnly(setup);
    AddNotes(setup, m);
    return m;
  }
  const std::vector<WeightTensor> tensors = EnumerateWeights(*setup.model);
  TrainingMemory best;
  for (int stage = 0; stage < setup.pp; ++stage) {
    TrainingMemory m = EstimateStage(setup, tensors, stage);
    if (stage == 0 || m.peak > best.peak) best = std::move(m);
  }
  AddNotes(setup, best);
  return best;
}

int64_t FindMaxMicroBatch(TrainingSetup setup) {
  KVSIM_CHECK(setup.gpu_memory_bytes > 0, "FindMaxMicroBatch needs a GPU");
  auto fits = [&](int64_t b) {
    setup.micro_batch = b;
    return EstimateTrainingMemory(setup).fits;
  };
  if (!fits(1)) return 0;
  int64_t lo = 1, hi = 2;
  constexpr int64_t kMax = int64_t{1} << 20;
  while (hi <= kMax && fits(hi)) {
    lo = hi;
    hi *= 2;
  }
  if (hi > kMax) return lo;
  while (hi - lo > 1) {  // fits(lo), !fits(hi); the peak grows with the micro-batch
    const int64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace kvsim
