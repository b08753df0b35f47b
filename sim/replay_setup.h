// The pieces of one replay that the single-engine run (replay_runner.cpp) and the fleet
// (fleet.cpp) build the same way: the request source, allocator, step-time and statistics
// options, and the summary sections the statistics do not own.
#ifndef KVSIM_SIM_REPLAY_SETUP_H_
#define KVSIM_SIM_REPLAY_SETUP_H_

#include <memory>
#include <string>

#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/deployment.h"
#include "kvcache/kv_allocator.h"
#include "sim/replay_engine.h"
#include "sim/replay_runner.h"
#include "sim/replay_stats.h"

namespace kvsim {

// The preloaded trace (rate-scaled per run) or the trace file streamed through its window.
std::unique_ptr<RequestSource> OpenRequestSource(const ReplayOptions& options, const ReplayHooks& hooks);
// One replica's KV allocator over the planned pool. Throws kvsim::Error for a pool under 2 blocks.
std::unique_ptr<KvAllocator> MakeAllocator(const Deployment& deployment, const ReplayOptions& options,
                                           const CapacityResult& capacity);
StepModelOptions TimerOptions(const Deployment& deployment, const ReplayOptions& options);
ReplayStatsOptions StatsOptions(const ReplayOptions& options, const CapacityResult& capacity, const StepModelOptions& timer);
EngineOptions MakeEngineOptions(const Deployment& deployment, const ReplayOptions& options, const CapacityResult& capacity);
// Memory, the run's counters and the configuration.
void FillRunSections(const CapacityResult& capacity, const ReplayOptions& options, const EngineCounters& counters,
                     double wall_s, int64_t peak_used_blocks, const StepModel& timer, ReplaySummary& summary);
// The trace's description and skipped rows, the allocator's name and the cost (with --gpu-hourly-cost).
void FinishSummary(const ReplayOptions& options, const RequestSource& source, const std::string& allocator_name,
                   const std::string& gpu_id, ReplaySummary& summary);

}  // namespace kvsim

#endif  // KVSIM_SIM_REPLAY_SETUP_H_
