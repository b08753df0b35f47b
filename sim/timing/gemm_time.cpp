#include "sim/timing/gemm_time.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace kvsim {
namespace {

// Output tiles GEMM libraries choose between (CUTLASS / cuBLAS on Ampere and Hopper), with the
// share of a full tile's throughput each sustains: smaller tiles reuse operands less.
struct Tile {
  int64_t m, n;
  double efficiency;
};
// Every side and split a power of two (ComputeSeconds relies on it).
constexpr Tile kTiles[] = {{256, 128, 1.0}, {128, 256, 1.0}, {128, 128, 0.95}, {128, 64, 0.85}, {64, 128, 0.85}, {64, 64, 0.7}};
constexpr int64_t kSplitK[] = {1, 2, 4, 8};
constexpr int64_t kMinSplitKDepth = 256;  // K per split worth a split
constexpr double kSplitReduceS = 2e-6;    // split-K's reduction of the partial outputs (they stay in L2)
static_assert([] {
  int64_t rows = INT64_MAX;
  for (const Tile& t : kTiles) rows = std::min(rows, t.m);
  return rows == kGemmMinTileRows;
}());
static_assert([] {
  for (const Tile& t : kTiles)
    if (!std::has_single_bit(static_cast<uint64_t>(t.m)) || !std::has_single_bit(static_cast<uint64_t>(t.n))) return false;
  for (int64_t s : kSplitK)
    if (!std::has_single_bit(static_cast<uint64_t>(s))) return false;
  return true;
}());

// The fastest tiling's time; speed: the search stops at the first tiling no slower than `enough`
// (the caller takes max(memory, compute), which any such tiling already settles).
double ComputeSeconds(double m, double n, double k, double groups, const GemmDevice& d, double dequant, double enough) {
  if (d.sm_count <= 0) return 2 * m * n * k * groups * dequant / (d.peak_flops * d.compute_efficiency);
  const double per_sm = d.peak_flops / d.sm_count * d.compute_efficiency;
  double best = INFINITY;
  // speed: tile sides and splits are powers of two, so dividing by one is multiplying by its
  // reciprocal, exactly (a scaling by 2^-j); only the SM count and the rate need a division.
  for (const Tile& t : kTiles) {
    const double tiles = std::ceil(m * (1.0 / static_cast<double>(t.m))) * std::ceil(n * (1.0 / static_cast<double>(t.n))) * groups;
    // speed: no split of this tile beats its tiles spread over every SM with no ragged wave (a
    // split divides the tile's FLOPs by what it multiplies the waves by); when that bound is
    // already slower than the best, with a margin far above rounding, the tile is skipped.
    const double bound = tiles * (2.0 * static_cast<double>(t.m * t.n) * k * dequant) / (d.sm_count * per_sm * t.efficiency);
    if (bound > best * (1 + 1e-9)) continue;
    for (int64_t split : kSplitK) {
      const double per_split = 1.0 / static_cast<double>(split);
      if (split > 1 && k * per_split < kMinSplitKDepth) continue;
      const double waves = std::ceil(tiles * static_cast<double>(split) / d.sm_count);
      const double tile_flops = 2.0 * static_cast<double>(t.m * t.n) * k * per_split * dequant;
      const double s = waves * tile_flops / (per_sm * t.efficiency) + (split > 1 ? kSplitReduceS : 0.0);
      best = std::min(best, s);
      if (best <= enough) return best;
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
                                        groups, d, g.dequant_factor, memory);
  return std::max(memory, compute) + d.floor_s;
}

}  // namespace kvsim
