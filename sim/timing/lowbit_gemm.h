// Which kernel runs a quantized checkpoint's GEMMs on a GPU, and at what rate: the choice vLLM makes
// per format and GPU generation, reduced to what the GEMM timing (gemm_time.h) needs.
//
//   W8A8 (FP8 per-tensor/channel/block scales, INT8)   CUTLASS scaled_mm at the GPU's 8-bit peak, 8-bit
//       activations (vllm/model_executor/layers/quantization/utils/w8a8_utils.py); a GPU without
//       8-bit tensor cores serves FP8 weights with Marlin (fp8_marlin), as below.
//   W4A16 (GPTQ, AWQ, compressed-tensors int4), bitsandbytes, MXFP4/NVFP4 without FP4 tensor cores
//       Marlin-family weight-only kernels (Machete on Hopper): packed weights streamed at their stored
//       size and unpacked in registers before a 16-bit MMA. Marlin's own benchmark (IST-DASLab/marlin
//       README, A10, group 128) stays at the ideal 3.87× up to batch 32 and falls to ~1.55× at 128:
//       the unpacking costs about a tenth of the MMA rate once compute bound.
//   MXFP4 on Blackwell   FlashInfer / TRT-LLM MXFP4 × MXFP8 kernels (gpt-oss's default there): FP4
//       weights, activations quantized to FP8, tcgen05 block-scaled MMA at the FP8 rate (mixed FP4 × FP8
//       operands run at the FP8 rate; NVIDIA Blackwell architecture technical brief).
//   NVFP4 on Blackwell   CUTLASS / FlashInfer W4A4 at the FP4 peak, activations quantized to FP4 with an
//       FP8 scale per 16 elements.
// Blackwell is recognised by its FP4 peak in the GPU table (fp4_dense_tflops).
#ifndef KVSIM_SIM_TIMING_LOWBIT_GEMM_H_
#define KVSIM_SIM_TIMING_LOWBIT_GEMM_H_

#include "kvcache/model/gpu_catalog.h"
#include "kvcache/model/quantization.h"
#include "sim/timing/gemm_time.h"

namespace kvsim {

enum class LowBitKernel {
  kNone,        // unquantized: the compute dtype's peak
  kW8A8,        // 8-bit weights and activations at the 8-bit peak
  kWeightOnly,  // Marlin / Machete: unpack, then a 16-bit MMA
  kFp4xFp8,     // Blackwell MXFP4 weights × FP8 activations at the FP8 peak
  kFp4xFp4,     // Blackwell NVFP4 W4A4 at the FP4 peak
};

struct LowBitGemm {
  LowBitKernel kernel = LowBitKernel::kNone;
  double peak_flops = 0;        // the MMA's dense peak; 0 for kNone (the caller's 16-bit one)
  double activation_bytes = 0;  // per activation element read and written; 0: the compute dtype's
  double dequant_factor = 1.0;  // MMA work per useful FLOP (weight-only unpacking)
  const char* name = "";        // for reports: "cutlass w8a8", "marlin", ...
};

// The kernel vLLM runs the quantized GEMMs of `method` with on `gpu`.
LowBitGemm ChooseLowBitGemm(QuantMethod method, const GpuSpec& gpu);

// The MMA work of an m-row GEMM on `gemm`'s kernel, as a share of the work the tile model
// (gemm_time.h) charges, which rounds m up to its smallest tile of kGemmMinTileRows rows. Marlin
// computes m in 16-row slices (thread_m_blocks of 16 rows, up to 64 per pass: IST-DASLab/marlin
// marlin_cuda_kernel.cu), so a weight-only GEMM of a few rows does a fraction of a 64-row tile's work:
// what keeps its small batches weight-streaming bound (Marlin's ideal 3.87x up to batch 32). 1 for
// every other kernel and from 64 rows on.
double KernelRowShare(const LowBitGemm& gemm, int64_t m);

// The fused-MoE kernel for the routed experts, and the M block it pads each expert's rows to.
enum class MoeKernel {
  kTritonFusedMoe,  // vllm/model_executor/layers/fused_moe/fused_moe.py (unquantized, FP8, INT8)
  kMarlinMoe,       // fused_marlin_moe.py (W4A16, MXFP4/NVFP4/FP8 without native tensor cores)
  kFlashInferMoe,   // FlashInfer TRT-LLM MoE on Blackwell (FP8, MXFP4, NVFP4)
};
MoeKernel ChooseMoeKernel(const LowBitGemm& gemm, const GpuSpec& gpu);
const char* MoeKernelName(MoeKernel k);

// The rows per M block the kernel pads each expert to, for `rows_per_expert` = T·k / E on average
// over `experts` experts of a step of `tokens` tokens:
//   Triton fused_moe: 16 while T <= E, else 64 (get_default_config);
//   Marlin MoE: the first of 8, 16, 32, 48 the mean rows fill to less than 90%, else 64
//     (fused_marlin_moe.py's block_size_m loop);
//   FlashInfer TRT-LLM: the mean rows rounded up to a power of two, within 8..64 (tile_tokens_dim).
double MoeBlockRows(MoeKernel k, double tokens, double experts, double rows_per_expert);

}  // namespace kvsim

#endif  // KVSIM_SIM_TIMING_LOWBIT_GEMM_H_
