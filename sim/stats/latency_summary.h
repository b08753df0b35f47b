// A latency distribution as reported: count, mean and the quantiles SLOs and reports name, in
// seconds. Filled by LatencyStats and WeightedHistogram alike.
#ifndef KVSIM_SIM_STATS_LATENCY_SUMMARY_H_
#define KVSIM_SIM_STATS_LATENCY_SUMMARY_H_

#include <cstdint>

namespace kvsim {

// Seconds, rounded to the microsecond.
struct LatencySummary {
  int64_t count = 0;
  double mean = 0, p50 = 0, p90 = 0, p99 = 0;
  double p999 = 0;  // for SLOs (sweeps); not in the replay JSON, whose keys stay as they were
  // Population standard deviation, as `vllm bench serve` reports it (numpy.std); has_std false where
  // a distribution is kept only as a weighted sketch (the inter-token latency).
  double std = 0;
  bool has_std = false;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_STATS_LATENCY_SUMMARY_H_
