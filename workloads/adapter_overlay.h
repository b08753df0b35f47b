// Which LoRA adapter each request asks for, drawn when the trace does not say (--adapters N
// --adapter-popularity zipf:S | uniform): an overlay on any request source. Adapter k (1..N) is
// chosen with probability proportional to 1/k^S (zipf) or 1/N (uniform), one draw per request from
// the run's seed, so a run is reproducible; the turns of one conversation (a session id, e.g. from
// --conversations) share the adapter drawn for the session.
#ifndef KVSIM_WORKLOADS_ADAPTER_OVERLAY_H_
#define KVSIM_WORKLOADS_ADAPTER_OVERLAY_H_

#include <cstdint>
#include <memory>
#include <string>

#include "workloads/request_source.h"

namespace kvsim {

struct AdapterOverlayOptions {
  int64_t adapters = 0;   // N; 0: no overlay
  double zipf_s = 0;      // 0: uniform
  uint64_t seed = 1;
  bool active() const { return adapters > 0; }
};

// Parses --adapter-popularity ("uniform" or "zipf:S", S > 0; empty: uniform). Throws kvsim::Error
// naming the option.
AdapterOverlayOptions ParseAdapterOverlay(int64_t adapters, const std::string& popularity, uint64_t seed);

// The probability that a request asks for adapter k (1-based) of the overlay: what the draws follow.
double AdapterProbability(const AdapterOverlayOptions& options, int64_t k);

std::unique_ptr<RequestSource> ApplyAdapterOverlay(std::unique_ptr<RequestSource> source, const AdapterOverlayOptions& options);

}  // namespace kvsim

#endif  // KVSIM_WORKLOADS_ADAPTER_OVERLAY_H_
