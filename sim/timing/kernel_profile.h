// Measured per-operator GPU timings in the profile format of Microsoft's Vidur simulator
// (data/profiling/compute/<gpu>/<model>/mlp.csv): one row per (token count, TP size) with the
// shapes of one transformer block's TP shard and, for each operator, the median of its CUDA kernel
// times in milliseconds. kvsim reads the shapes from the row, so a profile of any Llama-style
// model calibrates the GEMM and elementwise efficiencies without a config.json.
#ifndef KVSIM_SIM_KERNEL_PROFILE_H_
#define KVSIM_SIM_KERNEL_PROFILE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace kvsim {

struct KernelProfileRow {
  int64_t line = 0;
  int64_t tokens = 0;          // the GEMMs' M
  int64_t tp = 1;
  int64_t heads = 0, kv_heads = 0, hidden = 0, ffn = 0;
  bool gated = true;
  // Median kernel time per operator and layer, seconds.
  double qkv_s = 0, o_s = 0, up_s = 0, down_s = 0;      // attn_pre_proj, attn_post_proj, mlp_up_proj, mlp_down_proj
  double norm_s = 0, rope_s = 0, act_s = 0, add_s = 0;  // input_layernorm, attn_rope, mlp_act, add

  double linear_s() const { return qkv_s + o_s + up_s + down_s; }
};

// Reads a Vidur mlp.csv profile. Throws kvsim::Error naming the file, line and column for a
// missing column or a cell that is not a positive number.
std::vector<KernelProfileRow> ReadKernelProfile(const std::string& path);

}  // namespace kvsim

#endif  // KVSIM_SIM_KERNEL_PROFILE_H_
