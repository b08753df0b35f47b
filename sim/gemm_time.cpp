#include "sim/gemm_time.h"

#include <algorithm>
#include <cmath>

namespace kvsim {
namespace {

// Output tiles GEMM libraries choose between (CUTLASS / cuBLAS on Ampere and Hopper), with the
// share of a full tile's throughput each sustains: smaller tiles reuse operands less.
struct Tile {
  int64_t m, n;
  double efficiency;
};
constexpr Tile kTiles[] = {{256, 128, 1.0}, {128, 256, 1.0}, {128, 128, 0.95}, {128, 64, 0.85}, {64, 128, 0.85}, {64, 64, 0.7}};
constexpr int64_t kSplitK[] = {1, 2, 4, 8};
constexpr int64_t kMinSplitKDepth = 256;  // K per split worth a split
constexpr double kSplitReduceS = 2e-6;    // split-K's reduction of the partial outputs (they stay in L2)

double ComputeSeconds(double m, double n, double k, double groups, const GemmDevice& d, double dequant) {
  if (d.sm_count <= 0) return 2 * m * n * k * groups * dequant / (d.peak_flops * d.compute_efficiency);
  const double per_sm = d.peak_flops / d.sm_count * d.compute_efficiency;
  double best = INFINITY;
  for (const Tile& t : kTiles) {
    const double tiles = std::ceil(m / static_cast<double>(t.m)) * std::ceil(n / static_cast<double>(t.n)) * groups;
    for (int64_t split : kSplitK) {
      if (split > 1 && k / static_cast<double>(split) < kMinSplitKDepth) continue;
      const double waves = std::ceil(tiles * static_cast<double>(split) / d.sm_count);
      const double tile_flops = 2.0 * static_cast<double>(t.m * t.n) * k / static_cast<double>(split) * dequant;
      const double s = waves * tile_flops / (per_sm * t.efficiency) + (split > 1 ? kSplitReduceS : 0.0);
      best = std::min(best, s);
    }
  }
  return best;
}

}  // namespace

double GemmFlops(const GemmShape& g) {
  return 2.0 * static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k);
}

double GemmBytes(const GemmShape& g) {
  return g.weight_bytes + static_cast<double>(g.m) * static_cast<double>(g.k + g.n) * g.activation_bytes;
}

double GemmSeconds(const GemmShape& g, const GemmDevice& d) { return GroupedGemmSeconds(g, 1.0, d); }

double GroupedGemmSeconds(const GemmShape& g, double groups, const GemmDevice& d) {
  const double memory = (g.weight_bytes + static_cast<double>(g.m) * static_cast<double>(g.k + g.n) * g.activation_bytes) *
                        groups / (d.hbm_bytes_per_s * d.memory_efficiency);
  const double compute = ComputeSeconds(static_cast<double>(g.m), static_cast<double>(g.n), static_cast<double>(g.k),
                                        groups, d, g.dequant_factor);
  return std::max(memory, compute) + d.floor_s;
}

}  // namespace kvsim
