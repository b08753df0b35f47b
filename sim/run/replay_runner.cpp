#include "sim/run/replay_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "kvcache/base/error.h"
#include "kvcache/base/process_memory.h"
#include "kvcache/base/text_format.h"
#include "kvcache/checked_allocator.h"
#include "sim/fleet/closed_loop_clients.h"
#include "sim/fleet/event_loop.h"
#include "sim/fleet/load_series.h"
#include "sim/fleet/router.h"
#include "sim/run/lora_setup.h"
#include "sim/run/offload_setup.h"
#include "sim/run/replay_setup.h"
#include "sim/run/speculation_setup.h"
#include "sim/stats/load_check.h"
#include "sim/stats/replay_stats.h"
#include "sim/timing/step_model.h"

namespace kvsim {
namespace {

struct Replica {
  std::unique_ptr<KvAllocator> allocator;
  std::unique_ptr<CheckedAllocator> checked;   // with ReplayHooks::check_invariants
  std::unique_ptr<ReplayStatistics> stats;     // its own figures, for the fleet section
  std::unique_ptr<ReplayEngine> engine;
  std::unique_ptr<OffloadTiers> tiers;          // KV tiers below the GPU (--kv-offload), or null
};

FleetSummary::Spread SpreadOf(const std::vector<double>& v) {
  FleetSummary::Spread s;
  for (double x : v) s.max = std::max(s.max, x), s.mean += x;
  s.mean = v.empty() ? 0 : std::round(s.mean / static_cast<double>(v.size()) * 1e6) / 1e6;
  return s;
}

// Per-replica summaries and the imbalance figures.
std::shared_ptr<FleetSummary> SummarizeReplicas(const std::vector<Replica>& replicas, const std::vector<int64_t>& routed,
                                                const CapacityResult& cap, const ReplayOptions& r, const StepTimer& timer) {
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

// A fleet's replicas each hold their own KV pool and engine state; the kernel lets a process
// reserve more than the machine has and kills it when the pages are touched. What the first
// replica took, times the replicas, is checked against what the machine can still give before the
// others are built. `first_bytes` <= 0: unknown (no /proc), nothing checked.
void CheckFleetFits(int64_t replicas, int64_t first_bytes) {
  const int64_t available = AvailableMemoryBytes();
  if (first_bytes <= 0 || available <= 0) return;
  const double need = static_cast<double>(first_bytes) * static_cast<double>(replicas - 1);
  if (need <= static_cast<double>(available)) return;
  throw Error(Format("--replicas %lld: the replay would need about %.1f GiB more (%.1f MiB per replica: its KV pool's "
                     "blocks and engine state, measured on the first) but this machine has %.1f GiB available; "
                     "give fewer replicas",
                     static_cast<long long>(replicas), need / (1 << 30), static_cast<double>(first_bytes) / (1 << 20),
                     static_cast<double>(available) / (1 << 30)));
}

}  // namespace

ReplayResult RunReplay(const Deployment& d, const ReplayOptions& r, const ReplayHooks& hooks) {
  if (r.replicas < 1) throw Error("--replicas: must be at least 1 (got " + std::to_string(r.replicas) + ")");
  if (r.replicas > 1 && (!r.timeseries_path.empty() || !r.requests_path.empty()))
    throw Error("--timeseries/--requests: not available with --replicas > 1 (the rows of the replicas would interleave)");
  const bool fleet_section = r.replicas > 1 || r.fleet_report;
  ReplayResult result;
  result.capacity = PlanCapacity(d.model, d.gpu, d.config);
  const CapacityResult& cap = result.capacity;
  if (!cap.does_not_fit.empty()) throw Error(cap.does_not_fit);
  std::unique_ptr<RequestSource> source = OpenRequestSource(r, hooks.preloaded);
  const StepModelOptions timer_options = TimerOptions(d, r);
  const StepModel timer(d.model, cap, d.gpu, timer_options);
  // The drafter's passes are timed on its own model, with the target's GPU, TP and options.
  const std::unique_ptr<DraftingTimer> proposer = MakeProposerTimer(d, cap, timer_options);
  // The whole run's statistics; a fleet's replicas keep their own besides.
  LoraRun lora;
  MakeLoraRun(d, r, cap, timer_options, timer.EagerLaunchSeconds(), lora);
  ReplayStatistics run_stats(StatsOptions(r, cap, timer_options));
  RequestEventsOf run_requests(run_stats);  // with a fleet section: the replicas' steps are added after the run
  LoadCheckObserver load_check;
  std::optional<ClosedLoopClients> clients;
  if (r.max_concurrency > 0) clients.emplace(r.max_concurrency);
  std::vector<Replica> replicas;
  std::vector<LoopReplica> loop_replicas;
  const int64_t resident_before = r.replicas > 1 ? ResidentBytes() : 0;
  for (int64_t i = 0; i < r.replicas; ++i) {
    if (i == 1) CheckFleetFits(r.replicas, ResidentBytes() - resident_before);
    Replica& rep = replicas.emplace_back();
    rep.allocator = MakeAllocator(d, r, cap);
    if (hooks.check_invariants) rep.checked = std::make_unique<CheckedAllocator>(*rep.allocator);
    std::vector<ReplayObserver*> observers;
    if (fleet_section) {
      rep.stats = std::make_unique<ReplayStatistics>(StatsOptions(r, cap, timer_options));
      observers.push_back(rep.stats.get());
      observers.push_back(&run_requests);
    } else {
      observers.push_back(&run_stats);
    }
    observers.push_back(&load_check);
    if (clients) observers.push_back(&*clients);
    observers.insert(observers.end(), hooks.observers.begin(), hooks.observers.end());
    KvAllocator& allocator = rep.checked ? static_cast<KvAllocator&>(*rep.checked) : *rep.allocator;
    EngineOptions eo = MakeEngineOptions(d, r, cap);
    if (proposer) eo.speculation.proposer = proposer.get();
    eo.lora = lora.options;
    rep.engine = std::make_unique<ReplayEngine>(eo, allocator, timer, std::move(observers));
    rep.tiers = MakeOffloadTiers(d, r, cap);
    if (rep.tiers) rep.engine->SetOffloadTiers(rep.tiers.get());
    LoopReplica l;
    l.engine = rep.engine.get();
    l.block_size = SchedulerBlockSize(cap);
    l.usable_blocks = r.allocator == AllocatorKind::kPaged ? std::max<int64_t>(1, cap.usable_gpu_blocks) : 0;
    loop_replicas.push_back(l);
  }
  std::unique_ptr<Router> router = MakeRouter(r.router, static_cast<int>(r.replicas));
  std::optional<LoadSeries> series;
  if (fleet_section) series.emplace(replicas.size());
  const auto t0 = std::chrono::steady_clock::now();
  const LoopResult run = RunEventLoop(loop_replicas, *router, *source, {hooks.progress, hooks.stop}, series ? &*series : nullptr,
                                      clients ? &*clients : nullptr);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  int64_t requests = 0;
  for (int64_t n : run.routed) requests += n;
  // An answer over no requests would look like one (every SLO met, nothing preempted).
  if (requests == 0 && !run.stopped)
    throw Error(source->Describe() + ": no requests to replay (the trace, or the window of it, is empty)");

  EngineCounters total;
  int64_t peak_blocks = 0;
  for (const Replica& rep : replicas) {
    if (rep.stats) run_stats.AddStepsOf(*rep.stats);
    total.steps += rep.engine->counters().steps;
    total.events += rep.engine->counters().events;
    total.preemptions += rep.engine->counters().preemptions;
    total.draft_tokens += rep.engine->counters().draft_tokens;
    total.accepted_tokens += rep.engine->counters().accepted_tokens;
    total.drafting_ns += rep.engine->counters().drafting_ns;
    total.verify_steps += rep.engine->counters().verify_steps;
    const LoraCounters& l = rep.engine->counters().lora;
    total.lora.gpu_loads += l.gpu_loads;
    total.lora.disk_loads += l.disk_loads;
    total.lora.load_ns += l.load_ns;
    total.lora.kernel_ns += l.kernel_ns;
    total.lora.host_ns += l.host_ns;
    total.lora.lora_steps += l.lora_steps;
    total.lora.waited_requests += l.waited_requests;
    total.lora.requests += l.requests;
    total.lora.max_step_adapters = std::max(total.lora.max_step_adapters, l.max_step_adapters);
    // The busiest replica's peak (the run's statistics see the replicas' steps interleaved).
    peak_blocks = std::max(peak_blocks, rep.stats ? rep.stats->peak_used_blocks() : run_stats.peak_used_blocks());
  }
  ReplaySummary& s = result.summary;
  run_stats.FillSummary(s);
  s.requests.preemptions = total.preemptions;  // each replica counts its own
  FillRunSections(cap, r, total, wall_s, peak_blocks, timer, s);
  s.load_check = load_check.Result();
  s.partial = run.stopped;
  if (fleet_section) {
    std::shared_ptr<FleetSummary> fleet = SummarizeReplicas(replicas, run.routed, cap, r, timer);
    fleet->load_interval_s = series->interval_s();
    fleet->load_over_time = series->series();
    s.fleet = fleet;
  }
  if (replicas.front().tiers) {
    std::vector<const OffloadStats*> tier_stats;
    for (const Replica& rep : replicas) tier_stats.push_back(&rep.tiers->stats());
    const std::string connector = r.offload.connector.empty() ? "--kv-offload" : r.offload.connector;
    s.offload = std::make_shared<OffloadSummary>(SummarizeOffload(connector, tier_stats, replicas.front().tiers->chunk_tokens()));
  }
  FinishSummary(r, *source, replicas.front().allocator->name(), d.gpu.id, s);
  if (clients)
    s.config.trace = "closed loop of " + std::to_string(clients->clients()) +
                     " clients (--max-concurrency: each sends its next request when its last one ends), over " + s.config.trace;
  if (d.config.lora.enabled) s.lora = std::make_shared<LoraSummary>(SummarizeLora(lora, total.lora, total.lora.requests));
  AddFeatureWarnings(d, r, cap, timer_options, s);
  return result;
}

}  // namespace kvsim
