// One replay, start to finish, without the command line: used by `kvsim replay` and many times
// over by `kvsim compare` and `kvsim sweep`. A caller may preload the trace once and share it
// between runs (read-only), which is how sweeps avoid re-reading and re-parsing it per point, and
// may pass observers of its own (CSV writers, chart recorders) beside the statistics.
#ifndef KVSIM_SIM_REPLAY_RUNNER_H_
#define KVSIM_SIM_REPLAY_RUNNER_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/deployment.h"
#include "sim/replay_observer.h"
#include "sim/replay_options.h"
#include "sim/replay_summary.h"
#include "workloads/request_source.h"

namespace kvsim {

// A whole trace in memory, for runs that share it.
struct PreloadedTrace {
  std::vector<TraceRequest> requests;
  int64_t skipped_rows = 0;
  std::string description;
  bool partial = false;  // the read was stopped (`stop`): not to be replayed
};
// Reads the trace (or generates the synthetic workload) the options describe, windowed but not
// rate-scaled: RunReplay applies each run's --rate-scale to a preloaded trace. `*stop` is polled
// every 4,096 requests; once true the read ends, marked partial.
std::shared_ptr<const PreloadedTrace> PreloadTrace(const ReplayOptions& options, const std::atomic<bool>* stop = nullptr);

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
  bool check_invariants = false;  // run the allocator inside CheckedAllocator (tests: O(pool) per operation)
};

// Throws kvsim::Error for bad settings or input, including a deployment that does not fit.
ReplayResult RunReplay(const Deployment& deployment, const ReplayOptions& options, const ReplayHooks& hooks = {});

}  // namespace kvsim

#endif  // KVSIM_SIM_REPLAY_RUNNER_H_
