#include "sim/disagg/disagg_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <queue>
#include <unordered_map>
#include <utility>

#include "kvcache/base/error.h"
#include "kvcache/base/units.h"
#include "sim/fleet/event_loop.h"
#include "sim/run/lora_setup.h"
#include "sim/run/offload_setup.h"
#include "sim/run/replay_setup.h"
#include "sim/run/speculation_setup.h"
#include "sim/stats/cost.h"
#include "sim/stats/load_check.h"
#include "sim/stats/replay_stats.h"
#include "sim/timing/step_model.h"

namespace kvsim {
namespace {

// The decode pool's connector set-up work, summed over its instances.
struct ConnectorCounters {
  int64_t posts = 0;
  int64_t post_ns = 0;
};

// What the disaggregated loop keeps of a request between its two halves.
struct InFlight {
  TraceRequest request;       // as it arrived
  int64_t prefill_instance = 0;
};

struct Handoff {
  int64_t time_ns;
  uint64_t id;
  bool operator>(const Handoff& o) const { return time_ns != o.time_ns ? time_ns > o.time_ns : id > o.id; }
};

// A prefill instance's finished requests become decode arrivals; its rejections are the run's.
class PrefillDone final : public ReplayObserver {
 public:
  PrefillDone(std::priority_queue<Handoff, std::vector<Handoff>, std::greater<Handoff>>& handoffs,
              std::unordered_map<uint64_t, InFlight>& in_flight, ReplayObserver& run)
      : handoffs_(handoffs), in_flight_(in_flight), run_(run) {}
  void OnRequestDone(const RequestRecord& r) override {
    if (!r.rejected_reason.empty()) {
      RequestRecord rec = r;
      rec.output_tokens = in_flight_.at(r.id).request.output_tokens;
      rec.rejected_reason = "prefill: " + r.rejected_reason;
      in_flight_.erase(r.id);
      run_.OnRequestDone(rec);
      return;
    }
    handoffs_.push({r.finished_ns, r.id});
  }

 private:
  std::priority_queue<Handoff, std::vector<Handoff>, std::greater<Handoff>>& handoffs_;
  std::unordered_map<uint64_t, InFlight>& in_flight_;
  ReplayObserver& run_;
};

// A decode instance's view: its records carry the arrival at the prefill pool; steps go through.
class DecodeView final : public ReplayObserver {
 public:
  DecodeView(std::vector<ReplayObserver*> to, std::unordered_map<uint64_t, InFlight>& in_flight)
      : to_(std::move(to)), in_flight_(in_flight) {}
  void OnStep(const StepSample& s) override {
    for (ReplayObserver* o : to_) o->OnStep(s);
  }
  void OnStepRun(const StepRun& run) override {
    for (ReplayObserver* o : to_) o->OnStepRun(run);
  }
  void OnPrefixLookup(int64_t q, int64_t h) override {
    for (ReplayObserver* o : to_) o->OnPrefixLookup(q, h);
  }
  void OnPrefixRelookup(int64_t q, int64_t h) override {
    for (ReplayObserver* o : to_) o->OnPrefixRelookup(q, h);
  }
  void OnRequestDone(const RequestRecord& r) override {
    RequestRecord rec = r;
    auto it = in_flight_.find(r.id);
    if (it != in_flight_.end()) {
      rec.arrival_ns = it->second.request.arrival_ns;
      if (!rec.rejected_reason.empty()) rec.rejected_reason = "decode: " + rec.rejected_reason;
      in_flight_.erase(it);
    }
    for (ReplayObserver* o : to_) o->OnRequestDone(rec);
  }

