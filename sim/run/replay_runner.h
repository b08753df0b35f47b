// One replay, start to finish, without the command line: used by `kvsim replay` and many times
// over by `kvsim compare` and `kvsim sweep`. One set-up path and one event loop
// (sim/fleet/event_loop.h) serve a single replica and a fleet of N behind a router. A caller may
// preload the trace once and share it between runs (read-only), and may pass observers of its own
// (CSV writers, chart recorders) beside the statistics.
#ifndef KVSIM_SIM_RUN_REPLAY_RUNNER_H_
#define KVSIM_SIM_RUN_REPLAY_RUNNER_H_

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/deployment.h"
#include "sim/engine/replay_observer.h"
#include "sim/run/replay_options.h"
#include "sim/run/request_sources.h"
#include "sim/stats/replay_summary.h"

namespace kvsim {

struct ReplayResult {
  CapacityResult capacity;
  ReplaySummary summary;
};

// Optional hooks of one run.
struct ReplayHooks {
  std::shared_ptr<const PreloadedTrace> preloaded;      // null: stream the trace from its file
  std::vector<ReplayObserver*> observers;               // see every step and request after the statistics
  std::function<void(double progress, int64_t now_ns)> progress;  // every 4,096 steps
  const std::atomic<bool>* stop = nullptr;  // polled every step; true ends the run, marked partial
  bool check_invariants = false;  // run each allocator inside CheckedAllocator (tests: O(pool) per operation)
};

// options.replicas engines behind options.router; the summary's `fleet` section (one summary per
// replica, the imbalance, the load over time) when there are several or options.fleet_report.
// Throws kvsim::Error for bad settings or input, including a deployment that does not fit, and for
// --timeseries/--requests with several replicas.
ReplayResult RunReplay(const Deployment& deployment, const ReplayOptions& options, const ReplayHooks& hooks = {});

}  // namespace kvsim

#endif  // KVSIM_SIM_RUN_REPLAY_RUNNER_H_
