#include "sim/replay_runner.h"

#include <chrono>
#include <cmath>

#include "kvcache/base/error.h"
#include "kvcache/base/line_reader.h"
#include "kvcache/base/text_format.h"
#include "kvcache/base/units.h"
#include "kvcache/checked_allocator.h"
#include "kvcache/contiguous_allocator.h"
#include "kvcache/paged_allocator.h"
#include "sim/cost.h"
#include "sim/fleet.h"
#include "sim/load_check.h"
#include "sim/replay_engine.h"
#include "sim/replay_setup.h"
#include "sim/replay_stats.h"
#include "workloads/prefix_overlay.h"
#include "workloads/trace_window.h"

namespace kvsim {
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

// A pipe or stdin is read once: detecting its format would consume its header, so it needs
// --trace-format; a regular file is sniffed by reading its first line.
TraceFormat FormatOf(const ReplayOptions& r) {
  if (r.trace_format) return *r.trace_format;
  if (IsStreamInput(r.trace))
    throw Error("--trace " + r.trace + ": a pipe or stdin is read once, so its format cannot be sniffed first; "
                "give --trace-format");
  return DetectTraceFormat(r.trace);
}

SourceFactory MakeTraceSourceFactory(const ReplayOptions& r) {
  if (r.synthetic > 0) {
    return [r] {
      return MakeSyntheticSource(r.synthetic, ArrivalGenerator(r.arrival, r.rate, r.cv, r.seed),
                                 LengthSampler(r.prompt_len, "--prompt-len", "num_prefill_tokens"),
                                 LengthSampler(r.output_len, "--output-len", "num_decode_tokens"), r.seed);
    };
  }
  TraceReaderOptions reader = r.reader;
  reader.path = r.trace;
  reader.format = FormatOf(r);
  const bool needs_arrivals = reader.format == TraceFormat::kLengths;
  if (needs_arrivals && !(r.rate > 0))
    throw Error("--rate: the lengths file " + r.trace + " has no arrival times; give a rate (requests/s)");
  const bool read_once = IsStreamInput(reader.path);
  // Said before reading: a small window's later copies replay from memory and would never reopen.
  if (read_once && r.window.repeat > 1)
    throw Error("--trace " + reader.path + ": a pipe or stdin can be read only once; --repeat needs a regular file");
  auto opened = std::make_shared<bool>(false);
  return [reader, r, needs_arrivals, read_once, opened] {
    if (read_once && *opened)
      throw Error("--trace " + reader.path + ": a pipe or stdin can be read only once; --repeat needs a regular file");
    *opened = true;
    std::optional<ArrivalGenerator> arrivals;
    if (needs_arrivals) arrivals.emplace(r.arrival, r.rate, r.cv, r.seed);
    return OpenTraceReader(reader, std::move(arrivals));
  };
}

// The trace or synthetic workload, with --shared-prefix / --conversations laid over it.
SourceFactory MakeSourceFactory(const ReplayOptions& r) {
  SourceFactory base = MakeTraceSourceFactory(r);
  const PrefixOverlayOptions overlay = ParsePrefixOverlay(r.shared_prefix, r.conversations, r.seed);
  if (!overlay.active()) return base;
  return [base, overlay] { return ApplyPrefixOverlay(base(), overlay); };
}

bool TraceHasBlockIds(const ReplayOptions& r) {
  return (r.synthetic == 0 && FormatOf(r) == TraceFormat::kMooncake) || !r.shared_prefix.empty() || !r.conversations.empty();
}

}  // namespace

