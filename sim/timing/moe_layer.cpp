#include "sim/timing/moe_layer.h"

#include <algorithm>
#include <cmath>

#include "kvcache/base/check.h"
#include "sim/timing/moe_routing.h"

namespace kvsim {
namespace {

// The share of the tensor peak Triton's fused_moe_kernel sustains once the experts are compute
// bound. Its A rows are gathered through the token-sorted index (sorted_token_ids) and its C rows
// scattered back, so it cannot stream operands as a dense GEMM's bulk tile copies do: "roughly half
// of the H100's dense bf16 peak for a gathered/scattered grouped GEMM with SwiGLU fused in"
// (linkedin/Liger-Kernel PR #1294, tuned on the Qwen3-30B-A3B expert shape). vLLM's own
// benchmark_moe.py tables agree: between the two largest batches published, 60% of the peak on
// A100 (PR #40542, E=64), 63% on H100 (PR #24700, Mixtral TP 2), 43% on H200 (PR #44818, E=128),
// against the ~75% a dense cuBLAS GEMM sustains (data/validation/moe-kernels lists them).
constexpr double kTritonFusedMoeComputeEfficiency = 0.5;

}  // namespace

MoeLayerTimer::MoeLayerTimer(const MoeLayerShape& shape, const LowBitGemm& lowbit, const GemmDevice& dense, MoeKernel kernel,
                             const ExpertParallelLinks& links)
    : shape_(shape), device_(dense), activation_bytes_(shape.activation_bytes), kernel_(kernel), links_(links) {
  if (shape.quantized) lowbit_ = lowbit;
  if (kernel == MoeKernel::kTritonFusedMoe)
    device_.compute_efficiency = std::min(device_.compute_efficiency, kTritonFusedMoeComputeEfficiency);
  KVSIM_DCHECK(shape.num_experts >= shape.top_k && shape.top_k > 0 && shape.tp >= 1 && shape.dp >= 1);
  if (shape.quantized) {
    if (lowbit.peak_flops > 0) device_.peak_flops = lowbit.peak_flops;
    if (lowbit.activation_bytes > 0) activation_bytes_ = lowbit.activation_bytes;
    dequant_ = lowbit.dequant_factor;
  }
  // DeepEP dispatches FP8 (with its scales) to experts that compute in 8 or 4 bits; the combine
  // returns the experts' outputs in the activation type. The gathering backends move the hidden
  // states as they are, with the router logits (E per token, the activation type: FusedMoEConfig's
  // router_logits_dtype defaults to it) that the naive dispatch gathers alongside.
  const bool fp8_dispatch = shape.quantized && lowbit.kernel != LowBitKernel::kWeightOnly && lowbit.kernel != LowBitKernel::kNone;
  const double hidden = static_cast<double>(shape.hidden);
  dispatch_bytes_ = Gathered() ? (hidden + shape.num_experts) * shape.activation_bytes
                               : DispatchBytesPerToken(hidden, fp8_dispatch, shape.activation_bytes);
  combine_bytes_ = hidden * shape.activation_bytes;
  // Routed: DeepEP's normal kernels send a token once per destination rank; the others once per expert.
  copies_per_token_ = shape.all2all == All2AllBackend::kDeepepHighThroughput
                          ? ExpectedDestinationRanks(shape.num_experts, shape.top_k, shape.tp * shape.dp)
                          : shape.top_k;
}

bool MoeLayerTimer::Gathered() const { return !shape_.expert_parallel || GathersEveryToken(shape_.all2all); }

double MoeLayerTimer::local_experts() const {
  return shape_.expert_parallel ? shape_.num_experts / (shape_.tp * shape_.dp) : shape_.num_experts;
}

GemmShape MoeLayerTimer::Shape(int64_t n, int64_t k, double weight_bytes, int64_t rows, double padding) const {
  return {rows, n, k, weight_bytes, activation_bytes_, dequant_ * padding};
}

double MoeLayerTimer::ProjectionsSeconds(double tokens, bool padded, double* flops, double* bytes, double* up_s,
                                         double* down_s) const {
  const double e = shape_.num_experts, k = shape_.top_k;
  const double ranks = shape_.expert_parallel ? static_cast<double>(shape_.tp * shape_.dp) : 1.0;
  double t = tokens;
  // The most loaded rank's share of the T·k assignments, as if it saw proportionally more tokens.
  if (padded && ranks > 1) t *= ExpectedMaxLoad(tokens * k, ranks) / (tokens * k / ranks);
  const double touched = std::max(1.0, ExpectedTouchedExperts(e, k, t));
  const int64_t rows = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(t * k / touched)));
  const double groups = touched / ranks;
  // The rows the kernel computes for a touched expert: its rows padded to the kernel's block,
  // averaged over the binomial spread, as extra MMA work beyond the rows the tile model already
  // rounds the even spread up to (its smallest tile); the reads stay the real rows'.
  const double tiled_rows = std::ceil(static_cast<double>(rows) / kGemmMinTileRows) * kGemmMinTileRows;
  double kernel_rows = tiled_rows * KernelRowShare(lowbit_, rows);
  if (padded) {
    const double block = MoeBlockRows(kernel_, t, e, t * k / e);
    kernel_rows = std::max(kernel_rows, e * ExpectedPaddedRows(t, k / e, block) / touched);
  }
  const double padding = kernel_rows / tiled_rows;
  const GemmShape up = Shape(shape_.up_n, shape_.hidden, shape_.up_weight_bytes, rows, padding);
  const GemmShape down = Shape(shape_.hidden, shape_.down_k, shape_.down_weight_bytes, rows, padding);
  *up_s = GroupedGemmSeconds(up, groups, device_) * shape_.layers;
  *down_s = GroupedGemmSeconds(down, groups, device_) * shape_.layers;
  flops[0] = GemmFlops(up) * groups * shape_.layers;
  flops[1] = GemmFlops(down) * groups * shape_.layers;
  bytes[0] = GemmBytes(up) * groups * shape_.layers;
  bytes[1] = GemmBytes(down) * groups * shape_.layers;
  return *up_s + *down_s;
}

