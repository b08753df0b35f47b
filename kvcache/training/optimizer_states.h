// Bytes per parameter of a training run's model states: the working weights, their gradients, the
// fp32 master copy mixed precision keeps, the optimizer's moments, and the temporaries the
// optimizer step allocates. One place for the conventions the source articles compare:
//
//   fp32          weights 4 + gradients 4 + moments 8                      = 16 Φ (article 000)
//   bf16-mixed    weights 2 + gradients 2 + (master 4 + moments 8)         = 16 Φ (ZeRO paper, article 003)
//                 Megatron keeps fp32 main gradients (2 + 4 + 4 + 8)       = 18 Φ (article 000)
//                 a 16-bit gradient and its fp32 copy (2+4 + 2+4 + 4+4)    = 20 Φ (article 000)
//   bf16 (pure)   weights 2 + gradients 2 + moments 4 (states in bf16)     =  8 Φ
//
// kvsim computes the first convention of each precision; the 18 Φ / 20 Φ variants are printed beside
// it as formulas. Optimizer moments per parameter: AdamW 2 (m, v), 8-bit AdamW 2 one-byte states plus
// one fp32 absmax per 2,048-element block (bitsandbytes' blockwise quantization), SGD none,
// SGD with momentum 1, Adafactor (no first moment, HF's default) the factored second moment: a row
// and a column vector per matrix, the full vector for 1-D tensors.
#ifndef KVSIM_KVCACHE_BUDGET_OPTIMIZER_STATES_H_
#define KVSIM_KVCACHE_BUDGET_OPTIMIZER_STATES_H_

#include "kvcache/base/enum_names.h"

namespace kvsim {

enum class TrainPrecision { kFp32, kBf16Mixed, kFp16Mixed, kBf16 };
template <>
struct EnumNames<TrainPrecision> {
  static constexpr EnumEntry<TrainPrecision> kEntries[] = {{TrainPrecision::kFp32, "fp32"},
                                                           {TrainPrecision::kBf16Mixed, "bf16-mixed"},
                                                           {TrainPrecision::kFp16Mixed, "fp16-mixed"},
                                                           {TrainPrecision::kBf16, "bf16"}};
};

enum class Optimizer { kAdamW, kAdamW8bit, kAdafactor, kSgd, kSgdMomentum };
template <>
struct EnumNames<Optimizer> {
  static constexpr EnumEntry<Optimizer> kEntries[] = {{Optimizer::kAdamW, "adamw"},
                                                      {Optimizer::kAdamW8bit, "adamw-8bit"},
                                                      {Optimizer::kAdafactor, "adafactor"},
                                                      {Optimizer::kSgd, "sgd"},
                                                      {Optimizer::kSgdMomentum, "sgd-momentum"}};
};

// Bytes of one element of the forward/backward compute (weights, activations, gradients): 4 for
// fp32, 2 otherwise.
double ComputeBytes(TrainPrecision precision);

// True when the optimizer updates an fp32 master copy of 16-bit working weights.
bool KeepsMasterWeights(TrainPrecision precision);

// Bytes of one optimizer-state element: fp32, except pure bf16 where torch keeps states in the
// parameters' dtype.
double StateBytes(TrainPrecision precision);

// Per trainable parameter, for optimizers whose states do not depend on tensor shapes.
struct StateBytesPerParam {
  double master = 0;         // fp32 master copy (mixed precision)
  double moments = 0;        // the optimizer's own states
  double intermediates = 0;  // temporaries of one optimizer step (the PyTorch-memory article's term)
};

// REQUIRES: optimizer != kAdafactor (its states depend on tensor shapes; training_memory.cpp counts
// them tensor by tensor).
StateBytesPerParam OptimizerBytesPerParam(TrainPrecision precision, Optimizer optimizer);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_OPTIMIZER_STATES_H_