std::unique_ptr<KvAllocator> MakeAllocator(const Deployment& d, const ReplayOptions& r, const CapacityResult& cap) {
  const StageCapacity& stage = cap.stages[cap.bottleneck_stage];
  if (r.allocator == AllocatorKind::kPaged) {
    PagedAllocatorOptions po;
    // The allocator keeps block 0 back as vLLM v1's null block; an engine without one (V0 on a model
    // with no sliding window) gets that id on top, so requests hold all of its blocks.
    po.num_blocks = cap.usable_gpu_blocks + 1;
    po.block_size = cap.settings.block_size;
    // Prefix keys come from a trace's block ids (Mooncake hash_ids); without them nothing can hit
    // and the pool may hand out any free block.
    po.enable_prefix_caching = d.config.enable_prefix_caching && TraceHasBlockIds(r);
    po.groups = stage.layout.groups;
    if (r.scheduler == SchedulerKind::kVllmV0) po.watermark_fraction = 0.01;
    if (po.num_blocks < 2) throw Error("the KV pool has fewer than 2 blocks");
    return std::make_unique<PagedAllocator>(po);
  }
  ContiguousAllocatorOptions co;
  co.capacity_slots = static_cast<int64_t>(cap.kv_cache_bytes / stage.layout.bytes_per_token);
  co.max_model_len = cap.settings.max_model_len;
  co.reservation = r.reservation;
  co.placement = r.placement;
  co.block_size = cap.settings.block_size;
  return std::make_unique<ContiguousAllocator>(co);
}

// Memory, the run's counters and the configuration: the summary sections the statistics do not own.
void FillRunSections(const CapacityResult& cap, const ReplayOptions& r, const EngineCounters& counters, double wall_s,
                     int64_t peak_used_blocks, const StepModel& timer, ReplaySummary& s) {
  auto r4 = [](double bytes) { return std::round(BytesToGiB(bytes) * 1e4) / 1e4; };
  const double kv_peak = static_cast<double>(peak_used_blocks) *
                         static_cast<double>(cap.stages[cap.bottleneck_stage].layout.block_bytes);
  s.memory_gib = {r4(cap.weights_bytes), r4(cap.activation_peak_bytes), r4(cap.non_torch_bytes), r4(cap.kv_cache_bytes),
                  r4(kv_peak), r4(cap.weights_bytes + cap.activation_peak_bytes + cap.non_torch_bytes + kv_peak)};
  s.sim.wall_s = std::round((r.omit_wall_time ? 0.0 : wall_s) * 1e4) / 1e4;
  s.sim.events = counters.events;
  s.sim.steps = counters.steps;
  s.sim.stepping = r.stepping;  // exact_quantiles: the statistics' (FillSummary)
  s.config.settings = cap.settings;
  s.config.scheduler = r.scheduler;
  s.config.step_time_model = timer.Describe();
  s.config.seed = r.seed;
  s.config.window = r.window;
}

std::unique_ptr<RequestSource> OpenRequestSource(const ReplayOptions& r, const ReplayHooks& hooks) {
  const auto& preloaded = hooks.preloaded;
  if (preloaded && preloaded->partial) throw InternalError("a partially read trace cannot be replayed");
  if (preloaded && r.window.max_requests > 0 && static_cast<int64_t>(preloaded->requests.size()) > r.window.max_requests)
    throw InternalError("a preloaded trace must be windowed like the run");
  if (preloaded) return std::make_unique<PreloadedSource>(preloaded, r.window.rate_scale);
  return ApplyWindow(MakeSourceFactory(r), r.window);
}

StepModelOptions TimerOptions(const Deployment& d, const ReplayOptions& r) {
  StepModelOptions timer_options = r.timer;
  timer_options.enforce_eager = timer_options.enforce_eager || d.config.enforce_eager;
  return timer_options;
}

ReplayStatsOptions StatsOptions(const ReplayOptions& r, const CapacityResult& cap, const StepModelOptions& t) {
  const bool paged = r.allocator == AllocatorKind::kPaged;
  return {paged ? cap.num_gpu_blocks : 0, paged ? cap.usable_gpu_blocks : 0, cap.settings.block_size, r.slo_ttft_s, r.slo_tpot_s,
          t.efficiency.client_ttft_ms * 1e-3, t.efficiency.tokenize_us_per_token * 1e-6, r.exact_quantiles};
}

