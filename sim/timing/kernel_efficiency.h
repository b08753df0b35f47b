// How close kernels come to a GPU's datasheet peaks, and what a step costs besides kernels. The
// defaults are physical figures that hold across current NVIDIA parts (a large cuBLAS GEMM sustains
// about three quarters of the dense tensor peak; a weight-streaming GEMV about 80% of HBM
// bandwidth; the shortest GEMM kernel takes a few microseconds); `kvsim calibrate` fits them to
// measured kernel timings and benchmark runs of one GPU and writes them to a calibration file
// (calibration.h) that --calibration reads.
#ifndef KVSIM_SIM_KERNEL_EFFICIENCY_H_
#define KVSIM_SIM_KERNEL_EFFICIENCY_H_

namespace kvsim {

struct KernelEfficiency {
  // Dense GEMMs (gemm_time.h).
  double gemm_compute = 0.75;        // share of the dense tensor peak a large GEMM sustains
  double gemm_memory = 0.80;         // share of HBM bandwidth a weight-streaming GEMM sustains
  double gemm_floor_us = 5.0;        // one GEMM kernel's fixed cost (launch-to-finish of one small wave)
  // Attention: FlashAttention prefill is compute bound, paged decode reads the KV cache.
  double attention_compute = 0.55;   // share of the 16-bit tensor peak (FlashAttention-2 forward: 50-70% on A100)
  // Paged decode reads each sequence's K/V at up to 93% of HBM bandwidth, less for short contexts: a
  // fixed cost per sequence, layer and KV head, written as the tokens whose reads would take as long.
  // FlashInfer's batch-decode measurements on H100 SXM (batch 64; flashinfer.ai/2024/02/02/
  // introduce-flashinfer.html, Figures 6 and 9) follow util = 0.93·L/(L + L0): L0 ≈ 57 tokens with one
  // query head per KV head (41% at 32 tokens, 64% at 128, 83% at 512, 88% at 1k) and ≈ 550 with a
  // group of query heads per KV head, decoded on tensor cores (47% at 512, 60% at 1k, 82% at 4k).
  double attention_memory = 0.93;             // share of HBM bandwidth while streaming long K/V
  double attention_seq_tokens = 57;           // L0, one query head per KV head
  double attention_seq_tokens_grouped = 550;  // L0, grouped-query (and MLA's shared latent) decode
  // Norms, RoPE, activation, residual adds, embedding, sampling: memory-bound elementwise kernels.
  double elementwise_memory = 0.60;
  double kernel_floor_us = 3.0;      // a non-GEMM kernel's fixed cost
  // Host side.
  double launch_us = 4.0;            // CPU cost of launching one kernel without CUDA graphs
  double graph_launch_us = 20.0;     // replaying one CUDA graph
  double step_overhead_ms = 0.3;     // scheduling, input preparation and output handling per step
  // Client side (what a benchmark client adds to the server's time to first token).
  double client_ttft_ms = 2.0;       // HTTP request, API-server handling, first SSE chunk
  double tokenize_us_per_token = 2.2; // prompt tokenization (~450k tokens/s on one CPU core)
};

// Visits every field as (name, value): the one list calibration files, reports and the fit use.
template <typename E, typename F>
void ForEachEfficiency(E& e, F&& f) {
  f("gemm_compute", e.gemm_compute);
  f("gemm_memory", e.gemm_memory);
  f("gemm_floor_us", e.gemm_floor_us);
  f("attention_compute", e.attention_compute);
  f("attention_memory", e.attention_memory);
  f("attention_seq_tokens", e.attention_seq_tokens);
  f("attention_seq_tokens_grouped", e.attention_seq_tokens_grouped);
  f("elementwise_memory", e.elementwise_memory);
  f("kernel_floor_us", e.kernel_floor_us);
  f("launch_us", e.launch_us);
  f("graph_launch_us", e.graph_launch_us);
  f("step_overhead_ms", e.step_overhead_ms);
  f("client_ttft_ms", e.client_ttft_ms);
  f("tokenize_us_per_token", e.tokenize_us_per_token);
}

}  // namespace kvsim

#endif  // KVSIM_SIM_KERNEL_EFFICIENCY_H_
