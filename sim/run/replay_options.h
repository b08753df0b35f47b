// The replay's settings beyond the deployment: where requests come from, how the trace is shaped,
// which scheduler, allocator and step-time model run, and what is written. Typed; the CLI fills it
// from flags (cli/replay_flags.h), compare and sweep from option sets.
#ifndef KVSIM_SIM_RUN_REPLAY_OPTIONS_H_
#define KVSIM_SIM_RUN_REPLAY_OPTIONS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "kvcache/base/enum_names.h"
#include "kvcache/contiguous_allocator.h"
#include "kvcache/offload/offload_config.h"
#include "kvcache/region_placer.h"
#include "sim/engine/engine_kinds.h"
#include "sim/fleet/router.h"
#include "sim/timing/step_model.h"
#include "workloads/bench_datasets.h"
#include "workloads/prefix_overlay.h"
#include "workloads/synthetic.h"
#include "workloads/trace_readers.h"
#include "workloads/trace_window.h"

namespace kvsim {

struct ReplayOptions {
  // Requests: a trace file (empty: the bundled Azure conversation trace) or a synthetic workload.
  std::string trace;
  std::optional<TraceFormat> trace_format;  // nullopt: detected from the file
  TraceReaderOptions reader;
  int64_t synthetic = 0;                    // > 0: generate this many requests
  ArrivalKind arrival = ArrivalKind::kPoisson;
  double rate = 0;                          // requests/s (synthetic, lengths files)
  double cv = 1.0;                          // gamma arrivals: coefficient of variation of the gaps
  // Closed-loop load (sim/fleet/closed_loop_clients.h): this many clients, each sending its next
  // request when its last one ends (0: open loop, every request sent at its arrival time).
  int64_t max_concurrency = 0;
  std::string prompt_len = "lognormal:1000:0.8", output_len = "lognormal:200:0.8";
  BenchDatasetOptions dataset;  // the --synthetic requests drawn from a benchmark's dataset by name
  uint64_t seed = 1;
  WindowOptions window;
  // Content for prefix caching without block ids (workloads/prefix_overlay.h): --shared-prefix K:LEN,
  // --conversations T:THINK.
  PrefixOverlayOptions prefix_overlay;
  // LoRA adapters drawn per request (workloads/adapter_overlay.h) when the trace has no adapter
  // column: how many, and "uniform" or "zipf:S".
  int64_t adapters = 0;
  std::string adapter_popularity;
  // Where a LoRA checkpoint is read from on a host-cache miss, GB/s: a PCIe 4.0 NVMe drive's
  // sequential read (7.45 GB/s datasheet figure), the checkpoint read at the drive's speed.
  double adapter_disk_read_gbps = 7.45;

  SchedulerKind scheduler = SchedulerKind::kVllmV1;
  bool async_scheduling = true;  // vllm scheduler: EngineOptions::async_scheduling (vLLM's default since v0.14)
  int64_t scheduler_recv_interval = 1;  // --engine sglang: EngineOptions::scheduler_recv_interval
  AllocatorKind allocator = AllocatorKind::kPaged;
  Reservation reservation = Reservation::kMax;      // contiguous
  Placement placement = Placement::kFirstFit;       // contiguous
  StepModelOptions timer;
  Stepping stepping = Stepping::kEvent;
  OffloadConfig offload;         // KV tiers below the GPU (none by default)
  bool exact_quantiles = false;  // latency quantiles from every value instead of the 0.5% sketch
  // --spec-acceptance: one rate, or one per draft position ("0.8,0.6,0.4"); needed with a
  // --speculative-config (speculation.h).
  std::string spec_acceptance;

  // Outputs (the CLI writes them; observers fill the CSVs).
  std::string json_path, timeseries_path, requests_path, report_path;
  double sample_interval_s = 0;  // time series: one row per interval (0: every step)
  bool omit_wall_time = false;
  bool quiet = false;
  double slo_ttft_s = 0, slo_tpot_s = 0;  // per-request goodput thresholds (0: none)

  // Fleet (sim/fleet/event_loop.h): independent replicas of the deployment behind a router. 1: one engine,
  // exactly today's replay; `fleet_report` forces the fleet section for one replica too.
  int64_t replicas = 1;
  RouterKind router = RouterKind::kRoundRobin;
  bool fleet_report = false;
  double gpu_hourly_cost = 0;  // USD per GPU-hour (> 0: the summary gets a cost section)
  std::map<std::string, double> gpu_hourly_costs;  // by GPU id ("a100-80gb=1.8,h100=3.2"), for grids over GPUs
};

// The hourly price of one GPU of `gpu_id` under these options (0: no price given). Throws
// kvsim::Error when a price table lacks the GPU.
double GpuHourlyCost(const ReplayOptions& options, const std::string& gpu_id);

// Checks what the types cannot; fills the default trace from `data_dir`. Throws kvsim::Error
// naming the option.
void ValidateReplayOptions(ReplayOptions& options, const std::string& data_dir);

// True when two runs read the same requests the same way (so one preload can serve both).
bool SameTraceInput(const ReplayOptions& a, const ReplayOptions& b);

}  // namespace kvsim

#endif  // KVSIM_SIM_RUN_REPLAY_OPTIONS_H_
