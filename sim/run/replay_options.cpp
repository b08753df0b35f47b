#include "sim/run/replay_options.h"

#include <filesystem>

#include "kvcache/base/error.h"

namespace kvsim {

void ValidateReplayOptions(ReplayOptions& r, const std::string& data_dir) {
  if (r.trace.empty() && r.synthetic == 0)
    r.trace = (std::filesystem::path(data_dir) / "traces" / "AzureLLMInferenceTrace_conv.csv").string();
  const KernelEfficiency& e = r.timer.efficiency;
  if (!(e.gemm_compute > 0 && e.gemm_compute <= 1 && e.gemm_memory > 0 && e.gemm_memory <= 1))
    throw Error("--compute-efficiency/--memory-efficiency: must be in (0, 1]");
  if (!(e.step_overhead_ms >= 0) || !(r.timer.fixed_step_ms >= 0))
    throw Error("--step-time-ms/--step-overhead-ms: must not be negative");
  if (r.synthetic < 0) throw Error("--synthetic: must not be negative");
  if (r.sample_interval_s < 0) throw Error("--sample-interval: must not be negative");
  if (r.replicas < 1) throw Error("--replicas: must be at least 1 (got " + std::to_string(r.replicas) + ")");
  if (r.max_concurrency < 0)
    throw Error("--max-concurrency: must be a positive number of clients (got " + std::to_string(r.max_concurrency) + ")");
  if (!(r.gpu_hourly_cost >= 0)) throw Error("--gpu-hourly-cost: must be a non-negative USD amount per GPU-hour");
  ValidateBenchDataset(r.dataset);
  if (r.dataset.name && r.synthetic == 0)
    throw Error("--dataset-name: draws the --synthetic requests; give --synthetic N (vllm bench serve's --num-prompts)");
  if (r.dataset.name && r.prefix_overlay.shared_prompts > 0)
    throw Error("--shared-prefix: the --dataset-name dataset states its own prompts; give its prefix flags instead");
  if (r.offload.enabled()) {
    // A lower tier holds prompt chunks named by prefix keys, loaded into paged blocks while vLLM v1's
    // scheduler holds the request back.
    if (r.allocator != AllocatorKind::kPaged) throw Error("--kv-offload: needs --allocator paged (tiers hold paged blocks)");
    if (r.scheduler != SchedulerKind::kVllmV1) throw Error("--kv-offload: needs --scheduler vllm (v1's connector API)");
  }
}

double GpuHourlyCost(const ReplayOptions& r, const std::string& gpu_id) {
  if (r.gpu_hourly_costs.empty()) return r.gpu_hourly_cost;
  auto it = r.gpu_hourly_costs.find(gpu_id);
  if (it == r.gpu_hourly_costs.end()) throw Error("--gpu-hourly-cost: no price for GPU '" + gpu_id + "' (give " + gpu_id + "=USD)");
  return it->second;
}

bool SameTraceInput(const ReplayOptions& a, const ReplayOptions& b) {
  return a.trace == b.trace && a.trace_format == b.trace_format && a.reader.path == b.reader.path &&
         a.reader.model_filter == b.reader.model_filter && a.reader.skip_bad_rows == b.reader.skip_bad_rows &&
         a.reader.arrival_column == b.reader.arrival_column && a.reader.prompt_column == b.reader.prompt_column &&
         a.reader.output_column == b.reader.output_column && a.reader.time_unit == b.reader.time_unit &&
         a.reader.delimiter == b.reader.delimiter &&
         a.synthetic == b.synthetic && a.dataset == b.dataset && a.arrival == b.arrival && a.rate == b.rate && a.cv == b.cv &&
         a.prompt_len == b.prompt_len && a.output_len == b.output_len && a.seed == b.seed &&
         a.window.max_requests == b.window.max_requests && a.window.start_s == b.window.start_s &&
         a.window.duration_s == b.window.duration_s && a.window.repeat == b.window.repeat &&
         a.prefix_overlay == b.prefix_overlay &&
         a.reader.adapter_column == b.reader.adapter_column && a.adapters == b.adapters &&
         a.adapter_popularity == b.adapter_popularity;
}

}  // namespace kvsim
