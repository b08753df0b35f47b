// What vLLM's start-up profile charges against the KV budget besides weights:
//
//   activation peak = max(forward peak, sampler peak)   (the forward's transients are freed before
//                                                       the sampler runs, so the two do not add)
//   forward peak    = T × E × act_bytes, where T = max_num_batched_tokens (MoE workspaces capped at
//                     vLLM's fused-MoE chunk of 32768 tokens) and E = live elements per token in the
//                     widest layer: dense MLP 3·I/tp + 3·h (gate_up output, activation output,
//                     hidden/residual/norm); MoE layer top_k·(3·I_e/tp + h) + 3·h (+ shared expert)
//   sampler peak    = R × V × c_era + T × h × act_bytes, on the last pipeline stage only, with
//                     R = min(max_num_seqs, T) dummy requests (V0: max_num_seqs), V the padded
//                     vocabulary and c_era the bytes one logit costs in the sampler (serving_engine.h;
//                     the V2 model runner's own figure in model_runner.h)
//   sampler state   = max_num_seqs × V × s_runner, held through the profile by the V2 runner on the
//                     last stage (model_runner.h) and added to the activation peak
//   sparse indexer  = DeepSeek-V3.2 (DSA) only: the profile run reserves the indexer's K-gather
//                     workspace, 40 × max_model_len entries of (index_head_dim + 4) B plus a 1 MiB
//                     top-k scratch, in the worker's shared workspace that the sparse-MLA prefill
//                     also sizes to 5 × max_model_len × (kv_lora_rank + rope dim) × 2 B (one buffer:
//                     the larger of the two), and allocates a 512 MiB placeholder for the prefill
//                     logits (VLLM_SPARSE_INDEXER_MAX_LOGITS_MB) inside the forward. The workspace
//                     outlives the forward, so the peak becomes ws + max(forward + logits, sampler).
//   non-torch       = memory the profile grows outside PyTorch's allocator (cuBLAS workspaces,
//                     attention-backend buffers, custom all-reduce / NCCL buffers with TP > 1);
//                     era-dependent constants measured on real vLLM start-up logs. The TP > 1
//                     increment depends on the interconnect: NVSwitch GPUs add NCCL's NVLS
//                     buffers, PCIe-only GPUs add next to nothing.
// docs/CAPACITY_MODEL.md derives each term and lists the logs it was checked against.
#ifndef KVSIM_KVCACHE_BUDGET_RUNTIME_OVERHEAD_H_
#define KVSIM_KVCACHE_BUDGET_RUNTIME_OVERHEAD_H_

#include <cstdint>

#include "kvcache/model/gpu_catalog.h"
#include "kvcache/model/model_spec.h"
#include "kvcache/budget/model_runner.h"
#include "kvcache/budget/serving_engine.h"

namespace kvsim {

// The CUDA context one process holds once it has touched the GPU (driver state, kernels loaded):
// what an engine that measures free memory after start-up (SGLang) or a training job never gets back.
inline constexpr double kCudaContextBytes = 0.5 * 1024.0 * 1024.0 * 1024.0;

struct ProfileSettings {
  int64_t max_num_batched_tokens = 8192;
  int64_t max_num_seqs = 256;
  int64_t max_model_len = 0;  // sizes the sparse indexer's profile workspaces
  int tp = 1;
  int pp = 1;
  bool last_stage = true;
  Interconnect interconnect = Interconnect::kNvls;  // kXgmi: AMD GPU (ROCm/RCCL)
  NumericFormat activation_dtype = NumericFormat::kBFloat16;
  VllmVersion version;
  ModelRunner runner = ModelRunner::kV1;
};

struct RuntimeOverhead {
  double forward_peak_bytes = 0;
  double sampler_peak_bytes = 0;
  double sampler_state_bytes = 0;    // the V2 runner's per-request sampler state (0 under V1)
  double activation_peak_bytes = 0;  // max of the two, plus the sampler state
  double non_torch_bytes = 0;
  double encoder_profile_bytes = 0;  // what a multimodal encoder adds to the peak (encoder_budget.h)
  double sparse_indexer_bytes = 0;   // what DSA's profile workspaces add to the peak (0 without an indexer)
  double cuda_graph_bytes = 0;       // the CUDA-graph estimate vLLM >= 0.21 charges to the KV budget (cuda_graph_memory.h)
};

RuntimeOverhead EstimateRuntimeOverhead(const ModelSpec& spec, const ProfileSettings& settings);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_RUNTIME_OVERHEAD_H_
