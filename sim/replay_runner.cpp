#include "sim/replay_runner.h"

#include <chrono>
#include <filesystem>

#include "kvcache/contiguous_allocator.h"
#include "kvcache/error.h"
#include "kvcache/paged_allocator.h"
#include "reports/replay_summary.h"
#include "reports/text_table.h"
#include "sim/replay_engine.h"

namespace kvsim {
namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

// Replays a preloaded trace (shared, read-only) as a stream.
class PreloadedSource final : public RequestSource {
 public:
  PreloadedSource(std::shared_ptr<const PreloadedTrace> trace, double rate_scale)
      : trace_(std::move(trace)), rate_scale_(rate_scale) {}
  std::optional<TraceRequest> Next() override {
    if (next_ >= trace_->requests.size()) return std::nullopt;
    TraceRequest r = trace_->requests[next_++];
    if (rate_scale_ != 1.0) r.arrival_ns = static_cast<int64_t>(std::llround(static_cast<double>(r.arrival_ns) / rate_scale_));
    return r;
  }
  int64_t skipped_rows() const override { return trace_->skipped_rows; }
  double progress() const override {
    return trace_->requests.empty() ? 1.0 : static_cast<double>(next_) / static_cast<double>(trace_->requests.size());
  }
  std::string Describe() const override { return trace_->description; }

 private:
  std::shared_ptr<const PreloadedTrace> trace_;
  double rate_scale_ = 1.0;
  size_t next_ = 0;
};

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

bool TraceHasBlockIds(const ReplayOptions& r) {
  if (r.synthetic > 0) return false;
  const TraceFormat f = r.trace_format == "auto" ? DetectTraceFormat(r.trace) : ParseTraceFormat(r.trace_format);
  return f == TraceFormat::kMooncake;
}

}  // namespace

void AddReplayOptions(po::options_description& desc, ReplayOptions& r) {
  desc.add_options()
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
      ("cv", po::value(&r.cv)->default_value(r.cv, Format("%g", r.cv)), "gamma arrivals: coefficient of variation of the gaps")
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
      ("compute-efficiency", po::value(&r.timer.compute_efficiency)->default_value(r.timer.compute_efficiency, Format("%g", r.timer.compute_efficiency)), "roofline: share of peak FLOPs")
      ("memory-efficiency", po::value(&r.timer.memory_efficiency)->default_value(r.timer.memory_efficiency, Format("%g", r.timer.memory_efficiency)), "roofline: share of peak bandwidth")
      ("step-overhead-ms", po::value(&r.timer.step_overhead_ms)->default_value(r.timer.step_overhead_ms, Format("%g", r.timer.step_overhead_ms)), "roofline: fixed cost per step")
      ("stepping", po::value(&r.stepping)->default_value(r.stepping), "event (skip identical decode steps) | token (every request every step)")
      ("timeseries", po::value(&r.timeseries_path), "write memory/concurrency over time to FILE.csv")
      ("sample-interval", po::value(&r.sample_interval_s)->default_value(0.0), "time series: one row per S seconds (0: every step)")
      ("requests", po::value(&r.requests_path), "write one CSV row per request to FILE.csv")
      ("report", po::value(&r.report_path), "write a self-contained HTML report with charts to FILE.html")
      ("omit-wall-time", po::bool_switch(&r.omit_wall_time), "write sim.wall_s as 0 so outputs are byte-identical across runs")
      ("quiet", po::bool_switch(&r.quiet), "no console summary or progress");
}

void ValidateReplayOptions(ReplayOptions& r, const std::string& data_dir) {
  if (r.trace.empty() && r.synthetic == 0)
    r.trace = (fs::path(data_dir) / "traces" / "AzureLLMInferenceTrace_conv.csv").string();
  if (r.stepping != "event" && r.stepping != "token") throw Error("--stepping: '" + r.stepping + "' is not event or token");
  if (r.scheduler != "vllm" && r.scheduler != "vllm-v0") throw Error("--scheduler: '" + r.scheduler + "' is not vllm or vllm-v0");
  if (r.allocator != "paged" && r.allocator != "contiguous") throw Error("--allocator: '" + r.allocator + "' is not paged or contiguous");
  if (r.timer.compute_efficiency <= 0 || r.timer.compute_efficiency > 1 || r.timer.memory_efficiency <= 0 ||
      r.timer.memory_efficiency > 1)
    throw Error("--compute-efficiency/--memory-efficiency: must be in (0, 1]");
  if (r.timer.step_overhead_ms < 0 || r.timer.fixed_step_ms < 0) throw Error("--step-time-ms/--step-overhead-ms: must not be negative");
  if (r.synthetic < 0) throw Error("--synthetic: must not be negative");
  if (r.sample_interval_s < 0) throw Error("--sample-interval: must not be negative");
  if (r.allocator == "contiguous") {
    ParseReservation(r.reservation);
    ParsePlacement(r.placement);
  }
}

