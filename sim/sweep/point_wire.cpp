#include "sim/sweep/point_wire.h"

#include <cstring>
#include <type_traits>

#include "kvcache/base/error.h"
#include "sim/stats/summary_fields.h"

namespace kvsim {
namespace {

// Every field of a struct is listed once, in Visit(); the writer and the reader walk the same
// list, so the two directions cannot disagree.
class Writer {
 public:
  template <class T>
  void Field(const T& v) {
    if constexpr (std::is_enum_v<T>) {
      Field(static_cast<int64_t>(v));
    } else {
      static_assert(std::is_arithmetic_v<T>);
      char raw[sizeof(T)];
      std::memcpy(raw, &v, sizeof(T));
      bytes_.append(raw, sizeof(T));
    }
  }
  void Field(const std::string& s) {
    Field(static_cast<uint64_t>(s.size()));
    bytes_ += s;
  }
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
};

class Reader {
 public:
  explicit Reader(const std::string& bytes) : bytes_(bytes) {}
  template <class T>
  void Field(T& v) {
    if constexpr (std::is_enum_v<T>) {
      int64_t raw = 0;
      Field(raw);
      v = static_cast<T>(raw);
    } else {
      static_assert(std::is_arithmetic_v<T>);
      Need(sizeof(T));
      std::memcpy(&v, bytes_.data() + pos_, sizeof(T));
      pos_ += sizeof(T);
    }
  }
  void Field(std::string& s) {
    uint64_t n = 0;
    Field(n);
    Need(n);
    s.assign(bytes_, pos_, n);
    pos_ += n;
  }
  void Finish() const {
    if (pos_ != bytes_.size()) throw InternalError("MPI message: " + std::to_string(bytes_.size() - pos_) + " trailing bytes");
  }

