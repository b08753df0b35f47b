#include "sim/run/lora_setup.h"

#include <cmath>

#include "kvcache/base/error.h"
#include "kvcache/budget/serving_engine.h"
#include "kvcache/model/gpu_catalog.h"
#include "sim/timing/step_model.h"

namespace kvsim {
namespace {

bool DecoderModule(const std::string& module) { return module != "embed_tokens" && module != "lm_head"; }

int64_t TransferNs(double bytes, double bytes_per_s) { return std::llround(bytes / bytes_per_s * 1e9); }

// The punica kernels this deployment's vLLM runs: the per-slice sgmv/bgmv wrapper up to 0.7 and on
// the V0 engine, the adapter-grouped lora_shrink/lora_expand after (lora_kernels.h).
LoraKernelGrid KernelGrid(const Deployment& d) {
  const VllmVersion v = ParseVllmVersion(d.config.vllm_version);
  return v.v0_engine || v.minor <= 7 ? LoraKernelGrid::kPerSequence : LoraKernelGrid::kPerAdapterTile;
}

// The host side's figures (lora_host.h) for this deployment's vLLM release and scheduling.
LoraHostCosts HostCosts(const Deployment& d, const ReplayOptions& r, const StepModelOptions& timer, double eager_launch_s) {
  LoraHostCosts c;
  c.torch_launch_s = timer.efficiency.launch_us * 1e-6;
  // vLLM <= 0.7: the per-slice sgmv/bgmv wrapper on Triton 3.1 (torch 2.5), 18 us a launch after
  // triton-lang/triton#3648; later releases: one launch for all slices, about 11 us a launch
  // (meta-pytorch/tritonbench#1002, 2026).
  c.per_slice_kernels = KernelGrid(d) == LoraKernelGrid::kPerSequence;
  c.triton_launch_s = c.per_slice_kernels ? 18e-6 : 11e-6;
  c.eager = timer.enforce_eager;
  c.prefill_from_cpu = r.scheduler == SchedulerKind::kVllmV0;
  c.max_graph_sequences = StepModel::kMaxGraphSequences;
  c.base_launch_s = eager_launch_s;
  c.base_exposed_host_s = timer.overlap_host ? 0.0 : timer.efficiency.step_overhead_ms * 1e-3;
  return c;
}

}  // namespace

void MakeLoraRun(const Deployment& d, const ReplayOptions& r, const CapacityResult& cap, const StepModelOptions& timer,
                 double eager_launch_s, LoraRun& out) {
  const LoraSettings& l = d.config.lora;
  if (!l.enabled) {
    if (r.adapters > 0 || !r.reader.adapter_column.empty())
      throw Error("--adapters/--adapter-column: need --enable-lora (without it every request runs on the base model)");
    return;
  }
  const double host_link = d.gpu.host_link_bytes_per_s;
  if (!(host_link > 0))
    throw Error("--enable-lora: the GPU table has no host link figure for " + d.gpu.id +
                " (host_link_GB_per_s), which adapter loads cross; give a --gpu-file row with it");
  const LoraMemory& m = cap.lora;
  double slot_bytes = 0;  // one slot's share of the decoder modules' stacked A and B on this GPU
  for (const LoraModuleBytes& mod : m.modules)
    if (DecoderModule(mod.module)) slot_bytes += (mod.a_bytes + mod.b_bytes) / static_cast<double>(l.max_loras);
  const double disk = r.adapter_disk_read_gbps * 1e9;
  out.options.max_loras = l.max_loras;
  out.options.max_cpu_loras = l.cpu_loras();
  out.options.gpu_load_ns = TransferNs(slot_bytes, host_link);
  out.options.disk_load_ns = TransferNs(m.host_bytes_per_adapter, disk);
  if (timer.fixed_step_ms <= 0) {
    LoraDevice dev;
    dev.peak_flops = DensePeakFlops(d.gpu, cap.compute_dtype == NumericFormat::kFloat32 ? NumericFormat::kFloat16 : cap.compute_dtype);
    dev.hbm_bytes_per_s = d.gpu.mem_bandwidth_bytes_per_s;
    dev.compute_efficiency = timer.efficiency.gemm_compute;
    dev.memory_efficiency = timer.efficiency.gemm_memory;
    dev.floor_s = timer.efficiency.kernel_floor_us * 1e-6;
    dev.sm_count = d.gpu.sm_count;
    out.kernels.emplace(m.kernels, dev, BytesPerElement(cap.compute_dtype), m.element_bytes, KernelGrid(d));
    out.options.kernels = &*out.kernels;
    out.host.emplace(m.kernels, HostCosts(d, r, timer, eager_launch_s));
    out.options.host = &*out.host;
  }
  LoraSummary& s = out.summary;
  s.max_loras = l.max_loras;
  s.max_cpu_loras = l.cpu_loras();
  s.max_lora_rank = l.max_lora_rank;
  s.adapter_gpu_mib = std::round(slot_bytes / (1 << 20) * 1e3) / 1e3;
  s.adapter_host_mib = std::round(m.host_bytes_per_adapter / (1 << 20) * 1e3) / 1e3;
  s.host_link_gb_per_s = host_link / 1e9;
  s.disk_read_gb_per_s = r.adapter_disk_read_gbps;
  s.gpu_load_ms = static_cast<double>(out.options.gpu_load_ns) * 1e-6;
  s.disk_load_ms = static_cast<double>(out.options.disk_load_ns) * 1e-6;
}

LoraSummary SummarizeLora(const LoraRun& run, const LoraCounters& c, int64_t requests) {
  LoraSummary s = run.summary;
  s.requests = requests;
  s.gpu_loads = c.gpu_loads;
  s.disk_loads = c.disk_loads;
  s.load_s = static_cast<double>(c.load_ns) * 1e-9;
  s.kernel_s = static_cast<double>(c.kernel_ns) * 1e-9;
  s.host_s = static_cast<double>(c.host_ns) * 1e-9;
  s.lora_steps = c.lora_steps;
  s.max_step_adapters = c.max_step_adapters;
  s.waited_requests = c.waited_requests;
  return s;
}

}  // namespace kvsim
