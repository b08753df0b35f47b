// Transforms applied to a streaming trace, in this order:
//   1. --start / --duration: keep arrivals in [start, start + duration) seconds, rebased to 0;
//   2. --repeat K: tile the (windowed) trace K times back to back, each copy starting one mean
//      inter-arrival gap after the previous copy's last arrival (the source is reopened each time);
//   3. --rate-scale S: arrival times divided by S (S > 1 compresses: more load);
//   4. --max-requests N: stop after N requests.
// Request ids are renumbered 0, 1, 2, ... in output order. Streaming throughout.
#ifndef KVSIM_WORKLOADS_TRACE_WINDOW_H_
#define KVSIM_WORKLOADS_TRACE_WINDOW_H_

#include <functional>
#include <memory>

#include "workloads/request_source.h"

namespace kvsim {

struct WindowOptions {
  int64_t max_requests = 0;  // 0: all
  double start_s = 0;
  double duration_s = 0;     // 0: to the end
  double rate_scale = 1.0;
  int64_t repeat = 1;
};

using SourceFactory = std::function<std::unique_ptr<RequestSource>()>;

// Throws kvsim::Error for a rate scale <= 0, repeat < 1, negative start or duration.
std::unique_ptr<RequestSource> ApplyWindow(SourceFactory open, const WindowOptions& options);

}  // namespace kvsim

#endif  // KVSIM_WORKLOADS_TRACE_WINDOW_H_
