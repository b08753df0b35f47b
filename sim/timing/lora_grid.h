// The grid of one punica kernel launch, and the time its CTAs need however few bytes they move.
//
// vLLM's LoRA kernels cut the work finely: the V0 engine's bgmv shrink runs SPLIT_K = 64 CTAs per
// token and slice, its expand SPLIT_N (up to 64) per token and slice; the v0.8+ lora_shrink runs
// SPLIT_K (64 below a batch of 128 tokens, 8 from there) CTAs per 32-token tile and slice, for every
// active adapter, over the whole batch. Each CTA is a short chain of dependent memory accesses
// (look up which adapter its rows use, load its tile, add into the output), so at small rank a
// launch is bound by how many such chains the SMs can hold at once, not by its bytes:
//
//   time = max(one CTA's chain, sum over CTAs of their chains / resident CTA slots)
//   slots = SMs × min(32, 64 / warps per CTA)
//
// 64 resident warps and 32 resident blocks per SM are the hardware limits of compute capability
// 8.0 and 9.0 (CUDA C++ Programming Guide, "Technical Specifications per Compute Capability"); a
// kernel whose registers or shared memory allow fewer is slower still, so this is a lower bound.
// CTAs the grid launches for rows that hold nothing (a token without an adapter, a 32-token tile
// past the adapter's tokens) exit after their first lookup. A split-K CTA whose K range lies past K
// does not: the kernels return early only for those rows (bgmv_shrink.py `if lora_index == -1:
// return`; lora_shrink_op.py the adapter id and `cta_m_offset >= lora_m_size`), so it runs its
// lookups, a K loop whose loads are all masked off (no bytes) and the write-back of its zero partial
// sum. A split-K shrink writes back with tl.atomic_add, which Triton issues with acq_rel semantics
// unless told otherwise (bgmv_shrink.py v0.6-0.7 and kernel_utils.py do_shrink_kernel of the
// v0.8+ kernels pass no `sem`): the CTA waits for the L2 round trip before it retires, one more L2
// step at the end of every split-K CTA's chain. Recent releases pass sem="relaxed", which need not
// hold the CTA; the step is kept for them too, at most one L2 latency too many.
// A chain step is a memory latency: an L2 hit for the small index tensors and the atomic, a DRAM
// access for the tiles (the tiles of a token read once; an adapter's tile shared by many tokens may
// hit L2, which the DRAM figure then overstates by about half a step).
#ifndef KVSIM_SIM_TIMING_LORA_GRID_H_
#define KVSIM_SIM_TIMING_LORA_GRID_H_

#include <cstdint>

namespace kvsim {

// Pointer-chasing latencies, seconds. markdewing/AI_kernels latency/README.md (clock cycles):
// GH200 L2 281, main memory 690; V100 221 and 460; B200 295 and 860. GH200's at its 1.98 GHz
// boost clock: 0.142 and 0.348 us (V100's at 1.53 GHz: 0.144 and 0.301 us).
struct MemoryLatency {
  double l2_s = 0.142e-6;
  double dram_s = 0.348e-6;
};

// One launch: `ctas` in all, of which `working_ctas` run the whole chain (`l2_steps` index
// lookups, `dram_steps` tile loads, then `writeback_l2_steps` atomic adds) and `idle_ctas` (split-K
// CTAs past K) the chain without its tile loads; the rest exit after one L2 lookup.
struct LoraLaunchGrid {
  double ctas = 0;
  double working_ctas = 0;
  int warps = 4;          // num_warps of the launch's config
  double l2_steps = 1;
  double dram_steps = 1;
  double idle_ctas = 0;
  double writeback_l2_steps = 0;  // 1 where a split-K partial sum is added atomically
};

// Resident CTA slots per SM for `warps` warps per CTA (the hardware limits above).
int CtaSlotsPerSm(int warps);

// Seconds the launch's CTAs keep the SMs busy; 0 with no SM count (unknown GPU).
double GridSeconds(const LoraLaunchGrid& g, int sm_count, const MemoryLatency& latency);

}  // namespace kvsim

#endif  // KVSIM_SIM_TIMING_LORA_GRID_H_