EngineOptions MakeEngineOptions(const Deployment& d, const ReplayOptions& r, const CapacityResult& cap) {
  EngineOptions eo;
  eo.max_num_seqs = cap.settings.max_num_seqs;
  eo.max_num_batched_tokens = cap.settings.max_num_batched_tokens;
  eo.max_model_len = cap.settings.max_model_len;
  eo.block_size = cap.settings.block_size;
  eo.prefix_caching = d.config.enable_prefix_caching && r.allocator == AllocatorKind::kPaged;
  eo.stepping = r.stepping;
  eo.scheduler = r.scheduler;
  return eo;
}

void FinishSummary(const ReplayOptions& r, const RequestSource& source, const std::string& allocator_name,
                   const std::string& gpu_id, ReplaySummary& s) {
  s.config.trace = source.Describe();
  s.config.allocator = r.allocator == AllocatorKind::kPaged ? "paged" : allocator_name;
  s.trace_skipped_rows = source.skipped_rows();
  s.warnings = source.warnings();
  const double price = GpuHourlyCost(r, gpu_id);
  if (price > 0) s.cost = ComputeCost(s, price, r.replicas);
}

std::shared_ptr<const PreloadedTrace> PreloadTrace(const ReplayOptions& r, const std::atomic<bool>* stop) {
  auto trace = std::make_shared<PreloadedTrace>();
  WindowOptions unscaled = r.window;
  unscaled.rate_scale = 1.0;  // each run scales arrivals itself (ApplyWindow scales last as well)
  auto source = ApplyWindow(MakeSourceFactory(r), unscaled);
  while (auto req = source->Next()) {
    trace->requests.push_back(std::move(*req));
    if (stop && (trace->requests.size() & 4095) == 0 && stop->load(std::memory_order_relaxed)) {
      trace->partial = true;
      break;
    }
  }
  trace->skipped_rows = source->skipped_rows();
  trace->description = r.synthetic > 0 ? source->Describe() : r.trace;
  return trace;
}

ReplayResult RunReplay(const Deployment& d, const ReplayOptions& r, const ReplayHooks& hooks) {
  if (r.replicas > 1 || r.fleet_report) return RunFleet(d, r, hooks);
  ReplayResult result;
  result.capacity = PlanCapacity(d.model, d.gpu, d.config);
  const CapacityResult& cap = result.capacity;
  if (!cap.does_not_fit.empty()) throw Error(cap.does_not_fit);
  std::unique_ptr<KvAllocator> allocator = MakeAllocator(d, r, cap);
  std::unique_ptr<RequestSource> source = OpenRequestSource(r, hooks);
  const StepModelOptions timer_options = TimerOptions(d, r);
  const StepModel timer(d.model, cap, d.gpu, timer_options);
  ReplayStatistics stats(StatsOptions(r, cap, timer_options));
  LoadCheckObserver load_check;
  std::vector<ReplayObserver*> observers = {&stats, &load_check};
  observers.insert(observers.end(), hooks.observers.begin(), hooks.observers.end());
  std::unique_ptr<CheckedAllocator> checked;
  if (hooks.check_invariants) checked = std::make_unique<CheckedAllocator>(*allocator);
  ReplayEngine engine(MakeEngineOptions(d, r, cap), checked ? static_cast<KvAllocator&>(*checked) : *allocator, timer,
                      std::move(observers), *source);

  bool partial = false;
  int64_t steps = 0;
  auto on_step = [&](int64_t now_ns) {
    if ((++steps & 4095) == 0 && hooks.progress) hooks.progress(source->progress(), now_ns);
    if (hooks.stop && hooks.stop->load(std::memory_order_relaxed)) {
      partial = true;
      return false;
    }
    return true;
  };
  const auto t0 = std::chrono::steady_clock::now();
  const EngineCounters counters = engine.Run(on_step);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  ReplaySummary& s = result.summary;
  stats.FillSummary(s);
  FillRunSections(cap, r, counters, wall_s, stats.peak_used_blocks(), timer, s);
  s.load_check = load_check.Result();
  s.partial = partial;
  FinishSummary(r, *source, allocator->name(), d.gpu.id, s);
  return result;
}

}  // namespace kvsim
