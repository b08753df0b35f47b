#include "sim/fleet.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <deque>
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

// Requests per replica over time (running + waiting), the maximum per interval; the interval
// doubles (pairs merged) whenever the run outgrows kIntervals of them, so memory is constant. Each
// replica's count is recorded when it changes, in that replica's time order (replicas may run
// ahead of each other); a count holds until the replica's next record.
class LoadSeries {
 public:
  explicit LoadSeries(size_t replicas) : series_(replicas), last_(replicas) {}
  void Record(size_t replica, int64_t t_ns, int64_t requests) {
    while (t_ns >= kIntervals * width_ns_) Widen();
    std::vector<int64_t>& s = series_[replica];
    Last& last = last_[replica];
    // speed: most records fall in the interval of the replica's previous one (no division).
    if (t_ns >= last.end_ns) {
      const size_t k = static_cast<size_t>(t_ns / width_ns_);
      if (s.size() <= k) s.resize(k + 1, 0);
      for (size_t i = last.interval; i < k; ++i) s[i] = std::max(s[i], last.requests);  // held since then
      last.interval = k;
      last.end_ns = static_cast<int64_t>(k + 1) * width_ns_;
    }
    s[last.interval] = std::max({s[last.interval], last.requests, requests});
    last.t_ns = t_ns;
    last.requests = requests;
  }
  double interval_s() const { return static_cast<double>(width_ns_) / 1e9; }
  const std::vector<std::vector<int64_t>>& series() const { return series_; }

 private:
  struct Last {
    int64_t t_ns = 0, requests = 0;
    size_t interval = 0;  // t_ns's interval; ends at end_ns
    int64_t end_ns = 0;
  };
  void Widen() {
    for (auto& s : series_) {
      for (size_t i = 0; i < s.size(); i += 2) s[i / 2] = std::max(s[i], i + 1 < s.size() ? s[i + 1] : 0);
      s.resize((s.size() + 1) / 2);
    }
    width_ns_ *= 2;
    for (Last& l : last_) {
      l.interval = static_cast<size_t>(l.t_ns / width_ns_);
      l.end_ns = static_cast<int64_t>(l.interval + 1) * width_ns_;
    }
  }
  static constexpr int64_t kIntervals = 512;
  int64_t width_ns_ = 1'000'000'000;
  std::vector<std::vector<int64_t>> series_;
  std::vector<Last> last_;
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

// The replica with the earliest next event (a step start or a queued arrival), kept in a
// tournament tree: a replica's change replays its path to the root (log2 N matches) instead of the
// loop scanning every replica per event. Ties go to the lower index, as a scan's would.
class EarliestReplica {
 public:
  explicit EarliestReplica(size_t n) : leaves_(std::bit_ceil(std::max<size_t>(n, 1))), key_(2 * leaves_, INT64_MAX), winner_(2 * leaves_) {
    for (size_t i = 0; i < leaves_; ++i) winner_[leaves_ + i] = i;
    for (size_t v = leaves_ - 1; v >= 1; --v) Match(v);
  }
  void Set(size_t replica, int64_t t_ns) {
    size_t v = leaves_ + replica;
    key_[v] = t_ns;
    for (v /= 2; v >= 1; v /= 2) Match(v);
  }
  size_t replica() const { return winner_[1]; }
  int64_t time_ns() const { return key_[1]; }

