// The time of one GEMM kernel, C[M×N] = A[M×K] · B[K×N], on one GPU, from its FLOPs and bytes:
//
//   memory  = (weight bytes + A and C bytes) / (HBM bandwidth × gemm_memory)
//   compute = waves × tile FLOPs / (peak per SM × gemm_compute × tile efficiency)
//   time    = max(memory, compute) + gemm_floor
//
// Compute is quantized the way GEMM libraries run: the output is cut into tiles (256×128 down to
// 64×64, smaller tiles reusing operands less), the tiles are spread over the SMs in waves, and a
// partly filled last wave costs a whole one. K may be split (split-K, and stream-K's balancing of a
// ragged last wave) to fill the SMs, at a small reduction cost (the partial sums stay in L2). Of the
// candidate tilings the fastest is taken, as the libraries' heuristics do. Small M is therefore memory bound (weights streamed once), large M
// compute bound, and the transition shows the wave steps real kernels show.
#ifndef KVSIM_SIM_GEMM_TIME_H_
#define KVSIM_SIM_GEMM_TIME_H_

#include <cstdint>

namespace kvsim {

struct GemmDevice {
  double peak_flops = 0;       // dense tensor peak of the compute format, FLOP/s
  double hbm_bytes_per_s = 0;
  int sm_count = 0;            // 0: no wave quantization (fractional waves)
  double compute_efficiency = 0.75;
  double memory_efficiency = 0.80;
  double floor_s = 5e-6;
};

struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  double weight_bytes = 0;        // B as stored (quantized formats are smaller)
  double activation_bytes = 2;    // per element of A and C
  double dequant_factor = 1.0;    // > 1: MMA work per useful FLOP (weight-only unpacking, padded rows)
};

// The rows of the smallest output tile the compute model rounds M up to.
inline constexpr int64_t kGemmMinTileRows = 64;

double GemmFlops(const GemmShape& g);
double GemmBytes(const GemmShape& g);

// Seconds. REQUIRES: m, n, k >= 1; device peak and bandwidth > 0.
double GemmSeconds(const GemmShape& g, const GemmDevice& d);

// A grouped GEMM (MoE experts in one fused kernel): `groups` GEMMs of the same shape, their tiles
// sharing the waves, one kernel floor.
double GroupedGemmSeconds(const GemmShape& each, double groups, const GemmDevice& d);

}  // namespace kvsim

#endif  // KVSIM_SIM_GEMM_TIME_H_
