// The routed experts of a step's MoE layers on one GPU, and the expert-parallel all-to-all around them.
//
//   experts_up, experts_down   one grouped GEMM each over the experts the step's tokens touch, tokens
//                              spread evenly: E_local·(1 − (1 − k/E)^T) experts, T·k / touched rows each
//   experts_imbalance          what the uneven spread adds (moe_routing.h): each expert's rows padded to
//                              the fused-MoE kernel's M block (lowbit_gemm.h: MoeBlockRows), and under
//                              expert parallelism the most loaded rank's rows instead of the mean
//   moe_dispatch, moe_combine  with data parallelism, per MoE layer, as the --all2all-backend moves
//                              tokens (expert_parallel.h): without EP always gathered (vLLM's naive
//                              dispatch path), with EP gathered or routed by the backend
//
// Parallelism follows vLLM's FusedMoEParallelConfig (vllm/model_executor/layers/fused_moe/config.py):
// the MoE layers span the TP × DP ranks. With --enable-expert-parallel each rank holds E / (TP·DP)
// whole experts; without it every rank holds a 1/(TP·DP) slice of every expert. Either way the
// tokens of all DP ranks meet in the MoE layer, so one rank's GEMMs see T·DP tokens. Each DP rank is
// taken to run a batch like this one: vLLM steps the DP ranks together (idle ranks run dummy batches,
// vllm/v1/engine/core.py DPEngineCoreProc), so the step is as long as the ranks' common MoE work.
#ifndef KVSIM_SIM_TIMING_MOE_LAYER_H_
#define KVSIM_SIM_TIMING_MOE_LAYER_H_

#include <cstdint>
#include <vector>

#include "kvcache/budget/all2all_backend.h"
#include "sim/timing/expert_parallel.h"
#include "sim/timing/gemm_time.h"
#include "sim/timing/lowbit_gemm.h"
#include "sim/timing/operator_cost.h"

namespace kvsim {

struct MoeLayerShape {
  double layers = 0;                 // MoE layers on this GPU's stages
  double num_experts = 0, top_k = 0;
  int tp = 1, dp = 1;
  bool expert_parallel = false;      // --enable-expert-parallel
  All2AllBackend all2all = All2AllBackend::kAllgatherReducescatter;  // how tokens move at dp > 1
  int64_t hidden = 0;
  int64_t up_n = 0, down_k = 0;      // one expert's up (gate+up) outputs and down inputs on this GPU
  double up_weight_bytes = 0, down_weight_bytes = 0;  // one expert's, as stored on this GPU
  double activation_bytes = 2;       // the compute dtype's
  bool quantized = false;            // the experts are stored in the checkpoint's quantized format
};

// How the experts are laid out and run, for reports.
struct MoeLayout {
  double experts = 0, top_k = 0;
  const char* kernel = "";       // MoeKernelName
  int ranks = 1;                 // TP × DP ranks the MoE layers span
  int dp = 1;
  bool expert_parallel = false;
  double local_experts = 0;      // experts whose weights (whole or sliced) each rank holds
  All2AllBackend all2all = All2AllBackend::kAllgatherReducescatter;  // how tokens move at dp > 1
};

class MoeLayerTimer {
 public:
  // `dense`: the 16-bit GEMM device; `lowbit`: the quantized kernel (used when shape.quantized).
  MoeLayerTimer(const MoeLayerShape& shape, const LowBitGemm& lowbit, const GemmDevice& dense, MoeKernel kernel,
                const ExpertParallelLinks& links);

  // The experts' GEMMs for `tokens` tokens of this rank's batch (linear), appended to `out` if given.
  void AddExperts(int64_t tokens, std::vector<OperatorCost>* out, double* seconds) const;
  // Dispatch and combine (communication); nothing without data parallelism.
  void AddAllToAll(int64_t tokens, std::vector<OperatorCost>* out, double* seconds) const;
  int64_t KernelsPerStep() const;

  MoeKernel kernel() const { return kernel_; }
  MoeLayout Layout() const {
    return {shape_.num_experts, shape_.top_k, MoeKernelName(kernel_), ranks(), shape_.dp, shape_.expert_parallel, local_experts(),
            shape_.all2all};
  }
  int ranks() const { return shape_.tp * shape_.dp; }
  double local_experts() const;

 private:
  GemmShape Shape(int64_t n, int64_t k, double weight_bytes, int64_t rows, double padding) const;
  // Whether dispatch gathers every token on every rank (no EP, or a gathering backend).
  bool Gathered() const;
  // Seconds of both projections for `tokens` tokens over the experts (global), rows padded when `padded`.
  double ProjectionsSeconds(double tokens, bool padded, double* flops, double* bytes, double* up_s, double* down_s) const;

  MoeLayerShape shape_;
  GemmDevice device_;
  double activation_bytes_ = 2, dequant_ = 1;
  LowBitGemm lowbit_;  // the experts' kernel when quantized; kNone otherwise
  MoeKernel kernel_;
  ExpertParallelLinks links_;
  double dispatch_bytes_ = 0, combine_bytes_ = 0;  // per token copy
  double copies_per_token_ = 0;                     // routed dispatch: destinations per token
};

}  // namespace kvsim

#endif  // KVSIM_SIM_TIMING_MOE_LAYER_H_
