// The activations a training step keeps for its backward pass, derived tensor by tensor from the
// architecture (not from a closed form): what each operation of a Hugging Face decoder layer saves
// for autograd, per token of a micro-batch, on one tensor-parallel rank.
//
// Per decoder layer (a = compute-dtype bytes, d = hidden, q/kv = query and K/V widths on this rank,
// I = MLP width on this rank, n = query heads on this rank, s = sequence length):
//   RMSNorm (×2)        fp32 upcast of its input 4d + the normalised input a·d (LayerNorm: input a·d);
//                       one shared norm in parallel blocks (Phi-2), two more on the outputs (Gemma 2/3)
//   norm output         a·d, saved by the q/k/v (gate/up) projections when their weights train
//   attention, flash    q, k, v at their real widths (GQA: K/V narrower), output, fp32 logsumexp;
//                       no s² tensor
//   attention, eager    q and K repeated to q width, fp32 softmax output 4·n·s, 16-bit probabilities
//                       a·n·s, V repeated; the o_proj input a·q when o_proj trains
//   gated MLP           gate output a·I (SiLU), act and up a·2I (product), down input a·I when down trains
//   MoE layer           fp32 router probabilities 4E, per routed copy (top-k) the gathered input a·d,
//                       the expert MLP as above, the expert output a·d; shared experts as a dense MLP
//   LoRA (per adapted linear) its own compute-dtype copy of the input (PEFT casts to the fp32 adapter,
//                       autocast back), the rank-r hidden
// Tensor parallelism divides the attention/MLP tensors (K/V by max(1, kv_heads / T) heads); sequence
// parallelism also divides the norm-region tensors. Selective recompute drops the s² tensors (already
// absent with FlashAttention); full recompute keeps each layer's input a·d and recomputes one layer at
// a time in the backward pass. Dropout, when the config sets it (attention_dropout / attn_pdrop,
// hidden_dropout / resid_pdrop): a 1-byte mask per element, and P·V keeps the dropped probabilities;
// FlashAttention regenerates its mask from the RNG state.
// Output head (last pipeline stage): final norm, lm_head input, the fp32 log-softmax the loss saves
// 4V; briefly the logits and their fp32 copy (HF's loss upcasts), then in the loss backward two fp32
// V-wide gradients (8V).
#ifndef KVSIM_KVCACHE_BUDGET_TRAINING_ACTIVATIONS_H_
#define KVSIM_KVCACHE_BUDGET_TRAINING_ACTIVATIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "kvcache/base/enum_names.h"
#include "kvcache/model/model_spec.h"

namespace kvsim {

enum class Recompute { kNone, kSelective, kFull };
template <>
struct EnumNames<Recompute> {
  static constexpr EnumEntry<Recompute> kEntries[] = {
      {Recompute::kNone, "none"}, {Recompute::kSelective, "selective"}, {Recompute::kFull, "full"}};
};

struct ActivationSettings {
  int64_t seq_len = 1;
  double compute_bytes = 2;        // a
  Recompute recompute = Recompute::kNone;
  bool flash_attention = false;
  int tp = 1;
  bool sequence_parallel = false;
  // Whether the base projections' weights get gradients (false: frozen under LoRA/QLoRA), so whether
  // they save their inputs.
  bool attention_trainable = true;
  bool mlp_trainable = true;
  bool lm_head_trainable = true;
  // LoRA adapters: rank 0 = none.
  int64_t lora_rank = 0;
  bool lora_attention = false;
  bool lora_mlp = false;
};

struct SavedTensor {
  std::string name;
  double bytes_per_token = 0;   // on this rank
  bool quadratic = false;       // grows with the sequence (s² tensors); dropped by selective recompute
};

// What one decoder layer saves with no recompute, tensor by tensor.
std::vector<SavedTensor> LayerSavedTensors(const ModelSpec& spec, int64_t layer, const ActivationSettings& s);

// Bytes per token one layer keeps until its backward pass under `s.recompute`.
double LayerKeptBytesPerToken(const std::vector<SavedTensor>& tensors, const ModelSpec& spec,
                              const ActivationSettings& s);

// The output head on the last pipeline stage.
struct HeadActivations {
  std::vector<SavedTensor> saved;     // kept until the backward pass
  double transient_bytes_per_token = 0;  // the loss backward's fp32 gradients, briefly
};
HeadActivations HeadSavedTensors(const ModelSpec& spec, const ActivationSettings& s);

double SumBytes(const std::vector<SavedTensor>& tensors);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_TRAINING_ACTIVATIONS_H_
