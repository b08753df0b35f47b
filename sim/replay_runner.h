// One replay, start to finish, without the command line: used by `kvsim replay` and many times
// over by `kvsim compare` and `kvsim sweep`. A caller may preload the trace once and share it
// between runs (read-only), which is how sweeps avoid re-reading and re-parsing it per point.
#ifndef KVSIM_SIM_REPLAY_RUNNER_H_
#define KVSIM_SIM_REPLAY_RUNNER_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "kvcache/capacity_planner.h"
#include "reports/replay_recorder.h"
#include "sim/cli/deployment_options.h"
#include "sim/step_timer.h"
#include "workloads/request_source.h"
#include "workloads/trace_readers.h"
#include "workloads/trace_window.h"

namespace kvsim {

// Replay settings beyond the deployment, under their command-line names.
struct ReplayOptions {
  std::string trace;                 // empty: the bundled Azure conversation trace
  std::string trace_format = "auto";
  TraceReaderOptions reader;
  int64_t synthetic = 0;
  std::string arrival = "poisson";
  double rate = 0, cv = 1.0;
  std::string prompt_len = "lognormal:1000:0.8", output_len = "lognormal:200:0.8";
  uint64_t seed = 1;
  WindowOptions window;
  std::string scheduler = "vllm";
  std::string allocator = "paged";
  std::string reservation = "max", placement = "first-fit";
  StepTimerOptions timer;
  std::string json_path, timeseries_path, requests_path, report_path;
  double sample_interval_s = 0;
  std::string stepping = "event";
  bool omit_wall_time = false;
  bool quiet = false;
  double slo_ttft_s = 0, slo_tpot_s = 0;  // per-request goodput thresholds (0: none)
};

// Registers the replay options (not the deployment ones) on `desc`.
void AddReplayOptions(boost::program_options::options_description& desc, ReplayOptions& options);

// Checks values that Boost cannot; fills the default trace. Throws kvsim::Error.
void ValidateReplayOptions(ReplayOptions& options, const std::string& data_dir);

// A whole trace in memory, for runs that share it.
struct PreloadedTrace {
  std::vector<TraceRequest> requests;
  int64_t skipped_rows = 0;
  std::string description;
};
// Reads the trace (or generates the synthetic workload) the options describe, windowed but not
// rate-scaled: RunReplay applies each run's --rate-scale to a preloaded trace.
std::shared_ptr<const PreloadedTrace> PreloadTrace(const ReplayOptions& options);

struct ReplayResult {
  CapacityResult capacity;
  nlohmann::json summary;
  std::shared_ptr<ReplayRecorder> recorder;  // charts and statistics, after Finish()
};

// `stop` (optional) is polled every step; when it becomes true the replay ends early and the
// summary is marked "partial". Throws kvsim::Error for bad settings or input.
ReplayResult RunReplay(const Deployment& deployment, const ReplayOptions& options,
                       std::shared_ptr<const PreloadedTrace> preloaded = nullptr,
                       const std::function<void(double progress, int64_t now_ns)>& progress = {},
                       const std::atomic<bool>* stop = nullptr);

}  // namespace kvsim

#endif  // KVSIM_SIM_REPLAY_RUNNER_H_
