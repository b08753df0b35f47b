// What a replayed deployment costs at a per-GPU hourly price: GPU-hours over the replayed span
// (every GPU of every replica is paid for the whole span, busy or idle), dollars per million
// output tokens and output tokens per second per GPU.
#ifndef KVSIM_SIM_COST_H_
#define KVSIM_SIM_COST_H_

#include <cstdint>

#include <vector>

#include "sim/stats/replay_summary.h"

namespace kvsim {

// REQUIRES: gpu_hourly_usd > 0, replicas >= 1. Uses the summary's throughput, simulated time and
// TP x PP.
CostSummary ComputeCost(const ReplaySummary& summary, double gpu_hourly_usd, int64_t replicas);

// GPUs bought at one hourly price: a pool of a disaggregated deployment.
struct PricedGpus {
  int64_t gpus = 0;
  double hourly_usd = 0;
};
// REQUIRES: every pool with gpus >= 1 and a positive price. The summary's gpu_hourly_usd is the
// GPU-hour-weighted mean price.
CostSummary ComputeCostOfPools(const ReplaySummary& summary, const std::vector<PricedGpus>& pools);

}  // namespace kvsim

#endif  // KVSIM_SIM_COST_H_
