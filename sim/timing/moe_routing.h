// How a MoE router spreads a step's tokens over the experts, as the fused-MoE kernels see it.
//
// Each of T tokens picks k distinct experts of E. With no popularity skew (the load-balancing loss
// trains towards it; EPLB replicates the hot experts that remain) an expert receives X ~ Binomial(T, k/E)
// tokens. The kernels do not see the mean load:
//   - vLLM's fused_moe (Triton) and the CUTLASS/Marlin grouped GEMMs sort the tokens by expert and pad
//     each expert's rows to the kernel's M block (moe_align_block_size in
//     vllm/model_executor/layers/fused_moe/fused_moe.py: block 16 while M <= E, else 64 in
//     get_default_config), so an expert with X rows costs ceil(X / block) tiles;
//   - under expert parallelism the ranks meet at the combine, so the step waits for the rank with
//     the most routed rows: the maximum of the ranks' loads, a multinomial of the T·k assignments
//     over the ranks, here taken as independent Poisson(T·k / ranks) counts (Poissonization, the
//     classic balls-into-bins approximation: exact as the ranks grow, and within 1% of the exact
//     multinomial for two ranks and 16 assignments).
// Both expectations are sums over the distributions (no sampling), so they are deterministic.
#ifndef KVSIM_SIM_TIMING_MOE_ROUTING_H_
#define KVSIM_SIM_TIMING_MOE_ROUTING_H_

namespace kvsim {

// The expected number of the E experts that at least one of `tokens` tokens routes to, each token
// picking top_k distinct experts: E·(1 − (1 − k/E)^T). REQUIRES: 0 < top_k <= experts.
double ExpectedTouchedExperts(double experts, double top_k, double tokens);

// The expected padded rows of one expert, E[ceil(X / block)]·block with X ~ Binomial(tokens, p):
// what the grouped kernel computes for it (0 rows: no tile). REQUIRES: 0 <= p <= 1, block >= 1.
double ExpectedPaddedRows(double tokens, double p, double block);

// The M block vLLM's fused_moe takes for `tokens` tokens over `experts` experts (get_default_config).
double FusedMoeBlockRows(double tokens, double experts);

// The expected largest of `bins` loads when `assignments` land on them uniformly: E[max_i N_i] with
// N_i independent Poisson(assignments / bins). Equals the mean for one bin. REQUIRES: bins >= 1.
double ExpectedMaxLoad(double assignments, double bins);

}  // namespace kvsim

#endif  // KVSIM_SIM_TIMING_MOE_ROUTING_H_
