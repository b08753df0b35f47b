// The all-to-all of expert parallelism: each MoE layer dispatches every token's hidden state to the
// ranks holding its top-k experts and combines their outputs back (DeepEP, pplx-kernels), or, with
// vLLM's gathering backends (naive, allgather_reducescatter; kvcache/budget/all2all_backend.h),
// gathers every rank's tokens on every rank and reduce-scatters the outputs.
//
// Routed backends: one rank's traffic for T tokens is T·c copies of the hidden state (FP8 plus one
// fp32 scale per 128 when the experts run in FP8, DeepEP's FP8 dispatch; the activation type
// otherwise), combined back in the activation type. c is the copies per token: DeepEP's normal
// (high-throughput) kernels send a token once to each rank holding any of its experts (its dispatch
// layout counts tokens per rank, and vLLM reduces a rank's expert outputs before the combine), so c
// is the expected number of distinct ranks among the k experts (ExpectedDestinationRanks); the
// low-latency kernels, pplx and FlashInfer's all2allv keep one slot per (token, expert): c = k.
// Gathering backends: each rank receives the other ranks' T tokens (all-gather, with the router
// logits, E values per token, that vLLM's naive dispatch gathers too) and sends back as much
// (reduce-scatter); vLLM's own "naive" combine all-reduces the whole gathered buffer instead, twice
// the reduce-scatter's bytes (a ring all-reduce is a reduce-scatter and an all-gather).
//
// A copy bound for the rank itself moves nothing; one for a rank in the same
// NVLink domain crosses NVLink; one for another domain crosses the RDMA NIC. With experts spread
// evenly over the EP ranks, of EP ranks and D GPUs per NVLink domain a share 1/EP stays, (min(EP, D) − 1)/EP
// crosses NVLink and the rest RDMA. The two links run concurrently, so the time is the slower link's
// bytes over its achievable rate, plus a per-call latency:
//
//   seconds = latency + max(nvlink bytes / (nvlink × eff), rdma bytes / (nic × eff))
//
// eff = 0.8: DeepEP measures "~160 GB/s NVLink maximum bandwidth" on H800 (400 GB/s NVLink, 200 per
// direction) and "~50 GB/s maximum" on a 400 Gb/s CX7 NIC (legacy README, docs/legacy.md), and its
// kernels reach 153–158 GB/s over that NVLink; the same share is taken of the NIC's line rate.
#ifndef KVSIM_SIM_TIMING_EXPERT_PARALLEL_H_
#define KVSIM_SIM_TIMING_EXPERT_PARALLEL_H_

namespace kvsim {

struct ExpertParallelLinks {
  double nvlink_bytes_per_s = 0;  // per GPU and direction (datasheet); 0: no NVLink (PCIe)
  double nic_bytes_per_s = 0;     // the GPU's RDMA NIC line rate (400 Gb/s CX7: 50e9)
  int domain_gpus = 8;            // GPUs one NVLink domain joins (8 per HGX node, 72 in an NVL72 rack)
  double efficiency = 0.8;        // achievable share of each link's rate (see above)
  double latency_s = 10e-6;       // per call: the small-message latency of the GPU's link
};

// The bytes one rank sends in one dispatch or combine, by link.
struct AllToAllBytes {
  double nvlink = 0, rdma = 0;
  double total() const { return nvlink + rdma; }
};

// One rank's share of `copies` hidden states of `bytes_per_copy` spread evenly over `ranks` ranks.
AllToAllBytes SplitAllToAll(double copies, double bytes_per_copy, int ranks, const ExpertParallelLinks& links);

// Seconds of one dispatch or combine moving `bytes` (SplitAllToAll). REQUIRES: a link with bytes to
// carry has a rate > 0.
double AllToAllSeconds(const AllToAllBytes& bytes, const ExpertParallelLinks& links);

// Bytes per dispatched hidden state of `hidden` elements: FP8 with one fp32 scale per 128 elements
// when `fp8`, else `activation_bytes` per element.
double DispatchBytesPerToken(double hidden, bool fp8, double activation_bytes);

// Expected number of distinct ranks holding a token's `top_k` distinct experts, `experts` spread
// evenly over `ranks` (vLLM's linear placement): ranks × (1 − C(E − E/ranks, k) / C(E, k)).
// REQUIRES: ranks >= 1, experts >= top_k >= 1.
double ExpectedDestinationRanks(double experts, double top_k, int ranks);

}  // namespace kvsim

#endif  // KVSIM_SIM_TIMING_EXPERT_PARALLEL_H_
