#include "sim/fleet/event_loop.h"

#include <algorithm>
#include <deque>
#include <optional>

#include "kvcache/base/check.h"
#include "sim/fleet/earliest_replica.h"

namespace kvsim {

ReplicaLoad LoopReplica::Load() const {
  ReplicaLoad l;
  l.requests = engine->running() + engine->waiting();
  // KV use counts what the waiting requests' prompts will take: a router that saw only used
  // blocks would send every request of a burst to the replica that has not admitted them yet.
  const KvAllocator& allocator = engine->allocator();
  if (usable_blocks > 0) {
    const int64_t pending = (engine->waiting_tokens() + block_size - 1) / block_size;
    l.kv_used_fraction = static_cast<double>(allocator.UsedBlocks() + pending) / static_cast<double>(usable_blocks);
  } else {
    const KvAccounting a = allocator.Accounting();
    l.kv_used_fraction = a.capacity_slots > 0 ? static_cast<double>(a.used_slots()) / static_cast<double>(a.capacity_slots) : 0;
  }
  return l;
}

namespace {

// One loop for open and closed-loop load; the open loop's instance has none of the closed loop's
// code (speed: the plain replay runs through it once per stretch).
template <bool kClosedLoop>
LoopResult RunLoop(const std::vector<LoopReplica>& replicas, Router& router, RequestSource& source,
                   const LoopControl& control, LoadSeries* series, ClosedLoopClients* clients) {
  const size_t n = replicas.size();
  KVSIM_CHECK(n >= 1, "the event loop needs a replica");
  LoopResult result;
  result.routed.assign(n, 0);
  std::vector<int64_t>& routed = result.routed;
  // A closed loop's next arrival depends on every replica's replies: no replica may run ahead.
  const bool ahead = !kClosedLoop && (n == 1 || !router.NeedsLoads());
  std::vector<ReplicaLoad> loads(n);
  std::vector<std::deque<TraceRequest>> queued(n);
  // Each replica's next step start and next queued arrival (INT64_MAX: none); `earliest` holds when
  // each replica must next be stepped or take an arrival (see `update`).
  std::vector<int64_t> next_start(n, INT64_MAX), next_arrival(n, INT64_MAX), in_flight(n, 0);
  EarliestReplica earliest(n);
  auto record = [&](size_t i, int64_t t_ns) {
    if (!series) return;
    const ReplayEngine& e = *replicas[i].engine;
    const int64_t requests = e.running() + e.waiting();
    if (requests != in_flight[i]) series->Record(i, t_ns, in_flight[i] = requests);
  };
  // When a replica must next be stepped. Under a router that reads loads, not before the end of its
  // quiet decode steps: until then only its KV use grows, and the router asks for that only when
  // the replica could win (Router::PickFromBounds).
  auto update = [&](size_t i, int64_t t_ns) {
    const ReplayEngine& e = *replicas[i].engine;
    next_start[i] = e.Idle() ? INT64_MAX : e.now_ns();
    earliest.Set(i, ahead ? std::min(next_start[i], next_arrival[i]) : std::max(next_start[i], e.quiet_until_ns()));
    record(i, t_ns);
  };
  auto deliver = [&](size_t k, TraceRequest&& r) {
    const int64_t t = r.arrival_ns;
    replicas[k].engine->Deliver(std::move(r));
    update(k, t);
  };
  std::optional<TraceRequest> pending = source.Next();
  // Closed loop: when the pending request was scheduled; its arrival_ns is its send time.
  int64_t scheduled_ns = pending ? pending->arrival_ns : 0;
  auto read_next = [&] {
    pending = source.Next();
    if constexpr (kClosedLoop)
      if (pending) scheduled_ns = pending->arrival_ns;
  };
  auto route_ahead = [&] {
    const size_t k = static_cast<size_t>(router.Pick(*pending, loads));  // reads no load
    ++routed[k];
    if (queued[k].empty()) {
      next_arrival[k] = pending->arrival_ns;
      earliest.Set(k, std::min(next_start[k], next_arrival[k]));
    }
    queued[k].push_back(std::move(*pending));
    read_next();
  };
  int64_t steps = 0;
  // A replica steps on up to the next arrival it can receive (its own, or the next one the router
  // places): nothing another replica does can reach it before then, and a router reading loads
  // sees every replica after the steps that start before the arrival, as it would step by step
  // (speed: one reschedule per stretch, not per step). False when the stop flag ended the run.
  // speed: inlined, as one replica's replay runs through it once per stretch.
  // `until_reply` (closed loop, every client waiting): also stop once a reply ends anywhere.
  auto step_to = [&](size_t i, int64_t horizon, bool until_reply = false) __attribute__((always_inline)) {
    ReplayEngine& engine = *replicas[i].engine;
    // speed: counted in a local, as `steps` is reachable from the router's make_exact callback and
    // would be reloaded after every step.
    int64_t stepped_total = steps;
    if constexpr (kClosedLoop) (void)clients->TakeRelease();
    else (void)until_reply;
    do {
      const bool stepped = engine.StepOnce(horizon);
      if constexpr (kClosedLoop)
        if (until_reply && clients->TakeRelease()) {
          if (stepped) record(i, engine.now_ns());
          break;
        }
      if (!stepped) continue;
      record(i, engine.now_ns());
      if ((++stepped_total & 4095) == 0 && control.progress) control.progress(source.progress(), engine.now_ns());
      if (control.stop && control.stop->load(std::memory_order_relaxed)) return false;
    } while (!engine.Idle() && engine.now_ns() < horizon);
    steps = stepped_total;
    update(i, engine.now_ns());
    return true;
  };
  while (true) {
    const size_t next = earliest.replica();
    const int64_t first = earliest.time_ns();
    if constexpr (kClosedLoop)
      if (pending) pending->arrival_ns = clients->SendTimeNs(scheduled_ns);
    if (pending && pending->arrival_ns <= first) {
      if (ahead) {
        route_ahead();
        continue;
      }
      const int64_t t = pending->arrival_ns;
      for (size_t i = 0; i < n; ++i) {
        loads[i] = replicas[i].Load();
        loads[i].kv_lower_bound = next_start[i] < t;  // quiet steps left before t
      }
      auto make_exact = [&](size_t i) {
        if (!loads[i].kv_lower_bound) return;
        if (!result.stopped && !step_to(i, t)) result.stopped = true;
        loads[i] = replicas[i].Load();
      };
      const size_t k = static_cast<size_t>(router.PickFromBounds(*pending, loads, make_exact));
      if (!result.stopped && next_start[k] < t && !step_to(k, t)) result.stopped = true;
      if (result.stopped) return result;
      ++routed[k];
      if constexpr (kClosedLoop) clients->Sent(t);
      deliver(k, std::move(*pending));
      read_next();
      continue;
    }
    if (first == INT64_MAX) {
      // Every client waiting on a reply with every engine idle would be a lost reply.
      if constexpr (kClosedLoop) KVSIM_CHECK(!pending, "closed-loop clients wait on replies no engine holds");
      break;
    }
    if (next_arrival[next] <= next_start[next]) {
      std::deque<TraceRequest>& q = queued[next];
      next_arrival[next] = q.size() > 1 ? q[1].arrival_ns : INT64_MAX;
      deliver(next, std::move(q.front()));  // updates its key
      q.pop_front();
      continue;
    }
    // A replica running ahead must know its own next arrival: read until it has one.
    if (ahead)
      while (queued[next].empty() && pending) route_ahead();
    int64_t horizon = ahead ? next_arrival[next] : pending ? pending->arrival_ns : INT64_MAX;
    bool until_reply = false;
    if constexpr (kClosedLoop) {
      if (pending && horizon == INT64_MAX) {
        // Every client waits: a reply may end on any replica, at the earliest at the end of the
        // step another replica starts next, so this one steps no further than that start.
        until_reply = true;
        earliest.Set(next, INT64_MAX);
        horizon = earliest.time_ns();
        update(next, replicas[next].engine->now_ns());
      }
    }
    if (!step_to(next, horizon, until_reply)) {
      result.stopped = true;
      return result;
    }
  }
#ifndef NDEBUG
  for (const LoopReplica& r : replicas) KVSIM_DCHECK(r.engine->HeldBlocksSettled());  // every held block went to its request
#endif
  return result;
}

}  // namespace

LoopResult RunEventLoop(const std::vector<LoopReplica>& replicas, Router& router, RequestSource& source,
                        const LoopControl& control, LoadSeries* series, ClosedLoopClients* clients) {
  if (clients) return RunLoop<true>(replicas, router, source, control, series, clients);
  return RunLoop<false>(replicas, router, source, control, series, nullptr);
}

}  // namespace kvsim
