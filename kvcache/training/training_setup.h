// What a training or fine-tuning job is: the model (or a bare parameter count), batch and sequence,
// precision, optimizer, recompute, parallelism, ZeRO stage and fine-tuning method.
#ifndef KVSIM_KVCACHE_TRAINING_TRAINING_SETUP_H_
#define KVSIM_KVCACHE_TRAINING_TRAINING_SETUP_H_

#include <cstdint>
#include <optional>

#include "kvcache/base/enum_names.h"
#include "kvcache/model/model_spec.h"
#include "kvcache/training/optimizer_states.h"
#include "kvcache/training/training_activations.h"

namespace kvsim {

enum class Finetune { kFull, kLora, kQlora };
template <>
struct EnumNames<Finetune> {
  static constexpr EnumEntry<Finetune> kEntries[] = {
      {Finetune::kFull, "full"}, {Finetune::kLora, "lora"}, {Finetune::kQlora, "qlora"}};
};

enum class LoraTargets { kAllLinear, kAttention };
template <>
struct EnumNames<LoraTargets> {
  static constexpr EnumEntry<LoraTargets> kEntries[] = {{LoraTargets::kAllLinear, "all-linear"},
                                                        {LoraTargets::kAttention, "attention"}};
};


struct TrainingSetup {
  std::optional<ModelSpec> model;   // absent: count-only (--params), no activations from architecture
  double params = 0;                // used when `model` is absent
  int64_t micro_batch = 1;
  int64_t seq_len = 2048;
  TrainPrecision precision = TrainPrecision::kBf16Mixed;
  Optimizer optimizer = Optimizer::kAdamW;
  Recompute recompute = Recompute::kNone;
  bool flash_attention = false;
  int tp = 1, pp = 1, dp = 1;
  bool sequence_parallel = false;
  int zero = 0;                      // 0..3
  bool offload_optimizer = false;
  Finetune finetune = Finetune::kFull;
  int64_t lora_rank = 16;
  LoraTargets lora_targets = LoraTargets::kAllLinear;
  double gpu_memory_bytes = 0;       // 0: no GPU to fit
};

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_TRAINING_TRAINING_SETUP_H_
