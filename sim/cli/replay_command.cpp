// kvsim replay: a request trace (or a synthetic workload) through a KV allocator under a
// vLLM-style scheduler; memory, concurrency, preemptions, waste and latency.
#include <boost/program_options.hpp>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "kvcache/contiguous_allocator.h"
#include "kvcache/error.h"
#include "kvcache/model_catalog.h"
#include "kvcache/paged_allocator.h"
#include "kvcache/units.h"
#include "reports/atomic_file.h"
#include "reports/capacity_report.h"
#include "reports/replay_recorder.h"
#include "reports/replay_summary.h"
#include "sim/cli/commands.h"
#include "sim/cli/deployment_options.h"
#include "sim/replay_engine.h"
#include "workloads/trace_readers.h"
#include "workloads/trace_window.h"

namespace kvsim {
namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

struct ReplayOptions {
  std::string trace;
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
  std::string json_path, timeseries_path, requests_path;
  double sample_interval_s = 0;
  std::string stepping = "event";
  bool omit_wall_time = false;
  bool quiet = false;
};

std::string DefaultTrace(const std::string& data_dir) {
  return (fs::path(data_dir) / "traces" / "AzureLLMInferenceTrace_conv.csv").string();
}

SourceFactory MakeSourceFactory(const ReplayOptions& r) {
  if (r.synthetic > 0) {
    return [r] {
      return MakeSyntheticSource(r.synthetic, ArrivalGenerator(r.arrival, r.rate, r.cv, r.seed),
                                 LengthSampler(r.prompt_len, "--prompt-len", "num_prefill_tokens"),
                                 LengthSampler(r.output_len, "--output-len", "num_decode_tokens"), r.seed);
    };
  }
  TraceReaderOptions reader = r.reader;
  reader.path = r.trace;
  reader.format = r.trace_format == "auto" ? DetectTraceFormat(r.trace) : ParseTraceFormat(r.trace_format);
  const bool needs_arrivals = reader.format == TraceFormat::kLengths;
  if (needs_arrivals && !(r.rate > 0))
    throw Error("--rate: the lengths file " + r.trace + " has no arrival times; give a rate (requests/s)");
  return [reader, r, needs_arrivals] {
    std::optional<ArrivalGenerator> arrivals;
    if (needs_arrivals) arrivals.emplace(r.arrival, r.rate, r.cv, r.seed);
    return OpenTraceReader(reader, std::move(arrivals));
  };
}

}  // namespace

int RunReplayCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  DeploymentOptions dep;
  ReplayOptions r;
  po::options_description desc(
      "kvsim replay: replay a request trace through a vLLM-style scheduler and KV-cache allocator\n\n"
      "Usage: kvsim replay [--trace FILE] [model/GPU/server flags as kvsim capacity] [options]\n"
      "With no --trace: the bundled Azure LLM inference conversation trace (2023, 19,366 requests).\n\nOptions",
      110, 60);
  desc.add_options()("help,h", "show this help")
      ("trace", po::value(&r.trace), "trace file (default: bundled Azure conversation trace)")
      ("trace-format", po::value(&r.trace_format)->default_value(r.trace_format),
       "auto | azure | burstgpt | vidur | mooncake | csv | lengths")
      ("model-filter", po::value(&r.reader.model_filter), "burstgpt: keep rows of this Model")
      ("skip-bad-rows", po::bool_switch(&r.reader.skip_bad_rows), "count malformed rows as warnings instead of failing")
      ("arrival-column", po::value(&r.reader.arrival_column)->default_value(r.reader.arrival_column), "csv: arrival time column")
      ("prompt-column", po::value(&r.reader.prompt_column)->default_value(r.reader.prompt_column), "csv: prompt tokens column")
      ("output-column", po::value(&r.reader.output_column)->default_value(r.reader.output_column), "csv: output tokens column")
      ("time-unit", po::value(&r.reader.time_unit)->default_value(r.reader.time_unit), "csv: s | ms | us | ns | datetime")
      ("synthetic", po::value(&r.synthetic), "generate N requests instead of reading a trace")
      ("arrival", po::value(&r.arrival)->default_value(r.arrival), "synthetic / lengths arrivals: poisson | gamma")
      ("rate", po::value(&r.rate), "synthetic / lengths arrival rate, requests/s")
      ("cv", po::value(&r.cv)->default_value(r.cv), "gamma arrivals: coefficient of variation of the gaps")
      ("prompt-len", po::value(&r.prompt_len)->default_value(r.prompt_len),
       "synthetic prompt lengths: fixed:N | uniform:A:B | lognormal:MEDIAN:SIGMA | empirical:FILE[:COLUMN]")
      ("output-len", po::value(&r.output_len)->default_value(r.output_len), "synthetic output lengths (same forms)")
      ("seed", po::value(&r.seed)->default_value(r.seed), "seed for every random choice")
      ("max-requests", po::value(&r.window.max_requests), "stop after N requests")
      ("start", po::value(&r.window.start_s), "skip arrivals before this many seconds")
      ("duration", po::value(&r.window.duration_s), "keep this many seconds of arrivals")
      ("rate-scale", po::value(&r.window.rate_scale)->default_value(1.0), "divide arrival times by S (S > 1: more load)")
      ("repeat", po::value(&r.window.repeat)->default_value(1), "tile the trace K times back to back")
      ("scheduler", po::value(&r.scheduler)->default_value(r.scheduler), "vllm (v1) | vllm-v0")
      ("allocator", po::value(&r.allocator)->default_value(r.allocator), "paged | contiguous")
      ("reservation", po::value(&r.reservation)->default_value(r.reservation), "contiguous: max | pow2 | oracle | prompt+max_tokens")
      ("placement", po::value(&r.placement)->default_value(r.placement), "contiguous: first-fit | best-fit | buddy")
      ("step-time-ms", po::value(&r.timer.fixed_step_ms), "fixed step time instead of the roofline model")
      ("compute-efficiency", po::value(&r.timer.compute_efficiency)->default_value(r.timer.compute_efficiency), "roofline: share of peak FLOPs")
      ("memory-efficiency", po::value(&r.timer.memory_efficiency)->default_value(r.timer.memory_efficiency), "roofline: share of peak bandwidth")
      ("step-overhead-ms", po::value(&r.timer.step_overhead_ms)->default_value(r.timer.step_overhead_ms), "roofline: fixed cost per step")
      ("stepping", po::value(&r.stepping)->default_value(r.stepping), "event (skip identical decode steps) | token (every request every step)")
      ("json", po::value(&r.json_path), "write the summary JSON to FILE (- for standard output)")
      ("timeseries", po::value(&r.timeseries_path), "write memory/concurrency over time to FILE.csv")
      ("sample-interval", po::value(&r.sample_interval_s)->default_value(0.0), "time series: one row per S seconds (0: every step)")
      ("requests", po::value(&r.requests_path), "write one CSV row per request to FILE.csv")
      ("omit-wall-time", po::bool_switch(&r.omit_wall_time), "write sim.wall_s as 0 so outputs are byte-identical across runs")
      ("quiet", po::bool_switch(&r.quiet), "no console summary");
  AddDeploymentOptions(desc, dep);
  po::variables_map vm;
  po::store(po::command_line_parser(ExpandShortParallelFlags(args)).options(desc).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    out << desc << "\nExample:\n  kvsim replay --gpu a100-40gb --rate-scale 4 --json out.json\n";
    return 0;
  }
  if (vm.count("no-enable-prefix-caching")) dep.enable_prefix_caching = false;
  const std::string data_dir = DataDirectory();
  if (r.trace.empty() && r.synthetic == 0) r.trace = DefaultTrace(data_dir);
  if (r.stepping != "event" && r.stepping != "token") throw Error("--stepping: '" + r.stepping + "' is not event or token");
  if (r.scheduler != "vllm" && r.scheduler != "vllm-v0") throw Error("--scheduler: '" + r.scheduler + "' is not vllm or vllm-v0");
  if (r.allocator != "paged" && r.allocator != "contiguous") throw Error("--allocator: '" + r.allocator + "' is not paged or contiguous");
  if (r.timer.compute_efficiency <= 0 || r.timer.compute_efficiency > 1 || r.timer.memory_efficiency <= 0 ||
      r.timer.memory_efficiency > 1)
    throw Error("--compute-efficiency/--memory-efficiency: must be in (0, 1]");
  if (r.timer.step_overhead_ms < 0 || r.timer.fixed_step_ms < 0) throw Error("--step-time-ms/--step-overhead-ms: must not be negative");
  if (r.synthetic < 0) throw Error("--synthetic: must not be negative");

  const Deployment d = ResolveDeployment(dep, data_dir);
  const bool trace_has_block_ids =
      r.synthetic == 0 && (r.trace_format == "auto" ? DetectTraceFormat(r.trace) : ParseTraceFormat(r.trace_format)) ==
                              TraceFormat::kMooncake;
  const CapacityResult cap = PlanCapacity(d.model, d.gpu, d.config);
  if (!cap.does_not_fit.empty()) throw Error(cap.does_not_fit);
  const StageCapacity& stage = cap.stages[cap.bottleneck_stage];
  const int64_t block_size = cap.settings.block_size;

  std::unique_ptr<KvAllocator> allocator;
  if (r.allocator == "paged") {
    PagedAllocatorOptions po;
    po.num_blocks = cap.num_gpu_blocks;
    po.block_size = block_size;
    // Prefix keys come from a trace's block ids (Mooncake hash_ids); without them nothing can hit and
    // the pool may hand out any free block.
    po.enable_prefix_caching = dep.enable_prefix_caching && trace_has_block_ids;
    po.groups = stage.layout.groups;
    if (r.scheduler == "vllm-v0") po.watermark_fraction = 0.01;
    if (po.num_blocks < 2) throw Error("the KV pool has fewer than 2 blocks");
    allocator = std::make_unique<PagedAllocator>(po);
  } else {
    ContiguousAllocatorOptions co;
    co.capacity_slots = static_cast<int64_t>(cap.kv_cache_bytes / stage.layout.bytes_per_token);
    co.max_model_len = cap.settings.max_model_len;
    co.reservation = ParseReservation(r.reservation);
    co.placement = ParsePlacement(r.placement);
    allocator = std::make_unique<ContiguousAllocator>(co);
  }

  const SourceFactory factory = MakeSourceFactory(r);
  std::unique_ptr<RequestSource> source = ApplyWindow(factory, r.window);
  const StepTimer timer(d.model, cap, d.gpu, r.timer);
  RecorderOptions ro;
  ro.timeseries_path = r.timeseries_path;
  ro.requests_path = r.requests_path;
  ro.sample_interval_s = r.sample_interval_s;
  ro.num_blocks = r.allocator == "paged" ? cap.num_gpu_blocks : 0;
  ro.block_size = block_size;
  ReplayRecorder recorder(ro);

  EngineOptions eo;
  eo.max_num_seqs = cap.settings.max_num_seqs;
  eo.max_num_batched_tokens = cap.settings.max_num_batched_tokens;
  eo.max_model_len = cap.settings.max_model_len;
  eo.block_size = block_size;
  eo.prefix_caching = dep.enable_prefix_caching && r.allocator == "paged";
  eo.lazy_decode = r.stepping == "event";
  eo.v0_scheduler = r.scheduler == "vllm-v0";
  if (r.allocator != "paged") eo.paged_used_blocks_divisor = block_size;
  ReplayEngine engine(eo, *allocator, timer, recorder, *source);

  const auto t0 = std::chrono::steady_clock::now();
  const EngineCounters counters = engine.Run();
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  recorder.Finish();

  ReplayRunInfo info;
  info.trace = r.synthetic > 0 ? source->Describe() : r.trace;
  info.scheduler = r.scheduler;
  info.allocator = r.allocator == "paged" ? "paged" : allocator->name();
  info.stepping = r.stepping;
  info.wall_s = r.omit_wall_time ? 0.0 : wall_s;
  info.seed = r.seed;
  info.window = r.window;
  info.skipped_rows = source->skipped_rows();
  info.warnings = source->warnings();
  info.step_model = timer.fixed() ? "fixed " + std::to_string(r.timer.fixed_step_ms) + " ms" : "roofline";
  const nlohmann::json summary = BuildReplaySummary(cap, recorder, counters, info, stage.layout.block_bytes);
  if (r.json_path == "-") {
    out << summary.dump(2) << "\n";
  } else {
    if (!r.json_path.empty()) WriteFileAtomically(r.json_path, summary.dump(2) + "\n");
    if (!r.quiet) out << RenderReplayText(summary);
  }
  for (const auto& w : info.warnings) err << "kvsim replay: warning: " << w << "\n";
  return 0;
}

}  // namespace kvsim