 private:
  void Match(size_t v) {
    const size_t a = 2 * v, b = 2 * v + 1;
    const size_t w = key_[b] < key_[a] ? b : a;  // the left (lower indices) wins ties
    key_[v] = key_[w];
    winner_[v] = winner_[w];
  }
  size_t leaves_;
  std::vector<int64_t> key_;   // nodes 1.. (leaves from leaves_)
  std::vector<size_t> winner_;
};

// The global event loop: an arrival is routed when it comes no later than every replica's next
// event; otherwise the replica whose next event comes first takes it (a queued arrival, or a step).
// A router that reads the replicas' loads routes each request when its time comes, and every quiet
// run ends at the next arrival anywhere; one that does not (round-robin) routes requests as they
// are read into per-replica queues, and a replica's runs end only at its own next arrival. Returns
// true when the stop flag ended the run.
bool RunEvents(std::vector<Replica>& replicas, Router& router, RequestSource& source, const ReplayHooks& hooks,
               std::vector<int64_t>& routed, LoadSeries& series) {
  const size_t n = replicas.size();
  const bool ahead = !router.NeedsLoads();
  std::vector<ReplicaLoad> loads(n);
  std::vector<std::deque<TraceRequest>> queued(n);
  // Each replica's next step start and next queued arrival (INT64_MAX: none); `earliest` holds the
  // smaller of the two per replica.
  std::vector<int64_t> next_start(n, INT64_MAX), next_arrival(n, INT64_MAX), in_flight(n, 0);
  EarliestReplica earliest(n);
  auto record = [&](size_t i, int64_t t_ns) {
    const ReplayEngine& e = *replicas[i].engine;
    const int64_t requests = e.running() + e.waiting();
    if (requests != in_flight[i]) series.Record(i, t_ns, in_flight[i] = requests);
  };
  auto update = [&](size_t i, int64_t t_ns) {
    const ReplayEngine& e = *replicas[i].engine;
    next_start[i] = e.Idle() ? INT64_MAX : e.now_ns();
    earliest.Set(i, std::min(next_start[i], next_arrival[i]));
    record(i, t_ns);
  };
  auto deliver = [&](size_t k, TraceRequest r) {
    const int64_t t = r.arrival_ns;
    replicas[k].engine->Deliver(std::move(r));
    update(k, t);
  };
  std::optional<TraceRequest> pending = source.Next();
  auto route_ahead = [&] {
    const size_t k = static_cast<size_t>(router.Pick(*pending, loads));  // reads no load
    ++routed[k];
    if (queued[k].empty()) {
      next_arrival[k] = pending->arrival_ns;
      earliest.Set(k, std::min(next_start[k], next_arrival[k]));
    }
    queued[k].push_back(std::move(*pending));
    pending = source.Next();
  };
  int64_t steps = 0;
  while (true) {
    const size_t next = earliest.replica();
    const int64_t first = earliest.time_ns();
    if (pending && pending->arrival_ns <= first) {
      if (ahead) {
        route_ahead();
        continue;
      }
      for (size_t i = 0; i < n; ++i) loads[i] = replicas[i].Load();
      const size_t k = static_cast<size_t>(router.Pick(*pending, loads));
      ++routed[k];
      TraceRequest r = std::move(*pending);
      pending = source.Next();
      deliver(k, std::move(r));
      continue;
    }
    if (first == INT64_MAX) return false;
    if (next_arrival[next] <= next_start[next]) {
      TraceRequest r = std::move(queued[next].front());
      queued[next].pop_front();
      next_arrival[next] = queued[next].empty() ? INT64_MAX : queued[next].front().arrival_ns;
      deliver(next, std::move(r));  // updates its key
      continue;
    }
    // A replica running ahead must know its own next arrival: read until it has one.
    if (ahead)
      while (queued[next].empty() && pending) route_ahead();
    const int64_t horizon = ahead ? next_arrival[next] : pending ? pending->arrival_ns : INT64_MAX;
    ReplayEngine& engine = *replicas[next].engine;
    // A replica running ahead steps on up to its next arrival: nothing another replica does can
    // reach it before then (speed: one reschedule per stretch, not per step).
    do {
      const bool stepped = engine.StepOnce(horizon);
      if (!stepped) continue;
      record(next, engine.now_ns());
      if ((++steps & 4095) == 0 && hooks.progress) hooks.progress(source.progress(), engine.now_ns());
      if (hooks.stop && hooks.stop->load(std::memory_order_relaxed)) return true;
    } while (ahead && !engine.Idle() && engine.now_ns() < horizon);
    update(next, engine.now_ns());
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
