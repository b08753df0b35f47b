// The replay's summary in the result schema of `vllm bench serve` (vllm/benchmarks/serve.py,
// calculate_metrics and the result dict it saves with --save-result: completed, duration,
// request_throughput, output_throughput, mean_/median_/std_/p90_/p99_ of ttft, tpot, itl and e2el in
// ms), so a prediction sits beside a measurement key by key. ttft is what the client measures
// (latency_s.ttft); `std_itl_ms` is absent because kvsim keeps inter-token latency as a weighted sketch.
#ifndef KVSIM_REPORTS_BENCH_JSON_H_
#define KVSIM_REPORTS_BENCH_JSON_H_

#include <nlohmann/json.hpp>

#include "sim/stats/replay_summary.h"

namespace kvsim {

nlohmann::json ReplaySummaryToBenchJson(const ReplaySummary& summary);

}  // namespace kvsim

#endif  // KVSIM_REPORTS_BENCH_JSON_H_
