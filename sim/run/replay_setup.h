// The pieces of a replay built from the deployment and the options, the same for one replica or
// N: each replica's KV allocator and engine settings, the step timer's and the statistics'
// options, and the summary sections the statistics do not own.
#ifndef KVSIM_SIM_RUN_REPLAY_SETUP_H_
#define KVSIM_SIM_RUN_REPLAY_SETUP_H_

#include <cstdint>
#include <memory>
#include <string>

#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/deployment.h"
#include "kvcache/kv_allocator.h"
#include "sim/engine/replay_engine.h"
#include "sim/run/replay_options.h"
#include "sim/stats/replay_stats.h"
#include "sim/stats/replay_summary.h"
#include "sim/timing/step_timer.h"
#include "workloads/request_source.h"

namespace kvsim {

// One replica's KV allocator over the planned pool. Throws kvsim::Error for a pool under 2 blocks.
// The tokens a block of vLLM's block table spans: under decode context parallelism one block id names
// a block on each of the dcp ranks, block_size x dcp tokens in all (vllm/v1/worker/block_table.py,
// the "virtual block").
int64_t SchedulerBlockSize(const CapacityResult& capacity);

std::unique_ptr<KvAllocator> MakeAllocator(const Deployment& deployment, const ReplayOptions& options,
                                           const CapacityResult& capacity);
StepModelOptions TimerOptions(const Deployment& deployment, const ReplayOptions& options);
ReplayStatsOptions StatsOptions(const ReplayOptions& options, const CapacityResult& capacity, const StepModelOptions& timer);
EngineOptions MakeEngineOptions(const Deployment& deployment, const ReplayOptions& options, const CapacityResult& capacity);
// Memory, the run's counters and the configuration.
void FillRunSections(const CapacityResult& capacity, const ReplayOptions& options, const EngineCounters& counters,
                     double wall_s, int64_t peak_used_blocks, const StepTimer& timer, ReplaySummary& summary);
// The trace's description and skipped rows, the allocator's name and the cost (with --gpu-hourly-cost).
void FinishSummary(const ReplayOptions& options, const RequestSource& source, const std::string& allocator_name,
                   const std::string& gpu_id, ReplaySummary& summary);
// What the run's features leave out, said in the summary's warnings: adapters nobody uses, experts
// without adapters, kernels and drafter passes a fixed step time does not add, untimed disk writes.
void AddFeatureWarnings(const Deployment& deployment, const ReplayOptions& options, const CapacityResult& capacity,
                        const StepModelOptions& timer, ReplaySummary& summary);

}  // namespace kvsim

#endif  // KVSIM_SIM_RUN_REPLAY_SETUP_H_