void MoeLayerTimer::AddExperts(int64_t tokens, std::vector<OperatorCost>* out, double* seconds) const {
  if (tokens <= 0 || shape_.layers <= 0) return;
  // The MoE layer sees every DP rank's tokens (each rank's batch like this one).
  const double t = static_cast<double>(tokens) * shape_.dp;
  double flops[2], bytes[2], up = 0, down = 0;
  const double even = ProjectionsSeconds(t, false, flops, bytes, &up, &down);
  double slow_flops[2], slow_bytes[2], slow_up = 0, slow_down = 0;
  const double slow = ProjectionsSeconds(t, true, slow_flops, slow_bytes, &slow_up, &slow_down);
  const double imbalance = std::max(0.0, slow - even);
  *seconds += even + imbalance;
  if (!out) return;
  const int64_t layers = static_cast<int64_t>(shape_.layers);
  out->push_back({"experts_up", "linear", layers, flops[0], bytes[0], up});
  out->push_back({"experts_down", "linear", layers, flops[1], bytes[1], down});
  // Kernels 0: the same launches as experts_up/down, longer.
  out->push_back({"experts_imbalance", "linear", 0, std::max(0.0, slow_flops[0] + slow_flops[1] - flops[0] - flops[1]),
                  std::max(0.0, slow_bytes[0] + slow_bytes[1] - bytes[0] - bytes[1]), imbalance});
}

void MoeLayerTimer::AddAllToAll(int64_t tokens, std::vector<OperatorCost>* out, double* seconds) const {
  if (tokens <= 0 || shape_.layers <= 0 || shape_.dp <= 1) return;
  const double t = static_cast<double>(tokens);
  int ranks = shape_.tp * shape_.dp;
  ExpertParallelLinks links = links_;
  double copies = 0;
  if (!shape_.expert_parallel) {
    // Every rank gathers the T tokens of each DP rank over its DP group (the ranks of its TP index,
    // TP apart: D / TP of them share an NVLink domain) and reduce-scatters the outputs back.
    ranks = shape_.dp;
    links.domain_gpus = std::max(1, links_.domain_gpus / shape_.tp);
    copies = t * shape_.dp;
  } else {
    // With EP the TP ranks of a DP rank split its tokens (sequence-parallel MoE, vLLM PR #24982)
    // and each sends its share over the EP group: to every rank when gathering, else to the ranks
    // its tokens are routed to.
    const double sent = t / shape_.tp;
    copies = GathersEveryToken(shape_.all2all) ? sent * ranks : sent * copies_per_token_;
  }
  const AllToAllBytes dispatch = SplitAllToAll(copies, dispatch_bytes_, ranks, links);
  // vLLM's naive combine all-reduces the gathered buffer: twice a reduce-scatter's bytes.
  const double combine_factor = shape_.all2all == All2AllBackend::kNaive ? 2.0 : 1.0;
  const AllToAllBytes combine = SplitAllToAll(copies * combine_factor, combine_bytes_, ranks, links);
  const double d = AllToAllSeconds(dispatch, links) * shape_.layers, c = AllToAllSeconds(combine, links) * shape_.layers;
  *seconds += d + c;
  if (!out) return;
  const int64_t layers = static_cast<int64_t>(shape_.layers);
  out->push_back({"moe_dispatch", "communication", layers, 0.0, dispatch.total() * shape_.layers, d});
  out->push_back({"moe_combine", "communication", layers, 0.0, combine.total() * shape_.layers, c});
}

int64_t MoeLayerTimer::KernelsPerStep() const {
  const double per_layer = shape_.dp > 1 ? 4 : 2;
  return static_cast<int64_t>(per_layer * shape_.layers);
}

}  // namespace kvsim
