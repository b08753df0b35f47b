// The KV tiers of a replay's replicas (kvcache/offload/offload_tiers.h) from the options and the
// planned deployment, and their section of the summary.
#ifndef KVSIM_SIM_RUN_OFFLOAD_SETUP_H_
#define KVSIM_SIM_RUN_OFFLOAD_SETUP_H_

#include <memory>

#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/deployment.h"
#include "kvcache/offload/offload_tiers.h"
#include "sim/run/replay_options.h"
#include "sim/stats/offload_summary.h"

namespace kvsim {

// Throws kvsim::Error naming --kv-offload when the options configure tiers the deployment and trace
// cannot use (chunks are found by prefix keys: prefix caching off, or a trace without block ids).
// Needs no trace read and no capacity plan, so commands that run many replays check it before any.
void CheckOffloadInputs(const Deployment& deployment, const ReplayOptions& options);

// One replica's tiers, or null when the options configure none. Throws kvsim::Error naming the
// flag when the tiers cannot work (no prefix keys, a chunk that is not whole blocks, no host link figure).
std::unique_ptr<OffloadTiers> MakeOffloadTiers(const Deployment& deployment, const ReplayOptions& options,
                                               const CapacityResult& capacity);

}  // namespace kvsim

#endif  // KVSIM_SIM_RUN_OFFLOAD_SETUP_H_
