// The replay's summary: JSON (the keys issue 4 lists, plus the effective configuration) and the
// console rendering of that JSON.
#ifndef KVSIM_REPORTS_REPLAY_SUMMARY_H_
#define KVSIM_REPORTS_REPLAY_SUMMARY_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvcache/capacity_planner.h"
#include "reports/replay_recorder.h"
#include "sim/replay_engine.h"
#include "workloads/trace_window.h"

namespace kvsim {

struct ReplayRunInfo {
  std::string trace;
  std::string scheduler;
  std::string allocator;
  std::string stepping;
  std::string step_model;
  double wall_s = 0;
  uint64_t seed = 0;
  WindowOptions window;
  int64_t skipped_rows = 0;
  std::vector<std::string> warnings;
};

// Keys: requests, concurrency, kv, memory_gib, waste, waste_saturated, prefix_cache, latency_s,
// throughput, sim, config (capacity settings + replay settings), kvsim_version.
nlohmann::json BuildReplaySummary(const CapacityResult& capacity, const ReplayRecorder& recorder,
                                  const EngineCounters& counters, const ReplayRunInfo& info, int64_t block_bytes);

std::string RenderReplayText(const nlohmann::json& summary);

}  // namespace kvsim

#endif  // KVSIM_REPORTS_REPLAY_SUMMARY_H_