 private:
  void Need(uint64_t n) const {
    if (n > bytes_.size() - pos_) throw InternalError("MPI message: truncated at byte " + std::to_string(pos_));
  }
  const std::string& bytes_;
  size_t pos_ = 0;
};

// Containers: a count, then the elements.
template <class Io, class T>
void Vector(Io& io, std::vector<T>& v, void (*each)(Io&, T&)) {
  uint64_t n = v.size();
  io.Field(n);
  v.resize(n);
  for (T& x : v) each(io, x);
}
template <class Io, class T>
void Scalar(Io& io, T& v) { io.Field(v); }

template <class Io>
void Visit(Io& io, LatencySummary& l) {
  io.Field(l.count), io.Field(l.mean), io.Field(l.p50), io.Field(l.p90), io.Field(l.p99), io.Field(l.p999), io.Field(l.std), io.Field(l.has_std);
}

template <class Io>
void Visit(Io& io, EffectiveSettings& s) {
  io.Field(s.model), io.Field(s.architecture), io.Field(s.engine), io.Field(s.vllm_version), io.Field(s.vllm_era);
  io.Field(s.gpu_id), io.Field(s.gpu_name), io.Field(s.interconnect), io.Field(s.gpu_total_gib);
  io.Field(s.gpu_memory_utilization), io.Field(s.dtype), io.Field(s.quantization), io.Field(s.kv_cache_dtype);
  io.Field(s.tensor_parallel_size), io.Field(s.pipeline_parallel_size), io.Field(s.max_model_len);
  io.Field(s.max_num_seqs), io.Field(s.max_num_batched_tokens), io.Field(s.block_size);
  io.Field(s.enable_prefix_caching), io.Field(s.kv_grouping);
  io.Field(s.data_parallel_size), io.Field(s.enable_expert_parallel), io.Field(s.all2all_backend);
  bool has_kv_memory = s.kv_cache_memory_gib.has_value();
  io.Field(has_kv_memory);
  double kv_memory = s.kv_cache_memory_gib.value_or(0);
  io.Field(kv_memory);
  s.kv_cache_memory_gib = has_kv_memory ? std::optional<double>(kv_memory) : std::nullopt;
}

template <class Io>
void Visit(Io& io, LoadCheck& l) {
  io.Field(l.applicable), io.Field(l.offered_rps), io.Field(l.finished_rps), io.Field(l.served_ratio);
  io.Field(l.waiting_before), io.Field(l.waiting_end), io.Field(l.queue_growing), io.Field(l.backlog_fraction);
  io.Field(l.served);
}

template <class Io>
void Visit(Io& io, CostSummary& c) {
  io.Field(c.gpu_hourly_usd), io.Field(c.gpus), io.Field(c.gpu_hours), io.Field(c.usd);
  io.Field(c.usd_per_million_output_tokens), io.Field(c.output_tokens_per_s_per_gpu);
}

template <class Io>
void Visit(Io& io, ReplaySummary& s);

template <class Io>
void Visit(Io& io, OffloadSummary& o) {
  io.Field(o.connector), io.Field(o.chunk_tokens), io.Field(o.queried_tokens), io.Field(o.gpu_hit_tokens);
  io.Field(o.gpu_hit_rate), io.Field(o.total_hit_rate), io.Field(o.loads), io.Field(o.mean_load_wait_s);
  io.Field(o.pinned_host_gib);
  Vector<Io, OffloadSummary::Tier>(io, o.tiers, [](Io& i, OffloadSummary::Tier& t) {
    TierStats& s = t.stats;
    i.Field(s.kind), i.Field(s.capacity_chunks), i.Field(s.chunk_tokens), i.Field(s.capacity_bytes), i.Field(s.hit_tokens);
    i.Field(s.loads), i.Field(s.chunks_stored), i.Field(s.chunks_evicted), i.Field(s.peak_chunks), i.Field(s.bytes_read);
    i.Field(s.bytes_written), i.Field(s.transfer_ns);
    i.Field(t.hit_rate), i.Field(t.capacity_gib), i.Field(t.read_gib), i.Field(t.written_gib), i.Field(t.transfer_s);
    i.Field(t.peak_used_fraction);
  });
}

template <class Io>
void Visit(Io& io, LoraSummary& l) {
  io.Field(l.max_loras), io.Field(l.max_cpu_loras), io.Field(l.max_lora_rank), io.Field(l.requests);
  io.Field(l.adapter_gpu_mib), io.Field(l.adapter_host_mib), io.Field(l.host_link_gb_per_s), io.Field(l.disk_read_gb_per_s);
  io.Field(l.gpu_load_ms), io.Field(l.disk_load_ms), io.Field(l.gpu_loads), io.Field(l.disk_loads), io.Field(l.load_s);
  io.Field(l.kernel_s), io.Field(l.host_s), io.Field(l.lora_steps), io.Field(l.max_step_adapters), io.Field(l.waited_requests);
}

template <class Io>
void Visit(Io& io, DisaggSummary& d) {
  for (DisaggSummary::Pool* p : {&d.prefill, &d.decode}) {
    io.Field(p->replicas), io.Field(p->gpu), io.Field(p->tensor_parallel_size), io.Field(p->max_num_seqs);
    io.Field(p->kv_blocks);
  }
  io.Field(d.link), io.Field(d.link_gb_per_s), io.Field(d.link_latency_s), io.Field(d.transfers);
  io.Field(d.transfer_gib_per_gpu), io.Field(d.mean_transfer_s), io.Field(d.mean_link_wait_s);
  io.Field(d.connector), io.Field(d.mean_post_s);
}

template <class Io>
void Visit(Io& io, FleetSummary& f) {
  io.Field(f.replicas), io.Field(f.router);
  Vector<Io, ReplaySummary>(io, f.per_replica, [](Io& i, ReplaySummary& r) { Visit(i, r); });
  Vector<Io, int64_t>(io, f.routed, &Scalar<Io, int64_t>);
  for (FleetSummary::Spread* p : {&f.load, &f.kv_peak_used_fraction, &f.prefix_hit_rate}) io.Field(p->max), io.Field(p->mean);
  io.Field(f.load_interval_s);
  Vector<Io, std::vector<int64_t>>(io, f.load_over_time,
                                   [](Io& i, std::vector<int64_t>& v) { Vector<Io, int64_t>(i, v, &Scalar<Io, int64_t>); });
}

// An optional part: a presence flag, then the value.
template <class Io, class T>
void Optional(Io& io, std::optional<T>& v) {
  bool has = v.has_value();
  io.Field(has);
  if (!has) return v.reset();
  if (!v) v.emplace();
  Visit(io, *v);
}

template <class Io>
void Visit(Io& io, ReplaySummary& s) {
  VisitSummaryFields(s, [&](const SummaryFieldInfo&, auto& value) { io.Field(value); });  // the plain figures
  auto& r = s.requests;
  uint64_t reasons = r.rejected_by_reason.size();
  io.Field(reasons);
  std::vector<std::pair<std::string, int64_t>> pairs(r.rejected_by_reason.begin(), r.rejected_by_reason.end());
  pairs.resize(reasons);
  r.rejected_by_reason.clear();
  for (auto& [reason, count] : pairs) io.Field(reason), io.Field(count), r.rejected_by_reason.emplace(reason, count);
  for (double& w : s.waste) io.Field(w);
  for (double& w : s.waste_saturated) io.Field(w);
  io.Field(s.saturated_time_fraction);
  io.Field(s.prefix_cache.queried_tokens), io.Field(s.prefix_cache.hit_tokens), io.Field(s.prefix_cache.hit_rate);
  io.Field(s.prefix_cache.readmission_queried_tokens), io.Field(s.prefix_cache.readmission_hit_tokens);
  io.Field(s.prefix_cache.readmission_hit_rate);
  auto& l = s.latency_s;
  for (LatencySummary* d : {&l.queue, &l.ttft, &l.client_ttft, &l.server_ttft, &l.tpot, &l.itl, &l.e2e}) Visit(io, *d);
  auto& tc = l.ttft_components;
  io.Field(tc.api_server), io.Field(tc.tokenization), io.Field(tc.step_in_flight), io.Field(tc.async_scheduling);
  io.Field(tc.wait), io.Field(tc.prefill);
  io.Field(s.sim.wall_s), io.Field(s.sim.events), io.Field(s.sim.steps), io.Field(s.sim.stepping), io.Field(s.sim.exact_quantiles);
  io.Field(s.sim.draft_tokens), io.Field(s.sim.accepted_tokens), io.Field(s.sim.verify_steps), io.Field(s.sim.drafting_s);
  auto& c = s.config;
  Visit(io, c.settings);
  io.Field(c.trace), io.Field(c.scheduler), io.Field(c.allocator), io.Field(c.step_time_model), io.Field(c.seed);
  io.Field(c.window.max_requests), io.Field(c.window.start_s), io.Field(c.window.duration_s);
  io.Field(c.window.rate_scale), io.Field(c.window.repeat);
  io.Field(s.trace_skipped_rows);
  Vector<Io, std::string>(io, s.warnings, &Scalar<Io, std::string>);
  io.Field(s.partial);
  Visit(io, s.load_check);
  Optional(io, s.cost);
  std::optional<FleetSummary> fleet;
  if (s.fleet) fleet = *s.fleet;
  Optional(io, fleet);
  s.fleet = fleet ? std::make_shared<const FleetSummary>(std::move(*fleet)) : nullptr;
  std::optional<OffloadSummary> offload;
  if (s.offload) offload = *s.offload;
  Optional(io, offload);
  s.offload = offload ? std::make_shared<const OffloadSummary>(std::move(*offload)) : nullptr;
  std::optional<DisaggSummary> disagg;
  if (s.disagg) disagg = *s.disagg;
  Optional(io, disagg);
  s.disagg = disagg ? std::make_shared<const DisaggSummary>(std::move(*disagg)) : nullptr;
  std::optional<LoraSummary> lora;
  if (s.lora) lora = *s.lora;
  Optional(io, lora);
  s.lora = lora ? std::make_shared<const LoraSummary>(std::move(*lora)) : nullptr;
}

template <class Io>
void Visit(Io& io, PointOutcome& p) {
  io.Field(p.label);
  bool has_summary = p.summary.has_value();
  io.Field(has_summary);
  if (has_summary) {
    if (!p.summary) p.summary.emplace();
    Visit(io, *p.summary);
  }
  io.Field(p.objective), io.Field(p.feasible);
  Vector<Io, std::string>(io, p.violations, &Scalar<Io, std::string>);
  io.Field(p.error);
  io.Field(p.distance), io.Field(p.binding), io.Field(p.interrupted);
}

template <class Io>
void Visit(Io& io, TraceRequest& r) {
  io.Field(r.id), io.Field(r.arrival_ns), io.Field(r.prompt_tokens), io.Field(r.output_tokens);
  Vector<Io, uint64_t>(io, r.block_ids, &Scalar<Io, uint64_t>);
  io.Field(r.block_id_tokens), io.Field(r.source_line), io.Field(r.session_id), io.Field(r.adapter);
}

template <class Io>
void Visit(Io& io, PreloadedTrace& t) {
  Vector<Io, TraceRequest>(io, t.requests, [](Io& i, TraceRequest& r) { Visit(i, r); });
  io.Field(t.skipped_rows), io.Field(t.description), io.Field(t.partial);
}

// A field added to one of these structs must be added to its Visit() too, or MPI runs would drop
// it silently: the sizes (x86-64, libstdc++) make the build say so. Update them with the Visit().
// The summary's plain sections are not counted: they are visited through their Fields(), which
// summary_fields.h checks against their members.
#if defined(__x86_64__) && defined(__GLIBCXX__)
constexpr size_t kPlainSectionBytes = sizeof(ReplaySummary::Requests) + sizeof(ReplaySummary::Concurrency) +
                                      sizeof(ReplaySummary::Kv) + sizeof(ReplaySummary::Throughput) +
                                      sizeof(ReplaySummary::Goodput) + sizeof(ReplaySummary::Memory);
static_assert(sizeof(LoraSummary) == 144, "LoraSummary changed: update Visit(LoraSummary) above");
static_assert(sizeof(ReplaySummary) - kPlainSectionBytes == 1472, "ReplaySummary changed: update Visit(ReplaySummary) above");
static_assert(sizeof(EffectiveSettings) == 376, "EffectiveSettings changed: update Visit(EffectiveSettings) above");
static_assert(sizeof(PointOutcome) - sizeof(ReplaySummary) == 160, "PointOutcome changed: update Visit(PointOutcome) above");
static_assert(sizeof(TraceRequest) == 88, "TraceRequest changed: update Visit(TraceRequest) above");
static_assert(sizeof(PreloadedTrace) == 72, "PreloadedTrace changed: update Visit(PreloadedTrace) above");
#endif

template <class T>
std::string Encode(const T& value) {
  Writer w;
  T copy = value;  // Visit takes a mutable reference (the reader's direction); the writer only reads it
  Visit(w, copy);
  return std::move(w.bytes());
}

template <class T>
T Decode(const std::string& bytes) {
  Reader r(bytes);
  T value;
  Visit(r, value);
  r.Finish();
  return value;
}

}  // namespace

std::string EncodePointOutcome(const PointOutcome& point) { return Encode(point); }
PointOutcome DecodePointOutcome(const std::string& bytes) { return Decode<PointOutcome>(bytes); }
std::string EncodePreloadedTrace(const PreloadedTrace& trace) { return Encode(trace); }
PreloadedTrace DecodePreloadedTrace(const std::string& bytes) { return Decode<PreloadedTrace>(bytes); }

}  // namespace kvsim
