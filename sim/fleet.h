// A fleet: N independent replicas of one deployment (each its own scheduler, KV allocator and step
// clock) behind a router (sim/router.h), replaying one trace under one global clock. The next
// event is always the earliest of the trace's next arrival and the replicas' next step starts; an
// arrival at the same time as a step start is routed first (a single engine, too, admits arrivals
// due at a step's start into that step). The summary covers the fleet as a whole (latencies over
// every request, throughput over the fleet's span, peaks of the busiest replica) and carries one
// summary per replica in `fleet`.
#ifndef KVSIM_SIM_FLEET_H_
#define KVSIM_SIM_FLEET_H_

#include "kvcache/budget/deployment.h"
#include "sim/replay_runner.h"

namespace kvsim {

// options.replicas engines (one allowed: the fleet section for one replica). Throws kvsim::Error
// like RunReplay, and for --timeseries/--requests with several replicas.
ReplayResult RunFleet(const Deployment& deployment, const ReplayOptions& options, const ReplayHooks& hooks = {});

}  // namespace kvsim

#endif  // KVSIM_SIM_FLEET_H_
