#include "sim/run/request_sources.h"

#include <cmath>

#include "kvcache/base/error.h"
#include "kvcache/base/line_reader.h"
#include "workloads/adapter_overlay.h"
#include "workloads/bench_datasets.h"
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
  if (r.synthetic > 0 && r.dataset.name) {
    return [r] {
      return MakeBenchDatasetSource(r.dataset, r.synthetic, ArrivalGenerator(r.arrival, r.rate, r.cv, r.seed), r.seed);
    };
  }
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
  if (!needs_arrivals && r.rate > 0)
    throw Error("--rate: the trace " + r.trace + " has its own arrival times; --rate-scale S divides them by S");
  if (!needs_arrivals && r.arrival != ArrivalKind::kPoisson)
    throw Error("--arrival: the trace " + r.trace + " has its own arrival times; arrivals are generated only for "
                "--synthetic requests and a lengths file");
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

// The trace or synthetic workload, with --shared-prefix / --conversations and --adapters laid over it.
SourceFactory MakeSourceFactory(const ReplayOptions& r) {
  SourceFactory base = MakeTraceSourceFactory(r);
  const PrefixOverlayOptions overlay = r.prefix_overlay;
  const uint64_t seed = r.seed;
  const AdapterOverlayOptions adapters = ParseAdapterOverlay(r.adapters, r.adapter_popularity, r.seed);
  if (overlay.active()) base = [base, overlay, seed] { return ApplyPrefixOverlay(base(), overlay, seed); };
  if (adapters.active()) base = [base, adapters] { return ApplyAdapterOverlay(base(), adapters); };
  return base;
}

}  // namespace

bool TraceHasBlockIds(const ReplayOptions& r) {
  return (r.synthetic == 0 && FormatOf(r) == TraceFormat::kMooncake) || r.prefix_overlay.active() ||
         (r.synthetic > 0 && BenchDatasetHasBlockIds(r.dataset));
}

std::unique_ptr<RequestSource> OpenRequestSource(const ReplayOptions& r, const std::shared_ptr<const PreloadedTrace>& preloaded) {
  if (preloaded && preloaded->partial) throw InternalError("a partially read trace cannot be replayed");
  if (preloaded && r.window.max_requests > 0 && static_cast<int64_t>(preloaded->requests.size()) > r.window.max_requests)
    throw InternalError("a preloaded trace must be windowed like the run");
  if (preloaded) return std::make_unique<PreloadedSource>(preloaded, r.window.rate_scale);
  return ApplyWindow(MakeSourceFactory(r), r.window);
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
  // Every run of a sweep or comparison would answer over nothing; say so once, before any runs.
  if (trace->requests.empty() && !trace->partial)
    throw Error(trace->description + ": no requests to replay (the trace, or the window of it, is empty)");
  return trace;
}

}  // namespace kvsim
