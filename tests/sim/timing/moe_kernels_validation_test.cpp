// The kernel-level MoE and low-bit development set (data/validation/moe-kernels/points.csv): each
// published measurement against what kvsim's own functions predict for it, with the default
// efficiencies and the GPU table's figures. Nothing here is fitted to the rows; the test prints every
// ratio and requires at least 10 within 0.8-1.25.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "kvcache/base/csv_cells.h"
#include "kvcache/model/gpu_catalog.h"
#include "kvcache/model/model_catalog.h"
#include "kvcache/model/quantization.h"
#include "sim/timing/expert_parallel.h"
#include "sim/timing/gemm_time.h"
#include "sim/timing/kernel_efficiency.h"
#include "sim/timing/link_rates.h"
#include "sim/timing/lowbit_gemm.h"
#include "sim/timing/moe_layer.h"

namespace kvsim {
namespace {

double Number(const std::string& s) { return s.empty() ? 0.0 : std::stod(s); }

// kvsim's prediction for one row; 0 for a kind it does not know.
double Predict(const std::vector<std::string>& header, const std::vector<std::string>& row, const GpuCatalog& gpus) {
  auto col = [&](const char* name) -> const std::string& {
    return row[static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin())];
  };
  const std::string& kind = col("kind");
  const GpuSpec& gpu = gpus.Find(col("gpu"));
  if (kind == "w4a16_speedup") {
    const KernelEfficiency eff;
    const GemmDevice dev{DensePeakFlops(gpu, NumericFormat::kFloat16), gpu.mem_bandwidth_bytes_per_s, gpu.sm_count,
                         eff.gemm_compute, eff.gemm_memory, eff.gemm_floor_us * 1e-6};
    const int64_t m = static_cast<int64_t>(Number(col("tokens"))), n = static_cast<int64_t>(Number(col("n")));
    const int64_t k = static_cast<int64_t>(Number(col("hidden")));
    QuantizationSpec q;  // Marlin's format: symmetric int4, group 128, scales only
    q.method = QuantMethod::kInt4Symmetric;
    q.bits = 4;
    q.group_size = 128;
    const LowBitGemm marlin = ChooseLowBitGemm(q.method, gpu);
    const double w4 =
        GemmSeconds({m, n, k, LinearWeightBytes(q, n, k, 2), 2, marlin.dequant_factor * KernelRowShare(marlin, m)}, dev);
    const double w16 = GemmSeconds({m, n, k, static_cast<double>(n) * static_cast<double>(k) * 2, 2, 1.0}, dev);
    return w16 / w4;
  }
  ExpertParallelLinks links = LinksOf(gpu, LinkBytesPerSecond(gpu.interconnect));
  if (kind == "fused_moe_seconds") {
    // One MoE layer's routed experts on one GPU (no TP, no EP): what vLLM's benchmark_moe.py times
    // is the fused_moe call, whose grouped GEMMs are MoeLayerTimer's experts terms; its routing,
    // align, activation and moe_sum passes are not counted here (a few microseconds each at small
    // batches, under a tenth of the call at 4096 tokens).
    const KernelEfficiency eff;
    const GemmDevice dense{DensePeakFlops(gpu, NumericFormat::kFloat16), gpu.mem_bandwidth_bytes_per_s, gpu.sm_count,
                           eff.gemm_compute, eff.gemm_memory, eff.gemm_floor_us * 1e-6};
    const bool fp8 = col("dtype") == "fp8";
    const LowBitGemm lowbit = fp8 ? ChooseLowBitGemm(QuantMethod::kFp8, gpu) : LowBitGemm{};
    const double weight_bytes = fp8 ? 1.0 : 2.0;
    MoeLayerShape shape;
    shape.layers = 1;
    shape.num_experts = Number(col("experts"));
    shape.top_k = Number(col("top_k"));
    shape.hidden = static_cast<int64_t>(Number(col("hidden")));
    shape.up_n = 2 * static_cast<int64_t>(Number(col("n")));  // gate and up, fused (w1 is E x 2N x K)
    shape.down_k = static_cast<int64_t>(Number(col("n")));
    shape.up_weight_bytes = static_cast<double>(shape.up_n * shape.hidden) * weight_bytes;
    shape.down_weight_bytes = static_cast<double>(shape.down_k * shape.hidden) * weight_bytes;
    shape.quantized = fp8;
    const MoeLayerTimer timer(shape, lowbit, dense, ChooseMoeKernel(lowbit, gpu), links);
    double seconds = 0;
    timer.AddExperts(static_cast<int64_t>(Number(col("tokens"))), nullptr, &seconds);
    return seconds;
  }
  if (!col("domain_gpus").empty()) links.domain_gpus = static_cast<int>(Number(col("domain_gpus")));
  if (!col("nic_Gb_per_s").empty()) links.nic_bytes_per_s = Number(col("nic_Gb_per_s")) * 1e9 / 8;
  const double copies = Number(col("tokens")) * Number(col("top_k"));
  const double bytes = DispatchBytesPerToken(Number(col("hidden")), col("dispatch") == "fp8", 2);
  const int ep = static_cast<int>(Number(col("ep")));
  const AllToAllBytes split = SplitAllToAll(copies, bytes, ep, links);
  const double seconds = AllToAllSeconds(split, links);
  if (kind == "ll_dispatch_seconds" || kind == "ll_combine_seconds") return seconds;
  if (kind == "nvlink_bytes_per_s") return split.nvlink / seconds;
  if (kind == "rdma_bytes_per_s") return split.rdma / seconds;
  if (kind == "logical_bytes_per_s") return copies * bytes / seconds;
  return 0;
}

TEST(MoeKernelsValidationTest, PublishedKernelPointsWithinBand) {
  const GpuCatalog gpus = GpuCatalog::Load(DataDirectory() + "/gpus.csv");
  std::ifstream in(DataDirectory() + "/validation/moe-kernels/points.csv");
  ASSERT_TRUE(in) << "data/validation/moe-kernels/points.csv";
  std::string line;
  std::vector<std::string> header, row;
  ASSERT_TRUE(std::getline(in, line) && SplitCsvLine(line, header));
  int rows = 0, within = 0;
  std::vector<double> ratios;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    ASSERT_TRUE(SplitCsvLine(line, row) && row.size() == header.size()) << line;
    const double predicted = Predict(header, row, gpus);
    ASSERT_GT(predicted, 0) << row[0] << ": unknown kind " << row[1];
    const double measured = std::stod(row[static_cast<size_t>(std::find(header.begin(), header.end(), "measured") - header.begin())]);
    const double ratio = predicted / measured;
    ratios.push_back(ratio);
    ++rows;
    within += ratio >= 0.8 && ratio <= 1.25;
    std::printf("%-44s %-22s measured %-10.4g predicted %-10.4g ratio %.3f%s\n", row[0].c_str(), row[1].c_str(), measured,
                predicted, ratio, ratio >= 0.8 && ratio <= 1.25 ? "" : "  (outside 0.8-1.25)");
  }
  std::sort(ratios.begin(), ratios.end());
  std::printf("%d points, %d within 0.8-1.25, median ratio %.3f\n", rows, within, ratios.empty() ? 0.0 : ratios[ratios.size() / 2]);
  EXPECT_GE(rows, 10);
  EXPECT_GE(within, 10);
}

}  // namespace
}  // namespace kvsim
