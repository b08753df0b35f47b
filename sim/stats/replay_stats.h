// ReplayStatistics: the observer that turns a replay's steps and requests into the summary's
// figures: peaks and time-weighted means, the waste categories integrated over time (all time and
// while requests wait), prefix-cache hits, throughput and offered load, goodput, and streaming
// latency statistics (inter-token latency from the steps, client-side TTFT from the requests). Memory: constant in the number of requests.
#ifndef KVSIM_SIM_REPLAY_STATS_H_
#define KVSIM_SIM_REPLAY_STATS_H_

#include <cstdint>
#include <map>
#include <string>

#include "kvcache/base/wide_int.h"
#include "sim/stats/latency_stats.h"
#include "sim/stats/weighted_histogram.h"
#include "sim/engine/replay_observer.h"
#include "sim/stats/replay_summary.h"

namespace kvsim {

struct ReplayStatsOptions {
  int64_t num_blocks = 0;     // paged pool (reported, as vLLM's num_gpu_blocks); 0 for contiguous allocators
  int64_t usable_blocks = 0;  // of those, what requests can hold (the engine's null block excluded)
  int64_t block_size = 16;
  double slo_ttft_s = 0;   // goodput thresholds per request (0: not applied)
  double slo_tpot_s = 0;
  // What a benchmark client adds to the server's time to first token (kernel_efficiency.h).
  double client_ttft_s = 0;
  double tokenize_s_per_token = 0;
  bool exact_quantiles = false;  // keep every latency (LatencyStats) instead of the sketch
};

class ReplayStatistics final : public ReplayObserver {
 public:
  explicit ReplayStatistics(ReplayStatsOptions options)
      : o_(options),
        queue_(options.exact_quantiles),
        ttft_(options.exact_quantiles),
        server_ttft_(options.exact_quantiles),
        tpot_(options.exact_quantiles),
        e2e_(options.exact_quantiles) {}

  void OnStep(const StepSample& s) override;
  void OnStepRun(const StepRun& run) override;
  void OnRequestDone(const RequestRecord& r) override;
  void OnPrefixLookup(int64_t queried_tokens, int64_t hit_tokens) override;
  void OnPrefixRelookup(int64_t queried_tokens, int64_t hit_tokens) override;

  // Fills the sections these statistics own: requests, concurrency, kv, waste, prefix_cache,
  // latency_s, throughput and goodput. The caller adds memory, sim and the configuration.
  void FillSummary(ReplaySummary& summary) const;

  int64_t peak_used_blocks() const { return peak_used_blocks_; }

  // Adds what another statistics object saw of steps (time integrals, peaks, inter-token latencies,
  // preemptions). A fleet's whole-run statistics take each replica's steps this way, from that
  // replica's own statistics, instead of observing every step twice: every step figure is an exact
  // integer sum, a maximum or a histogram count, so the sum over the replicas equals observing
  // their steps interleaved. Request figures are not added (see RequestEventsOf).
  void AddStepsOf(const ReplayStatistics& replica);

 private:
  // The time integrals and peaks of a run of steps that starts with `s` and lasts `duration_sum`
  // ns (StepRun's sums; zero for a single step), but the ITL samples and the peak of used blocks.
  void AddRunTotals(const StepSample& s, int64_t duration_sum, Int128 step_duration_sum, Int128 added_duration_sum,
                    int64_t token_slots_per_step, int64_t block_slots);
  ReplayStatsOptions o_;
  int64_t total_ = 0, finished_ = 0, rejected_ = 0, preemptions_ = 0;
  std::map<std::string, int64_t> rejected_by_reason_;
  int64_t peak_running_ = 0, peak_waiting_ = 0, peak_used_blocks_ = 0;
  // Integrals over time, exact (so a run summed in closed form equals its steps one by one).
  Int128 running_time_integral_ = 0;  // Σ running × dt (ns)
  int64_t time_total_ns_ = 0, time_saturated_ns_ = 0;
  Int128 waste_[kNumWasteCategories] = {}, waste_saturated_[kNumWasteCategories] = {};  // slot·ns
  int64_t end_ns_ = 0;
  int64_t last_arrival_ns_ = 0;  // the offered load is total_ over this span
  int64_t output_tokens_ = 0;
  int64_t prefix_queried_ = 0, prefix_hit_ = 0;
  int64_t readmit_queried_ = 0, readmit_hit_ = 0;
  LatencyStats queue_, ttft_, server_ttft_, tpot_, e2e_;  // client_ttft is ttft's summary again
  ReplaySummary::TtftComponents ttft_sums_;  // Σ over finished requests, seconds: the client's parts
  TtftPartsNs ttft_parts_ns_;                // Σ over finished requests of the engine's parts, ns
  WeightedHistogram itl_;
  int64_t goodput_requests_ = 0;
};

// Forwards a replay's request events (finishes, prefix lookups) to `stats` and drops its steps:
// the observer a fleet's whole-run statistics attach to each replica, whose steps they take with
// AddStepsOf from the replica's own statistics after the run.
class RequestEventsOf final : public ReplayObserver {
 public:
  explicit RequestEventsOf(ReplayStatistics& stats) : stats_(stats) {}
  void OnStep(const StepSample&) override {}
  void OnStepRun(const StepRun&) override {}
  void OnRequestDone(const RequestRecord& r) override { stats_.OnRequestDone(r); }
  void OnPrefixLookup(int64_t queried, int64_t hit) override { stats_.OnPrefixLookup(queried, hit); }
  void OnPrefixRelookup(int64_t queried, int64_t hit) override { stats_.OnPrefixRelookup(queried, hit); }

 private:
  ReplayStatistics& stats_;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_REPLAY_STATS_H_
