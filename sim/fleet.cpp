#include "sim/fleet.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include "kvcache/base/error.h"
#include "sim/load_check.h"
#include "sim/replay_engine.h"
#include "sim/replay_setup.h"
#include "sim/replay_stats.h"
#include "sim/router.h"

namespace kvsim {
namespace {

// The replicas' engines never pull: the fleet delivers each arrival to one of them.
class NoSource final : public RequestSource {
 public:
  std::optional<TraceRequest> Next() override { return std::nullopt; }
  std::string Describe() const override { return "fleet"; }
};

struct Replica {
  std::unique_ptr<KvAllocator> allocator;
  std::unique_ptr<ReplayStatistics> stats;
  std::unique_ptr<ReplayEngine> engine;
  int64_t usable_blocks = 0;  // paged pools; 0: KV use from the accounting
  int64_t block_size = 16;
  ReplicaLoad Load() const {
    ReplicaLoad l;
    l.requests = engine->running() + engine->waiting();
    // KV use counts what the waiting requests' prompts will take: a router that saw only used
    // blocks would send every request of a burst to the replica that has not admitted them yet.
    if (usable_blocks > 0) {
      const int64_t pending = (engine->waiting_tokens() + block_size - 1) / block_size;
      l.kv_used_fraction = static_cast<double>(allocator->UsedBlocks() + pending) / static_cast<double>(usable_blocks);
    } else {
      const KvAccounting a = allocator->Accounting();
      l.kv_used_fraction = a.capacity_slots > 0 ? static_cast<double>(a.used_slots()) / static_cast<double>(a.capacity_slots) : 0;
    }
    return l;
  }
};

// Requests per replica over time, the maximum per interval; the interval doubles (pairs merged)
// whenever the run outgrows kIntervals of them, so memory is constant.
class LoadSeries {
 public:
  explicit LoadSeries(size_t replicas) : series_(replicas) {}
  void Add(int64_t t_ns, const std::vector<ReplicaLoad>& loads) {
    while (t_ns / width_ns_ >= kIntervals) {
      for (auto& s : series_) {
        for (size_t i = 0; i < s.size(); i += 2) s[i / 2] = std::max(s[i], i + 1 < s.size() ? s[i + 1] : 0);
        s.resize((s.size() + 1) / 2);
      }
      width_ns_ *= 2;
    }
    const size_t k = static_cast<size_t>(t_ns / width_ns_);
    for (size_t r = 0; r < series_.size(); ++r) {
      if (series_[r].size() <= k) series_[r].resize(k + 1, 0);
      series_[r][k] = std::max(series_[r][k], loads[r].requests);
    }
  }
  double interval_s() const { return static_cast<double>(width_ns_) / 1e9; }
  const std::vector<std::vector<int64_t>>& series() const { return series_; }

