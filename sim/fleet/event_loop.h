// The replay's one event loop, for one replica or N: the trace's arrivals are routed to replicas
// (sim/fleet/router.h), and the replica whose next event comes first takes it, each with its own
// scheduler, KV allocator and step clock (sim/engine/replay_engine.h), under one global clock.
//
// An arrival is routed when it comes no later than every replica's next event (a single engine,
// too, admits arrivals due at a step's start into that step). A router that reads the replicas'
// loads routes each request when its time comes, and every quiet run ends at the next arrival
// anywhere; one that does not (round-robin, or any router of one replica) routes requests as they
// are read into per-replica queues, and a replica runs ahead to its own next arrival.
//
// Under closed-loop load (closed_loop_clients.h) a request's arrival is its send time, known only
// once a client is free: the loop routes each request when its time comes, as under a router that
// reads loads, and while every client waits it steps replicas no further than any other replica's
// next step start, so a reply that ends anywhere frees its client in time order.
#ifndef KVSIM_SIM_FLEET_EVENT_LOOP_H_
#define KVSIM_SIM_FLEET_EVENT_LOOP_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "sim/engine/replay_engine.h"
#include "sim/fleet/closed_loop_clients.h"
#include "sim/fleet/load_series.h"
#include "sim/fleet/router.h"
#include "workloads/request_source.h"

namespace kvsim {

// What the loop drives and the routers read of one replica.
struct LoopReplica {
  ReplayEngine* engine = nullptr;
  int64_t usable_blocks = 0;  // paged pools; 0: KV use from the allocator's accounting
  int64_t block_size = 16;
  ReplicaLoad Load() const;
};

struct LoopControl {
  std::function<void(double progress, int64_t now_ns)> progress;  // every 4,096 steps
  const std::atomic<bool>* stop = nullptr;  // polled every step; true ends the run
};

struct LoopResult {
  bool stopped = false;         // the stop flag ended the run before the trace did
  std::vector<int64_t> routed;  // requests per replica
};

// Replays `source` through the replicas. `series` (optional) records each replica's requests over time.
// `clients` (optional; it must observe every replica's engine) makes the load closed-loop: the
// source's arrival times are then when requests are scheduled, and each is sent when a client is free.
LoopResult RunEventLoop(const std::vector<LoopReplica>& replicas, Router& router, RequestSource& source,
                        const LoopControl& control, LoadSeries* series = nullptr,
                        ClosedLoopClients* clients = nullptr);

}  // namespace kvsim

#endif  // KVSIM_SIM_FLEET_EVENT_LOOP_H_