std::shared_ptr<const PreloadedTrace> PreloadTrace(const ReplayOptions& r) {
  auto trace = std::make_shared<PreloadedTrace>();
  WindowOptions unscaled = r.window;
  unscaled.rate_scale = 1.0;  // each run scales arrivals itself (ApplyWindow scales last as well)
  auto source = ApplyWindow(MakeSourceFactory(r), unscaled);
  while (auto req = source->Next()) trace->requests.push_back(std::move(*req));
  trace->skipped_rows = source->skipped_rows();
  trace->description = r.synthetic > 0 ? source->Describe() : r.trace;
  return trace;
}

ReplayResult RunReplay(const Deployment& d, const ReplayOptions& r, std::shared_ptr<const PreloadedTrace> preloaded,
                       const std::function<void(double, int64_t)>& progress, const std::atomic<bool>* stop) {
  ReplayResult result;
  result.capacity = PlanCapacity(d.model, d.gpu, d.config);
  const CapacityResult& cap = result.capacity;
  if (!cap.does_not_fit.empty()) throw Error(cap.does_not_fit);
  const StageCapacity& stage = cap.stages[cap.bottleneck_stage];
  const int64_t block_size = cap.settings.block_size;

  std::unique_ptr<KvAllocator> allocator;
  if (r.allocator == "paged") {
    PagedAllocatorOptions po;
    po.num_blocks = cap.num_gpu_blocks;
    po.block_size = block_size;
    // Prefix keys come from a trace's block ids (Mooncake hash_ids); without them nothing can hit
    // and the pool may hand out any free block.
    po.enable_prefix_caching = d.config.enable_prefix_caching && TraceHasBlockIds(r);
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

  if (preloaded && r.window.max_requests > 0 && static_cast<int64_t>(preloaded->requests.size()) > r.window.max_requests)
    throw Error("internal: a preloaded trace must be windowed like the run");
  std::unique_ptr<RequestSource> source =
      preloaded ? std::make_unique<PreloadedSource>(preloaded, r.window.rate_scale) : ApplyWindow(MakeSourceFactory(r), r.window);
  const StepTimer timer(d.model, cap, d.gpu, r.timer);
  RecorderOptions ro;
  ro.timeseries_path = r.timeseries_path;
  ro.requests_path = r.requests_path;
  ro.sample_interval_s = r.sample_interval_s;
  ro.num_blocks = r.allocator == "paged" ? cap.num_gpu_blocks : 0;
  ro.block_size = block_size;
  ro.keep_charts = !r.report_path.empty();
  ro.slo_ttft_s = r.slo_ttft_s;
  ro.slo_tpot_s = r.slo_tpot_s;
  result.recorder = std::make_shared<ReplayRecorder>(ro);

  EngineOptions eo;
  eo.max_num_seqs = cap.settings.max_num_seqs;
  eo.max_num_batched_tokens = cap.settings.max_num_batched_tokens;
  eo.max_model_len = cap.settings.max_model_len;
  eo.block_size = block_size;
  eo.prefix_caching = d.config.enable_prefix_caching && r.allocator == "paged";
  eo.lazy_decode = r.stepping == "event";
  eo.v0_scheduler = r.scheduler == "vllm-v0";
  if (r.allocator != "paged") eo.paged_used_blocks_divisor = block_size;
  ReplayEngine engine(eo, *allocator, timer, *result.recorder, *source);

  bool partial = false;
  int64_t steps = 0;
  auto on_step = [&](int64_t now_ns) {
    if ((++steps & 4095) == 0 && progress) progress(source->progress(), now_ns);
    if (stop && stop->load(std::memory_order_relaxed)) {
      partial = true;
      return false;
    }
    return true;
  };
  const auto t0 = std::chrono::steady_clock::now();
  const EngineCounters counters = engine.Run(on_step);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  result.recorder->Finish();

  ReplayRunInfo info;
  info.trace = source->Describe();
  info.scheduler = r.scheduler;
  info.allocator = r.allocator == "paged" ? "paged" : allocator->name();
  info.stepping = r.stepping;
  info.wall_s = r.omit_wall_time ? 0.0 : wall_s;
  info.seed = r.seed;
  info.window = r.window;
  info.skipped_rows = source->skipped_rows();
  info.warnings = source->warnings();
  info.step_model = timer.fixed() ? "fixed " + std::to_string(r.timer.fixed_step_ms) + " ms" : "roofline";
  result.summary = BuildReplaySummary(cap, *result.recorder, counters, info, stage.layout.block_bytes);
  if (partial) result.summary["partial"] = true;
  result.summary["warnings"] = info.warnings;
  return result;
}

}  // namespace kvsim