 private:
  std::vector<ReplayObserver*> to_;
  std::unordered_map<uint64_t, InFlight>& in_flight_;
};

// A decode instance's side of the connector: with NIXL its worker posts each read on the host, one
// after another, before the step's forward (kv_connector.h); a read starts on the link once posted.
class DecodeRemote final : public RemoteKv {
 public:
  DecodeRemote(KvLinks& links, int64_t instance, const std::unordered_map<uint64_t, InFlight>& in_flight,
               KvConnectorKind connector, const NixlReadShape& shape, ConnectorCounters& counters)
      : links_(links), instance_(instance), in_flight_(in_flight), connector_(connector), shape_(shape), counters_(counters) {}
  int64_t StartTransfer(RequestId id, int64_t tokens, int64_t now_ns) override {
    int64_t start = now_ns;
    if (connector_ == KvConnectorKind::kNixl) {
      const int64_t post = NixlPostNs(NixlDescriptors(shape_, tokens));
      start = std::max(now_ns, host_free_ns_) + post;
      host_free_ns_ = start;
      step_host_ns_ += post;
      counters_.post_ns += post;
      ++counters_.posts;
    }
    return links_.Transfer(in_flight_.at(id).prefill_instance, instance_, tokens, start);
  }
  int64_t TakeStepHostNs() override { return std::exchange(step_host_ns_, 0); }

