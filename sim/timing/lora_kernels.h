// The time vLLM's punica kernels add to a step that runs requests on LoRA adapters (the v0.11 line;
// the early return read on main at 00bd1493:
// lora/punica_wrapper/punica_gpu.py add_lora_linear -> lora/ops/triton_ops/lora_shrink_op.py and
// lora_expand_op.py). For every wrapped module of every layer (qkv, o, gate_up, down; the embedding
// and lm_head), two launches:
//   shrink   x [T x in] · A^T of each slice -> fp32 buffer [slices x T x rank]
//   expand   buffer · B^T of each slice, added into the module's output [T x out]
// T is the tokens of requests on an adapter (lm_head: their sampled rows): the kernels' grid covers
// the whole batch for each active adapter, but a block only computes its own adapter's tokens.
// When no request of the step has an adapter, the kernels return before launching
// (no_lora_flag_cpu), so such a step costs nothing here. The shrink's buffer is first zeroed for
// the whole batch, by a fill kernel of its own. Each active adapter's A and B are read once per
// launch, at max_lora_rank (the stacked buffers' width). At small rank the kernels are memory
// bound: each is timed as the slowest of its bytes over HBM (gemm_memory of the bandwidth), its
// FLOPs at gemm_compute of the dense peak and its grid's CTAs on the SMs (lora_grid.h: at small
// rank the many short CTAs, not the bytes, can set the time), plus one non-GEMM kernel floor
// (kernel_efficiency.h), as the step model times the small kernels of a layer.
//
// How often the adapters' weights cross HBM depends on the kernels' grid, which changed in v0.8:
//  - kPerSequence (vLLM <= 0.7 and the V0 engine; lora/ops/triton_ops/bgmv_shrink.py, bgmv_expand.py,
//    bgmv_expand_slice.py, sgmv_shrink.py, sgmv_expand.py of v0.6.x-0.7.x, called per slice by
//    punica_gpu.py's add_shrink/add_expand loop): decode steps run the bgmv kernels, whose grid is
//    (SPLIT_K or SPLIT_N, batches) and whose every program loads its own token's adapter tile, so
//    each sequence reads its adapter's whole A and B; prefill steps run sgmv over one segment per
//    sequence, each segment reading its adapter's weights (once per BLOCK_M rows; counted once here).
//    Each slice is its own shrink and expand launch: 2 * slices floors per module.
//  - kPerAdapterTile (vLLM >= 0.8: lora_shrink_op.py / lora_expand_op.py, tokens sorted by adapter by
//    LoRAKernelMeta): the grid is (M tiles x N tiles [x SPLIT_K], slices, active adapters), a CTA
//    loads its adapter's tile for BLOCK_M of that adapter's tokens, so the weights are read once
//    per adapter per BLOCK_M tokens (default config, utils.py get_lora_op_configs: shrink
//    block_m 32, expand block_m 64). One shrink and one expand launch per module.
#ifndef KVSIM_SIM_TIMING_LORA_KERNELS_H_
#define KVSIM_SIM_TIMING_LORA_KERNELS_H_

#include <cstdint>
#include <vector>

#include "kvcache/budget/lora_memory.h"
#include "sim/timing/lora_grid.h"

namespace kvsim {

// Which punica kernels the serving engine runs (see above).
enum class LoraKernelGrid { kPerSequence, kPerAdapterTile };

struct LoraDevice {
  double peak_flops = 0;         // dense 16-bit tensor peak, FLOP/s
  double hbm_bytes_per_s = 0;
  double compute_efficiency = 0.75;
  double memory_efficiency = 0.80;
  double floor_s = 3e-6;         // one launch
  int sm_count = 0;              // 0: the grid is not timed
  MemoryLatency latency;
};

// What the LoRA kernels of one step work on.
struct LoraStepWork {
  int64_t lora_tokens = 0;   // tokens of requests on an adapter
  int64_t lora_rows = 0;     // of them sampled (lm_head rows): one per sequence on an adapter
  int64_t batch_tokens = 0;  // every token of the step (the zeroed buffer)
  int64_t adapters = 0;      // distinct adapters among them
};

class LoraKernelTimer {
 public:
  // `activation_bytes`: the model's compute element size; `lora_bytes`: the adapters' (--lora-dtype).
  LoraKernelTimer(std::vector<LoraKernelShape> shapes, const LoraDevice& device, double activation_bytes, double lora_bytes,
                  LoraKernelGrid grid = LoraKernelGrid::kPerAdapterTile);
  // BLOCK_M of the v0.8+ kernels' default configuration (lora/ops/triton_ops/utils.py).
  static constexpr int64_t kShrinkBlockM = 32;
  static constexpr int64_t kExpandBlockM = 64;
  // How many times one launch reads an adapter's weights for `tokens` tokens on `adapters` adapters
  // of `sequences` sequences, with `block_m` rows a tile.
  double WeightReads(double tokens, double adapters, double sequences, int64_t block_m) const;
  // The grids of one module's shrink and expand launch (one slice's under the per-slice wrapper).
  struct Grids {
    LoraLaunchGrid shrink, expand;
  };
  Grids LaunchGrids(const LoraKernelShape& k, const LoraStepWork& w) const;
  // Seconds; 0 when no token is on an adapter.
  double Seconds(const LoraStepWork& w) const;
  int64_t Ns(const LoraStepWork& w) const { return NsOf(Seconds(w)); }
  static int64_t NsOf(double seconds);  // Seconds' figure in whole ns (at least 1 when any)
  const std::vector<LoraKernelShape>& shapes() const { return shapes_; }

 private:
  // `launches` kernels share the work, each with its floor and `grid` of CTAs.
  double Kernel(double flops, double bytes, double launches, const LoraLaunchGrid& grid) const;
  std::vector<LoraKernelShape> shapes_;
  LoraDevice d_;
  double act_ = 2, lora_ = 2;
  LoraKernelGrid grid_ = LoraKernelGrid::kPerAdapterTile;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_TIMING_LORA_KERNELS_H_
