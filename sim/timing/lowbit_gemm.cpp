#include "sim/timing/lowbit_gemm.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace kvsim {
namespace {

// Marlin's unpacking: about a tenth of the MMA rate (see the header; Marlin's A10 table).
constexpr double kUnpackFactor = 1.1;

// One FP4 element plus an FP8 scale per 16 (NVFP4's activation layout).
constexpr double kNvfp4ActivationBytes = 0.5 + 1.0 / 16;
// One FP8 element plus an E8M0 scale per 32 (MXFP8).
constexpr double kMxfp8ActivationBytes = 1.0 + 1.0 / 32;

}  // namespace

LowBitGemm ChooseLowBitGemm(QuantMethod method, const GpuSpec& gpu) {
  const double fp4 = gpu.fp4_dense_tflops * 1e12;
  switch (method) {
    case QuantMethod::kNone: return {};
    case QuantMethod::kFp8:
    case QuantMethod::kInt8: {
      const double peak8 = DensePeakFlops(gpu, method == QuantMethod::kFp8 ? NumericFormat::kFp8 : NumericFormat::kInt8);
      if (peak8 > 0) return {LowBitKernel::kW8A8, peak8, 1.0, 1.0, "cutlass w8a8"};
      break;
    }
    case QuantMethod::kMxfp4: {
      const double peak8 = DensePeakFlops(gpu, NumericFormat::kFp8);
      if (fp4 > 0 && peak8 > 0) return {LowBitKernel::kFp4xFp8, peak8, kMxfp8ActivationBytes, 1.0, "mxfp4 x mxfp8"};
      break;
    }
    case QuantMethod::kNvfp4:
      if (fp4 > 0) return {LowBitKernel::kFp4xFp4, fp4, kNvfp4ActivationBytes, 1.0, "nvfp4 w4a4"};
      break;
    case QuantMethod::kGptq:
    case QuantMethod::kAwq:
    case QuantMethod::kInt4Symmetric:
    case QuantMethod::kBitsAndBytes4:
    case QuantMethod::kBitsAndBytes8: break;
  }
  return {LowBitKernel::kWeightOnly, 0.0, 0.0, kUnpackFactor, "marlin"};
}

double KernelRowShare(const LowBitGemm& gemm, int64_t m) {
  if (gemm.kernel != LowBitKernel::kWeightOnly || m >= kGemmMinTileRows) return 1.0;
  constexpr int64_t kMarlinSliceRows = 16;
  const int64_t rows = (std::max<int64_t>(m, 1) + kMarlinSliceRows - 1) / kMarlinSliceRows * kMarlinSliceRows;
  return static_cast<double>(rows) / static_cast<double>(kGemmMinTileRows);
}

MoeKernel ChooseMoeKernel(const LowBitGemm& gemm, const GpuSpec& gpu) {
  switch (gemm.kernel) {
    case LowBitKernel::kNone: return MoeKernel::kTritonFusedMoe;
    case LowBitKernel::kW8A8: return gpu.fp4_dense_tflops > 0 ? MoeKernel::kFlashInferMoe : MoeKernel::kTritonFusedMoe;
    case LowBitKernel::kWeightOnly: return MoeKernel::kMarlinMoe;
    case LowBitKernel::kFp4xFp8:
    case LowBitKernel::kFp4xFp4: return MoeKernel::kFlashInferMoe;
  }
  return MoeKernel::kTritonFusedMoe;
}

const char* MoeKernelName(MoeKernel k) {
  switch (k) {
    case MoeKernel::kTritonFusedMoe: return "triton fused_moe";
    case MoeKernel::kMarlinMoe: return "marlin moe";
    case MoeKernel::kFlashInferMoe: return "flashinfer trtllm moe";
  }
  return "";
}

double MoeBlockRows(MoeKernel k, double tokens, double experts, double rows_per_expert) {
  switch (k) {
    case MoeKernel::kTritonFusedMoe: return tokens <= experts ? 16 : 64;
    case MoeKernel::kMarlinMoe:
      for (double block : {8.0, 16.0, 32.0, 48.0})
        if (rows_per_expert / block < 0.9) return block;
      return 64;
    case MoeKernel::kFlashInferMoe: {
      const double rows = std::max(1.0, std::ceil(rows_per_expert));
      const double pow2 = static_cast<double>(std::bit_ceil(static_cast<unsigned long long>(std::min(rows, 1e9))));
      return std::clamp(pow2, 8.0, 64.0);
    }
  }
  return 64;
}

}  // namespace kvsim
