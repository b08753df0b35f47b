// Where a replay's requests come from: the trace file streamed through its window, the synthetic
// workload, either with --shared-prefix / --conversations laid over it, or a trace read once into
// memory and shared (read-only) by many runs, which is how sweeps avoid re-reading and re-parsing it
// per point.
#ifndef KVSIM_SIM_RUN_REQUEST_SOURCES_H_
#define KVSIM_SIM_RUN_REQUEST_SOURCES_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/run/replay_options.h"
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
// rate-scaled: each run applies its own --rate-scale to a preloaded trace. `*stop` is polled
// every 4,096 requests; once true the read ends, marked partial.
std::shared_ptr<const PreloadedTrace> PreloadTrace(const ReplayOptions& options, const std::atomic<bool>* stop = nullptr);

// The preloaded trace (rate-scaled for this run) or, when null, the trace file streamed through its window.
std::unique_ptr<RequestSource> OpenRequestSource(const ReplayOptions& options,
                                                 const std::shared_ptr<const PreloadedTrace>& preloaded);

// Whether the requests carry prefix block ids (Mooncake hash_ids, or an overlay's shared prefixes).
bool TraceHasBlockIds(const ReplayOptions& options);

}  // namespace kvsim

#endif  // KVSIM_SIM_RUN_REQUEST_SOURCES_H_
