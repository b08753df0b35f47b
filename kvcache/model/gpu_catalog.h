// GPU presets from data/gpus.csv: datasheet figures plus the memory CUDA reports (what vLLM's
// total_gpu_memory is), looked up by short id, the name nvidia-smi / torch print, or an alias.
#ifndef KVSIM_KVCACHE_MODEL_GPU_CATALOG_H_
#define KVSIM_KVCACHE_MODEL_GPU_CATALOG_H_

#include <string>
#include <vector>

#include "kvcache/base/enum_names.h"
#include "kvcache/model/numeric_format.h"

namespace kvsim {

// How the GPUs of a tensor-parallel group are connected: it decides which communication buffers
// (NCCL, custom all-reduce) vLLM allocates outside PyTorch, and so the KV budget with TP > 1.
enum class Interconnect {
  kNvls,    // NVSwitch with NVLink SHARP (H100/H200/B200 SXM): NCCL adds NVLS buffers
  kNvlink,  // NVLink without NVLS (A100/V100 SXM, H100 NVL bridge pairs)
  kPcie,    // PCIe only (L4, L40S, A10, GeForce, RTX PRO)
  kXgmi,    // AMD Infinity Fabric (ROCm, RCCL)
};
template <>
struct EnumNames<Interconnect> {
  static constexpr EnumEntry<Interconnect> kEntries[] = {
      {Interconnect::kNvls, "nvls"}, {Interconnect::kNvlink, "nvlink"}, {Interconnect::kPcie, "pcie"}, {Interconnect::kXgmi, "xgmi"}};
};
// For a GPU outside the table, from its marketing name ("... PCIe", "GeForce", "H100", "MI300X").
Interconnect GuessInterconnect(const std::string& gpu_name);

// Bounds of one GPU's figures, from a table row or an override flag: far above any GPU made (the
// largest today hold a few hundred GiB at tens of TB/s), low enough that byte and time figures
// derived from them stay finite and exact.
inline constexpr double kMaxGpuMemoryGib = 100000;
inline constexpr double kMaxGpuBandwidthBytesPerS = 1e15;  // 1,000 TB/s
// The bound --gpu-tflops has: a dense tensor peak past it makes every step time vanish.
inline constexpr double kMaxGpuTflops = 1e7;

struct GpuSpec {
  std::string id;                 // short id, e.g. "h100"
  std::string name;               // e.g. "NVIDIA H100 80GB SXM5"
  std::vector<std::string> aliases;
  double marketed_gb = 0;         // as sold
  double cuda_total_gib = 0;      // torch.cuda total_memory, GiB
  double mem_bandwidth_bytes_per_s = 0;  // HBM bandwidth; the table gives TB/s (10^12 B/s)
  double bf16_dense_tflops = 0;   // dense tensor peaks, 10^12 FLOP/s; 0 when the GPU has none
  double fp16_dense_tflops = 0;   // (T4 and V100 have fp16 but no bf16; GeForce figures accumulate in fp32)
  double fp8_dense_tflops = 0;
  double int8_dense_tops = 0;
  int sm_count = 0;               // streaming multiprocessors (AMD: compute units); 0: unknown
  Interconnect interconnect = Interconnect::kPcie;
  int pcie_gen = 0;               // 0: unknown, or a host link other than PCIe (GB200's NVLink-C2C)
  double host_link_bytes_per_s = 0;  // GPU <-> host memory, one direction (datasheet); 0: unknown
  std::string generation;         // architecture: ampere, ada, hopper, blackwell, ... ("" unknown)
  // Optional columns for expert-parallel and low-bit timing (0: unknown / none).
  double fp4_dense_tflops = 0;    // FP4 tensor peak (Blackwell), dense
  double nvlink_bytes_per_s = 0;  // NVLink per GPU and direction (half the bidirectional datasheet figure)
  int nvlink_domain_gpus = 0;     // GPUs one NVLink domain joins (8 per HGX board, 72 per NVL72 rack)
  double nic_bytes_per_s = 0;     // the RDMA NIC per GPU in the reference system, line rate
};

// The CUDA compute capability as vLLM compares it (major x 10 + minor, the lowest of the generation:
// volta 70, turing 75, ampere 80, ada 89, hopper 90, blackwell 100; ROCm's cdna3 94, cdna4 95); 0 when
// the table names no generation.
int ComputeCapability(const GpuSpec& gpu);

// The dense tensor peak (FLOP/s) for matrix multiplies in `format`: bf16 falls back to fp16 on
// GPUs without bf16 (vLLM runs such models in fp16 there), fp16 to bf16 when only that is listed.
// 0 when the GPU has no figure for it.
double DensePeakFlops(const GpuSpec& gpu, NumericFormat format);

class GpuCatalog {
 public:
  // Reads `path` (columns: id,name,aliases,marketed_gb,cuda_total_gib,mem_bandwidth_TB_per_s,
  // bf16_dense_tflops,fp8_dense_tflops,int8_dense_tops,fp16_dense_tflops,sm_count,interconnect,source, and optionally
  // pcie_gen,host_link_GB_per_s,generation,fp4_dense_tflops,nvlink_GB_per_s,nvlink_domain_gpus,nic_Gb_per_s;
  // empty cells: not known). Throws kvsim::Error with file, line and column on malformed rows.
  static GpuCatalog Load(const std::string& path);

  // Adds `other`'s GPUs in front of this catalog's, so they win lookups (--gpu-file).
  void Prepend(const GpuCatalog& other);

  const std::vector<GpuSpec>& gpus() const { return gpus_; }

  // Case-insensitive match on id, name or alias; a trailing parenthetical ("(79.18 GiB)") is
  // ignored. Throws kvsim::Error listing the closest names when nothing matches.
  const GpuSpec& Find(const std::string& query) const;
  const GpuSpec* TryFind(const std::string& query) const;

 private:
  std::vector<GpuSpec> gpus_;
};

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_MODEL_GPU_CATALOG_H_
