// What a replayed deployment costs at a per-GPU hourly price: GPU-hours over the replayed span
// (every GPU of every replica is paid for the whole span, busy or idle), dollars per million
// output tokens and output tokens per second per GPU.
#ifndef KVSIM_SIM_COST_H_
#define KVSIM_SIM_COST_H_

#include <cstdint>

#include "sim/stats/replay_summary.h"

namespace kvsim {

// REQUIRES: gpu_hourly_usd > 0, replicas >= 1. Uses the summary's throughput, simulated time and
// TP x PP.
CostSummary ComputeCost(const ReplaySummary& summary, double gpu_hourly_usd, int64_t replicas);

}  // namespace kvsim

#endif  // KVSIM_SIM_COST_H_