 private:
  KvLinks& links_;
  int64_t instance_;
  const std::unordered_map<uint64_t, InFlight>& in_flight_;
  KvConnectorKind connector_;
  NixlReadShape shape_;
  ConnectorCounters& counters_;
  int64_t host_free_ns_ = 0;  // the worker's host posts one read at a time
  int64_t step_host_ns_ = 0;  // posted since the step began
};

// One pool's instances and what each feature adds to them. A pool stays where it is built: the
// engines' options point into `lora`, `proposer` and `tiers`.
struct Pool {
  CapacityResult cap;
  StepModelOptions timer_options;
  std::unique_ptr<StepModel> timer;
  std::unique_ptr<DraftingTimer> proposer;  // MTP/EAGLE drafter's passes (null: none or not timed)
  LoraRun lora;                             // LoRA slots and kernels (max_loras 0: off)
  std::vector<std::unique_ptr<KvAllocator>> allocators;
  std::vector<std::unique_ptr<OffloadTiers>> tiers;  // per instance; null: no host/disk tier
  std::vector<std::unique_ptr<ReplayEngine>> engines;
  std::vector<LoopReplica> loop;
  std::unique_ptr<Router> router;
  std::vector<ReplicaLoad> loads;
  int64_t Pick(const TraceRequest& r) {
    if (router->NeedsLoads())
      for (size_t i = 0; i < loop.size(); ++i) loads[i] = loop[i].Load();
    return router->Pick(r, loads);
  }
  // The pool's engines are built with the features of the aggregated replay (replay_runner.cpp):
  // the drafter's timer, the LoRA slots and kernels, and each instance's KV tiers.
  void AddEngine(const Deployment& d, const ReplayOptions& r, ReplayObserver* observer) {
    EngineOptions eo = MakeEngineOptions(d, r, cap);
    if (proposer) eo.speculation.proposer = proposer.get();
    eo.lora = lora.options;
    const size_t i = engines.size();
    engines.push_back(std::make_unique<ReplayEngine>(eo, *allocators[i], *timer, std::vector<ReplayObserver*>{observer}));
    if (tiers[i]) engines.back()->SetOffloadTiers(tiers[i].get());
    loop[i].engine = engines.back().get();
  }
};

void BuildPool(const Deployment& d, const ReplayOptions& r, int64_t replicas, Pool& p) {
  p.cap = PlanCapacity(d.model, d.gpu, d.config);
  if (!p.cap.does_not_fit.empty()) throw Error(p.cap.does_not_fit);
  if (p.cap.settings.decode_context_parallel_size > 1)
    throw Error("--decode-context-parallel-size: with --prefill-replicas (P/D) not modelled: how the connector moves "
                "KV that DCP spreads over the decode ranks is not");
  p.timer_options = TimerOptions(d, r);
  p.timer = std::make_unique<StepModel>(d.model, p.cap, d.gpu, p.timer_options);
  p.proposer = MakeProposerTimer(d, p.cap, p.timer_options);
  MakeLoraRun(d, r, p.cap, p.timer_options, p.timer->EagerLaunchSeconds(), p.lora);
  for (int64_t i = 0; i < replicas; ++i) {
    p.allocators.push_back(MakeAllocator(d, r, p.cap));
    p.tiers.push_back(MakeOffloadTiers(d, r, p.cap));
    LoopReplica l;
    l.block_size = p.cap.settings.block_size;
    l.usable_blocks = std::max<int64_t>(1, p.cap.usable_gpu_blocks);
    p.loop.push_back(l);
  }
  p.router = MakeRouter(r.router, static_cast<int>(replicas));
  p.loads.resize(static_cast<size_t>(replicas));
}

EngineCounters SumCounters(const Pool& p) {
  EngineCounters t;
  for (const auto& e : p.engines) {
    const EngineCounters& c = e->counters();
    t.steps += c.steps;
    t.events += c.events;
    t.preemptions += c.preemptions;
    t.draft_tokens += c.draft_tokens;
    t.accepted_tokens += c.accepted_tokens;
    t.drafting_ns += c.drafting_ns;
    t.verify_steps += c.verify_steps;
    t.lora.gpu_loads += c.lora.gpu_loads;
    t.lora.disk_loads += c.lora.disk_loads;
    t.lora.load_ns += c.lora.load_ns;
    t.lora.kernel_ns += c.lora.kernel_ns;
    t.lora.host_ns += c.lora.host_ns;
    t.lora.lora_steps += c.lora.lora_steps;
    t.lora.waited_requests += c.lora.waited_requests;
    t.lora.requests += c.lora.requests;
    t.lora.max_step_adapters = std::max(t.lora.max_step_adapters, c.lora.max_step_adapters);
  }
  return t;
}

// One pool's section of the summary, with what its host tiers and adapters did.
DisaggSummary::Pool SummarizePool(const Pool& p, int64_t replicas, const ReplayOptions& r, const EngineCounters& counters) {
  DisaggSummary::Pool x;
  x.replicas = replicas;
  x.gpu = p.cap.settings.gpu_name;
  x.tensor_parallel_size = p.cap.settings.tensor_parallel_size;
  x.max_num_seqs = p.cap.settings.max_num_seqs;
  x.kv_blocks = p.cap.usable_gpu_blocks;
  if (p.tiers.front()) {
    std::vector<const OffloadStats*> stats;
    for (const auto& t : p.tiers) stats.push_back(&t->stats());
    const std::string connector = r.offload.connector.empty() ? "--kv-offload" : r.offload.connector;
    x.offload = std::make_shared<OffloadSummary>(SummarizeOffload(connector, stats, p.tiers.front()->chunk_tokens()));
  }
  if (p.lora.options.enabled())
    x.lora = std::make_shared<LoraSummary>(SummarizeLora(p.lora, counters.lora, counters.lora.requests));
  return x;
}

}  // namespace

ReplayResult RunDisaggregatedReplay(const DisaggDeployment& dd, const ReplayOptions& r, const ReplayHooks& hooks) {
  if (dd.prefill_replicas < 1 || dd.decode_replicas < 1)
    throw Error("--prefill-replicas/--decode-replicas: each pool needs at least one instance");
  if (r.allocator != AllocatorKind::kPaged || r.scheduler != SchedulerKind::kVllmV1)
    throw Error("--prefill-replicas: disaggregation needs --allocator paged and --scheduler vllm (v1's connector API)");
  if (r.max_concurrency > 0)
    throw Error("--max-concurrency: closed-loop load is not replayed with --prefill-replicas/--decode-replicas here");
  if (dd.prefill.model.name != dd.decode.model.name) throw Error("--decode-*: both pools must serve the same model");
  // An adapter's KV is computed with its weights: the decode instance must serve the adapter the
  // prefill instance ran, so LoRA is on in both pools or in neither.
  if (dd.prefill.config.lora.enabled != dd.decode.config.lora.enabled)
    throw Error("--enable-lora: both pools serve the same adapters (the KV a prefill instance computes with an adapter is "
                "only valid under it)");
  Pool pre, dec;
  BuildPool(dd.prefill, r, dd.prefill_replicas, pre);
  BuildPool(dd.decode, r, dd.decode_replicas, dec);
  // The busiest GPU moves tokens x the larger of the two pools' per-GPU shares (kv_link.h).
  const double per_gpu = std::max(pre.cap.stages[pre.cap.bottleneck_stage].layout.bytes_per_token,
                                   dec.cap.stages[dec.cap.bottleneck_stage].layout.bytes_per_token);
  KvLinks links(dd.link, dd.prefill_replicas, dd.decode_replicas, per_gpu);

  std::unique_ptr<RequestSource> source = OpenRequestSource(r, hooks.preloaded);
  ReplayStatistics run_stats(StatsOptions(r, dec.cap, TimerOptions(dd.decode, r)));
  LoadCheckObserver load_check;
  std::unordered_map<uint64_t, InFlight> in_flight;
  std::priority_queue<Handoff, std::vector<Handoff>, std::greater<Handoff>> handoffs;
  PrefillDone prefill_done(handoffs, in_flight, run_stats);
  std::vector<ReplayObserver*> decode_to = {&run_stats, &load_check};
  decode_to.insert(decode_to.end(), hooks.observers.begin(), hooks.observers.end());
  DecodeView decode_view(decode_to, in_flight);
  std::vector<std::unique_ptr<DecodeRemote>> remotes;
  ConnectorCounters connector;
  const NixlReadShape read_shape = NixlReadShapeOf(dd.decode.model, pre.cap.settings, dec.cap.settings);
  std::vector<ReplayEngine*> engines;
  for (size_t i = 0; i < pre.allocators.size(); ++i) {
    pre.AddEngine(dd.prefill, r, &prefill_done);
    engines.push_back(pre.engines.back().get());
  }
  for (size_t i = 0; i < dec.allocators.size(); ++i) {
    dec.AddEngine(dd.decode, r, &decode_view);
    remotes.push_back(std::make_unique<DecodeRemote>(links, static_cast<int64_t>(i), in_flight, dd.connector, read_shape, connector));
    dec.engines.back()->SetRemoteKv(remotes.back().get());
    engines.push_back(dec.engines.back().get());
  }

  const auto t0 = std::chrono::steady_clock::now();
  std::optional<TraceRequest> pending = source->Next();
  int64_t arrivals = 0, steps = 0;
  bool stopped = false;
  while (true) {
    const int64_t t_arrival = pending ? pending->arrival_ns : INT64_MAX;
    const int64_t t_handoff = handoffs.empty() ? INT64_MAX : handoffs.top().time_ns;
    size_t next = 0;
    int64_t t_step = INT64_MAX, t_prefill = INT64_MAX;
    for (size_t i = 0; i < engines.size(); ++i) {
      if (engines[i]->Idle()) continue;
      if (engines[i]->now_ns() < t_step) t_step = engines[i]->now_ns(), next = i;
      if (i < pre.engines.size()) t_prefill = std::min(t_prefill, engines[i]->now_ns());
    }
    if (t_arrival <= t_step && t_arrival <= t_handoff && pending) {
      const int64_t k = pre.Pick(*pending);
      InFlight f{*pending, k};
      TraceRequest first = std::move(*pending);
      first.output_tokens = 1;  // the proxy asks the prefill instance for one token
      in_flight.emplace(first.id, std::move(f));
      pre.engines[static_cast<size_t>(k)]->Deliver(std::move(first));
      ++arrivals;
      pending = source->Next();
      continue;
    }
    if (t_handoff <= t_step && t_handoff != INT64_MAX) {
      const Handoff h = handoffs.top();
      handoffs.pop();
      TraceRequest second = in_flight.at(h.id).request;
      second.arrival_ns = h.time_ns;
      const int64_t k = dec.Pick(second);
      dec.engines[static_cast<size_t>(k)]->Deliver(std::move(second));
      continue;
    }
    if (t_step == INT64_MAX) break;
    // A decode instance waiting for KV, or running a quiet run of decodes, stops where a prefill
    // instance still stepping could hand a request over: no handoff reaches it late.
    int64_t horizon = std::min(t_arrival, t_handoff);
    if (next >= pre.engines.size()) horizon = std::min(horizon, t_prefill);
    if (engines[next]->StepOnce(horizon) && (++steps & 4095) == 0) {
      if (hooks.progress) hooks.progress(source->progress(), engines[next]->now_ns());
      if (hooks.stop && hooks.stop->load(std::memory_order_relaxed)) {
        stopped = true;
        break;
      }
    }
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (arrivals == 0 && !stopped) throw Error(source->Describe() + ": no requests to replay (the trace, or the window of it, is empty)");

  ReplayResult result;
  result.capacity = dec.cap;
  ReplaySummary& s = result.summary;
  run_stats.FillSummary(s);
  const EngineCounters pre_counters = SumCounters(pre), dec_counters = SumCounters(dec);
  // Steps, events and preemptions of both pools; speculation runs on the decode pool only (a prefill
  // instance samples one token and never verifies drafts), so its figures are the decode pool's.
  EngineCounters total = dec_counters;
  total.steps += pre_counters.steps;
  total.events += pre_counters.events;
  total.preemptions += pre_counters.preemptions;
  s.requests.preemptions = total.preemptions;
  FillRunSections(dec.cap, r, total, wall_s, run_stats.peak_used_blocks(), *dec.timer, s);
  s.load_check = load_check.Result();
  s.partial = stopped;
  auto d = std::make_shared<DisaggSummary>();
  d->prefill = SummarizePool(pre, dd.prefill_replicas, r, pre_counters);
  d->decode = SummarizePool(dec, dd.decode_replicas, r, dec_counters);
  d->link = dd.link.name;
  d->link_gb_per_s = dd.link.bytes_per_s / 1e9;
  d->link_latency_s = static_cast<double>(dd.link.latency_ns) * 1e-9;
  d->transfers = links.transfers();
  d->transfer_gib_per_gpu = std::round(BytesToGiB(links.bytes()) * 1e4) / 1e4;
  const double n = static_cast<double>(std::max<int64_t>(1, links.transfers()));
  d->mean_transfer_s = std::round(static_cast<double>(links.busy_ns()) * 1e-9 / n * 1e6) / 1e6;
  d->mean_link_wait_s = std::round(static_cast<double>(links.wait_ns()) * 1e-9 / n * 1e6) / 1e6;
  d->connector = KvConnectorName(dd.connector);
  const double posts = static_cast<double>(std::max<int64_t>(1, connector.posts));
  d->mean_post_s = std::round(static_cast<double>(connector.post_ns) * 1e-9 / posts * 1e6) / 1e6;
  s.disagg = d;
  FinishSummary(r, *source, dec.allocators.front()->name(), dd.decode.gpu.id, s);
  AddFeatureWarnings(dd.decode, r, dec.cap, dec.timer_options, s);
  // Both pools are paid for the whole span, each GPU at its own price.
  const double prefill_usd = GpuHourlyCost(r, dd.prefill.gpu.id), decode_usd = GpuHourlyCost(r, dd.decode.gpu.id);
  s.cost.reset();
  if (prefill_usd > 0 && decode_usd > 0) {
    auto gpus = [](const Pool& p, int64_t replicas) {
      return replicas * p.cap.settings.tensor_parallel_size * p.cap.settings.pipeline_parallel_size;
    };
    s.cost = ComputeCostOfPools(s, {{gpus(pre, dd.prefill_replicas), prefill_usd}, {gpus(dec, dd.decode_replicas), decode_usd}});
  }
  return result;
}

}  // namespace kvsim