 private:
  static constexpr int64_t kIntervals = 512;
  int64_t width_ns_ = 1'000'000'000;
  std::vector<std::vector<int64_t>> series_;
};

FleetSummary::Spread SpreadOf(const std::vector<double>& v) {
  FleetSummary::Spread s;
  for (double x : v) s.max = std::max(s.max, x), s.mean += x;
  s.mean = v.empty() ? 0 : std::round(s.mean / static_cast<double>(v.size()) * 1e6) / 1e6;
  return s;
}

// Per-replica summaries and the imbalance figures.
std::shared_ptr<FleetSummary> SummarizeReplicas(const std::vector<Replica>& replicas, const std::vector<int64_t>& routed,
                                                const CapacityResult& cap, const ReplayOptions& r, const StepModel& timer) {
  auto f = std::make_shared<FleetSummary>();
  f->replicas = static_cast<int64_t>(replicas.size());
  f->router = r.router;
  f->routed = routed;
  std::vector<double> load, kv, hit;
  ReplayOptions one = r;
  one.replicas = 1;
  for (size_t i = 0; i < replicas.size(); ++i) {
    ReplaySummary s;
    replicas[i].stats->FillSummary(s);
    FillRunSections(cap, one, replicas[i].engine->counters(), 0.0, replicas[i].stats->peak_used_blocks(), timer, s);
    load.push_back(static_cast<double>(routed[i]));
    kv.push_back(s.kv.peak_used_fraction);
    hit.push_back(s.prefix_cache.hit_rate);
    f->per_replica.push_back(std::move(s));
  }
  f->load = SpreadOf(load);
  f->kv_peak_used_fraction = SpreadOf(kv);
  f->prefix_hit_rate = SpreadOf(hit);
  return f;
}

// The global event loop: the next arrival is routed when it comes no later than every busy
// replica's next step start; otherwise the replica whose step starts first steps. Returns true
// when the stop flag ended the run.
bool RunEvents(std::vector<Replica>& replicas, Router& router, RequestSource& source, const ReplayHooks& hooks,
               std::vector<int64_t>& routed, LoadSeries& series) {
  std::vector<ReplicaLoad> loads(replicas.size());
  // Each replica's next step start (INT64_MAX when idle), kept flat: the scan runs once per step.
  std::vector<int64_t> next_start(replicas.size(), INT64_MAX);
  auto update = [&](size_t i) {
    const ReplayEngine& e = *replicas[i].engine;
    next_start[i] = e.Idle() ? INT64_MAX : e.now_ns();
  };
  int64_t steps = 0;
  std::optional<TraceRequest> pending = source.Next();
  while (true) {
    size_t next = 0;
    for (size_t i = 1; i < next_start.size(); ++i)
      if (next_start[i] < next_start[next]) next = i;
    const bool busy = next_start[next] != INT64_MAX;
    if (pending && (!busy || pending->arrival_ns <= next_start[next])) {
      for (size_t i = 0; i < replicas.size(); ++i) loads[i] = replicas[i].Load();
      series.Add(pending->arrival_ns, loads);
      const size_t k = static_cast<size_t>(router.Pick(*pending, loads));
      ++routed[k];
      replicas[k].engine->Deliver(std::move(*pending));
      update(k);
      pending = source.Next();
      continue;
    }
    if (!busy) return false;
    ReplayEngine& engine = *replicas[next].engine;
    const bool stepped = engine.StepOnce(pending ? pending->arrival_ns : INT64_MAX);
    update(next);
    if (!stepped) continue;
    if ((++steps & 4095) == 0 && hooks.progress) hooks.progress(source.progress(), engine.now_ns());
    if (hooks.stop && hooks.stop->load(std::memory_order_relaxed)) return true;
  }
}

}  // namespace

ReplayResult RunFleet(const Deployment& d, const ReplayOptions& r, const ReplayHooks& hooks) {
  if (r.replicas < 1) throw Error("--replicas: must be at least 1 (got " + std::to_string(r.replicas) + ")");
  if (r.replicas > 1 && (!r.timeseries_path.empty() || !r.requests_path.empty()))
    throw Error("--timeseries/--requests: not available with --replicas > 1 (the rows of the replicas would interleave)");
  ReplayResult result;
  result.capacity = PlanCapacity(d.model, d.gpu, d.config);
  const CapacityResult& cap = result.capacity;
  if (!cap.does_not_fit.empty()) throw Error(cap.does_not_fit);
  std::unique_ptr<RequestSource> source = OpenRequestSource(r, hooks);
  const StepModelOptions timer_options = TimerOptions(d, r);
  const StepModel timer(d.model, cap, d.gpu, timer_options);
  ReplayStatistics fleet_stats(StatsOptions(r, cap, timer_options));
  LoadCheckObserver load_check;
  NoSource no_source;
  std::vector<Replica> replicas(static_cast<size_t>(r.replicas));
  for (Replica& rep : replicas) {
    rep.allocator = MakeAllocator(d, r, cap);
    rep.stats = std::make_unique<ReplayStatistics>(StatsOptions(r, cap, timer_options));
    rep.block_size = cap.settings.block_size;
    rep.usable_blocks = r.allocator == AllocatorKind::kPaged ? std::max<int64_t>(1, cap.usable_gpu_blocks) : 0;
    std::vector<ReplayObserver*> observers = {rep.stats.get(), &fleet_stats, &load_check};
    observers.insert(observers.end(), hooks.observers.begin(), hooks.observers.end());
    rep.engine = std::make_unique<ReplayEngine>(MakeEngineOptions(d, r, cap), *rep.allocator, timer, std::move(observers),
                                                no_source);
  }
  Router router(r.router, static_cast<int>(r.replicas));
  std::vector<int64_t> routed(replicas.size(), 0);
  LoadSeries series(replicas.size());
  const auto t0 = std::chrono::steady_clock::now();
  const bool partial = RunEvents(replicas, router, *source, hooks, routed, series);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  EngineCounters total;
  int64_t peak_blocks = 0;
  for (const Replica& rep : replicas) {
    total.steps += rep.engine->counters().steps;
    total.events += rep.engine->counters().events;
    total.preemptions += rep.engine->counters().preemptions;
    peak_blocks = std::max(peak_blocks, rep.stats->peak_used_blocks());
  }
  ReplaySummary& s = result.summary;
  fleet_stats.FillSummary(s);
  s.requests.preemptions = total.preemptions;  // each replica counts its own
  FillRunSections(cap, r, total, wall_s, peak_blocks, timer, s);
  s.load_check = load_check.Result();
  s.partial = partial;
  std::shared_ptr<FleetSummary> fleet = SummarizeReplicas(replicas, routed, cap, r, timer);
  fleet->load_interval_s = series.interval_s();
  fleet->load_over_time = series.series();
  s.fleet = fleet;
  FinishSummary(r, *source, replicas.front().allocator->name(), d.gpu.id, s);
  return result;
}

}  // namespace kvsim
