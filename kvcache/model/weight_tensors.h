// The weight tensors of a model, enumerated from its ModelSpec: the single source for both the
// exact parameter count and the per-GPU weight memory (which needs to know, per tensor, whether it
// may be quantized and how tensor parallelism splits it).
#ifndef KVSIM_KVCACHE_MODEL_WEIGHT_TENSORS_H_
#define KVSIM_KVCACHE_MODEL_WEIGHT_TENSORS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "kvcache/model/model_spec.h"

namespace kvsim {

// What a tensor is; decides whether a quantized checkpoint stores it quantized.
enum class WeightRole {
  kEmbedding,       // token (and learned position) embeddings: 16-bit
  kLmHead,          // 16-bit
  kNorm,            // 16-bit
  kBias,            // 16-bit
  kRouter,          // MoE gate: 16-bit
  kAttention,       // q/k/v/o and MLA projections: quantizable
  kMlp,             // dense and shared-expert MLP: quantizable
  kExpert,          // routed experts: quantizable (the only quantized part under mxfp4)
  kVision,          // multimodal encoder (estimated): 16-bit
  kOther,           // attention sinks and similar small vectors: 16-bit
};

// How tensor parallelism (vLLM's parallel linear layers) splits a tensor of shape [rows, cols].
enum class Sharding {
  kReplicated,  // every rank holds all of it (norms, routers, row-parallel biases, MLA down-projections)
  kRows,        // column-parallel: output rows split across ranks (q, gate/up, qkv bias)
  kCols,        // row-parallel: input columns split across ranks (o, down)
  kKvHeads,     // k/v rows: max(1, kv_heads / tp) heads per rank (replicated when tp > kv_heads)
  kVocab,       // vocab-parallel: vocabulary padded to a multiple of 64, then split
};

struct WeightTensor {
  std::string name;
  WeightRole role;
  Sharding sharding;
  int64_t rows = 0;    // output features (or vector length)
  int64_t cols = 1;    // input features (1 for vectors)
  int64_t copies = 1;  // identical tensors, e.g. one per routed expert
  int64_t layer = -1;  // decoder layer index; -1 for embeddings, final norm, lm_head, vision
  bool on_first_stage = false;  // pipeline parallel: embeddings live on the first stage
  bool on_last_stage = false;   // final norm and lm_head live on the last stage

  int64_t elements() const { return rows * cols * copies; }
};

std::vector<WeightTensor> EnumerateWeights(const ModelSpec& spec);

// Parameters as a model card counts them (tied embeddings once, vision encoder included when
// present). `include_final_norm = false` reproduces tables that leave the final norm out.
int64_t CountParameters(const ModelSpec& spec, bool include_final_norm = true);

// Parameters active per token: routed experts count experts_per_token of num_experts.
int64_t CountActiveParameters(const ModelSpec& spec);

// Parameters of the multi-token-prediction layers beside the decoder (ModelSpec::mtp_layers), as
// DeepSeek-V3's MTP module holds them (vLLM deepseek_mtp.py): each a decoder layer of the last
// layer's shape, enorm, hnorm and the shared head's norm [h], eh_proj [h, 2h]; the embedding and
// the output head are the model's own, so not counted again. Not in CountParameters.
int64_t CountMtpParameters(const ModelSpec& spec);

// Parameters of one decoder layer's dense MLP (gate/up/down with biases), as article 000 tabulates.
int64_t CountDenseMlpParameters(const ModelSpec& spec);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_MODEL_WEIGHT_TENSORS_H_
