#include "sim/timing/lora_kernels.h"

#include <algorithm>
#include <cmath>

namespace kvsim {

namespace {
constexpr double kBufferBytes = 4;  // the shrink's output buffer is fp32

double CeilDiv(double a, double b) { return std::ceil(a / b); }

// The bgmv expand's SPLIT_N: the largest of 64, 32, ..., 2 dividing the slice's width
// (lora/ops/triton_ops/utils.py _check_divisibility, v0.6-0.7).
double SplitN(int64_t n) {
  for (int64_t d = 64; d > 1; d /= 2)
    if (n % d == 0) return static_cast<double>(d);
  return 1;
}
}  // namespace

LoraKernelTimer::LoraKernelTimer(std::vector<LoraKernelShape> shapes, const LoraDevice& device, double activation_bytes,
                                 double lora_bytes, LoraKernelGrid grid)
    : shapes_(std::move(shapes)), d_(device), act_(activation_bytes), lora_(lora_bytes), grid_(grid) {}

double LoraKernelTimer::WeightReads(double tokens, double adapters, double sequences, int64_t block_m) const {
  if (grid_ == LoraKernelGrid::kPerSequence) return sequences;
  // sum over adapters of ceil(tokens_a / block_m): only the totals are known, so the fewest tiles
  // they allow (every adapter at least one, the tokens packed into full tiles).
  return std::max(adapters, std::ceil(tokens / static_cast<double>(block_m)));
}

double LoraKernelTimer::Kernel(double flops, double bytes, double launches, const LoraLaunchGrid& grid) const {
  const double compute = flops / (d_.peak_flops * d_.compute_efficiency);
  const double memory = bytes / (d_.hbm_bytes_per_s * d_.memory_efficiency);
  const double ctas = launches * GridSeconds(grid, d_.sm_count, d_.latency);
  return std::max({compute, memory, ctas}) + launches * d_.floor_s;
}

LoraKernelTimer::Grids LoraKernelTimer::LaunchGrids(const LoraKernelShape& k, const LoraStepWork& w) const {
  Grids g;
  if (k.gather) return g;  // the embedding's lookup and one expand over rank-wide rows: no split grid
  // The tokens the launch covers (lm_head: the sampled rows), those on an adapter, and the 32- and
  // 64-row tiles of those tokens (every active adapter at least one).
  const double t = static_cast<double>(k.per_sequence ? w.lora_rows : w.lora_tokens);
  const double m = static_cast<double>(k.per_sequence ? w.lora_rows : w.batch_tokens);
  const double adapters = std::min(static_cast<double>(w.adapters), t);
  const double in = static_cast<double>(k.in), rank = static_cast<double>(k.rank);
  const double slices = static_cast<double>(k.slices);
  const int64_t slice_out = k.out_total / std::max<int64_t>(1, k.slices);
  if (grid_ == LoraKernelGrid::kPerSequence) {
    // The sgmv kernels of prefill steps cut by 32-token tiles and move a whole prompt's
    // activations: their bytes set their time. The bgmv kernels of decode steps (bgmv_shrink.py,
    // bgmv_expand_slice.py, v0.6-0.7; BLOCK_K/BLOCK_N 256, num_warps 8) run per slice launch
    // SPLIT_K x batch and SPLIT_N x batch CTAs; a CTA loads its token's adapter index, then its
    // tiles (its K range in steps of BLOCK_K x SPLIT_K, its N range in steps of BLOCK_N). Every
    // split-K CTA of a token on an adapter ends with the atomic add of its partial sum, those past
    // K too (lora_grid.h).
    if (!k.per_sequence && w.lora_tokens > w.lora_rows) return g;
    constexpr double kSplitK = 64, kBlock = 256;
    const double v0_working = t * std::min(kSplitK, CeilDiv(in, kBlock));
    g.shrink = {kSplitK * m, v0_working, 8, 1, CeilDiv(in, kBlock * kSplitK), kSplitK * t - v0_working, 1};
    const double split_n = SplitN(slice_out);
    g.expand = {split_n * m, split_n * t, 8, 1, CeilDiv(static_cast<double>(slice_out) / split_n, kBlock)};
    return g;
  }
  // lora_shrink_op.py / lora_expand_op.py with utils.py get_lora_op_configs' defaults (v0.11 line;
  // num_warps 4). Shrink: block_m 32, block_n 16, and below 128 tokens block_k 256 and split_k 64,
  // from there block_k 32 and split_k 8; grid split_k x cdiv(M, 32) x cdiv(rank, 16), slices,
  // active adapters. A CTA reads the adapter id, its tile's token indices, then its K range, and
  // adds its partial sum atomically; below 128 tokens 48 of the 64 split-K CTAs of a tile lie past
  // K = 4096 and run all but the loads (lora_grid.h).
  const bool small = m < 128;
  const double split_k = small ? 64 : 8, block_k = small ? 256 : 32;
  const double n_tiles = CeilDiv(rank, 16);
  const double m32 = std::max(adapters, CeilDiv(t, 32));
  const double tiles = m32 * n_tiles * slices;
  const double working = std::min(split_k, CeilDiv(in, block_k)) * tiles;
  g.shrink = {split_k * CeilDiv(m, 32) * n_tiles * slices * adapters, working, 4, 2, CeilDiv(in, block_k * split_k),
              split_k * tiles - working, 1};
  // Expand: block_m 64, block_n 64 over several slices and 128 over one, block_k 32; grid
  // cdiv(M, 64) x cdiv(N, block_n), slices, active adapters; a CTA loads its input rows and B tile,
  // then the output tile it adds to. N is the widest slice's (taken here as their mean).
  const double block_n = k.slices > 1 ? 64 : 128;
  const double n_blocks = CeilDiv(static_cast<double>(slice_out), block_n);
  const double m64 = std::max(adapters, CeilDiv(t, 64));
  g.expand = {CeilDiv(m, 64) * n_blocks * slices * adapters, m64 * n_blocks * slices, 4, 2, CeilDiv(rank, 32) + 1};
  return g;
}

double LoraKernelTimer::Seconds(const LoraStepWork& w) const {
  if (w.lora_tokens <= 0) return 0;
  double seconds = 0;
  for (const LoraKernelShape& k : shapes_) {
    const double t = static_cast<double>(k.per_sequence ? w.lora_rows : w.lora_tokens);
    if (t <= 0) continue;
    const double all = static_cast<double>(k.per_sequence ? w.lora_rows : w.batch_tokens);
    const double adapters = std::min(static_cast<double>(w.adapters), t);
    // Sequences on an adapter in this module's rows: lm_head's rows are one per sequence already.
    const double sequences = std::min(static_cast<double>(w.lora_rows), t);
    const double a_reads = WeightReads(t, adapters, sequences, kShrinkBlockM);
    const double b_reads = WeightReads(t, adapters, sequences, kExpandBlockM);
    // The <= 0.7 wrapper launches a shrink and an expand per slice; each slice reads its share.
    const double launches = grid_ == LoraKernelGrid::kPerSequence && !k.gather ? static_cast<double>(k.slices) : 1.0;
    const double slices = static_cast<double>(k.slices), rank = static_cast<double>(k.rank);
    const double a = static_cast<double>(k.a_elements), b = static_cast<double>(k.b_elements);
    const Grids grids = LaunchGrids(k, w);
    double shrink = 0;
    if (k.gather) {
      // The embedding's A rows are looked up by token id: T rows of rank elements, no product.
      shrink = Kernel(0, t * rank * lora_ + t * rank * kBufferBytes, 1, grids.shrink);
    } else {
      const double bytes = slices * t * static_cast<double>(k.in) * act_ + a_reads * a * lora_ +
                           slices * all * rank * kBufferBytes;
      shrink = Kernel(2 * t * a, bytes, launches, grids.shrink);
    }
    const double expand_bytes =
        slices * t * rank * kBufferBytes + b_reads * b * lora_ + 2 * t * static_cast<double>(k.out_total) * act_;
    const double expand = Kernel(2 * t * b, expand_bytes, launches, grids.expand);
    // The shrink's fp32 buffer is zeroed by a kernel of its own before the shrink runs (v0.8+:
    // output_tensor.zero_() in lora_shrink_op.py; up to 0.7: a torch.zeros buffer per slice): one
    // more kernel floor per launch pair; its bytes are the shrink's buffer bytes above.
    const double fills = k.gather ? 0.0 : launches;
    seconds += static_cast<double>(k.layers) * (shrink + expand + fills * d_.floor_s);
  }
  return seconds;
}

int64_t LoraKernelTimer::NsOf(double s) { return s > 0 ? std::max<int64_t>(1, std::llround(s * 1e9)) : 0; }

}  // namespace kvsim
