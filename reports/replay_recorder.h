// Observes a replay: every step (memory by category, running/waiting) and every request (timings),
// and turns them into the summary JSON, the time series CSV and the per-request CSV. Only observes:
// it never changes what the engine does. Memory: constant in the number of requests (streaming
// statistics; CSV rows go straight to a temporary file that is renamed when the run ends).
#ifndef KVSIM_REPORTS_REPLAY_RECORDER_H_
#define KVSIM_REPORTS_REPLAY_RECORDER_H_

#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "kvcache/kv_allocator.h"
#include "reports/latency_stats.h"

namespace kvsim {

struct RequestRecord {
  uint64_t id = 0;
  int64_t arrival_ns = 0;
  int64_t admitted_ns = -1;      // first admission
  int64_t first_token_ns = -1;
  int64_t finished_ns = -1;
  int64_t prompt_tokens = 0;
  int64_t output_tokens = 0;     // generated (after truncation to max_model_len)
  int64_t cached_tokens = 0;     // prompt tokens served by the prefix cache at first admission
  int64_t preemptions = 0;
  std::string rejected_reason;   // empty: finished
};

struct StepSample {
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
  int64_t running = 0;
  int64_t waiting = 0;
  int64_t used_blocks = 0;       // paged: blocks held; contiguous: slots held / block size
  KvAccounting kv;               // after the step
  int64_t preemptions_total = 0;
};

// One point of the chart series: the step with the most KV memory in use within its time bucket
// (so downsampling keeps peaks), plus the bucket's maxima.
struct ChartPoint {
  double t_s = 0;
  double fractions[6] = {};    // token, reserved, internal, external, cached, free (of the pool)
  double used_fraction = -1;   // token + reserved + internal
  int64_t running_max = 0;
  int64_t waiting_max = 0;
  int64_t preemptions = 0;     // cumulative at the bucket's end
};

// Latency distribution in log-spaced buckets from 0.1 ms to 10^5 s (2% wide): constant memory.
class LogHistogram {
 public:
  void Add(double seconds);
  int64_t count() const { return count_; }
  // (upper bound in seconds, cumulative fraction) for every non-empty prefix, for CDF charts.
  std::vector<std::pair<double, double>> Cdf() const;

 private:
  static constexpr int kBuckets = 1050;  // 1e-4 × 1.02^1050 > 1e5 s
  int64_t counts_[kBuckets] = {};
  int64_t count_ = 0;
};

struct RecorderOptions {
  std::string timeseries_path;   // empty: none
  std::string requests_path;     // empty: none
  double sample_interval_s = 0;  // 0: one time-series row per step
  int64_t num_blocks = 0;
  int64_t block_size = 16;
  bool keep_charts = false;      // keep a downsampled series and latency histograms for the report
  double slo_ttft_s = 0;         // goodput thresholds per request (0: not applied)
  double slo_tpot_s = 0;
};

class ReplayRecorder {
 public:
  explicit ReplayRecorder(RecorderOptions options);
  ~ReplayRecorder();

  void OnStep(const StepSample& s);
  void OnRequestDone(const RequestRecord& r);
  void OnPrefixLookup(int64_t queried_tokens, int64_t hit_tokens);

  // Closes the CSV files (renaming them into place). Throws kvsim::Error on I/O failure.
  void Finish();

  // The summary sections (requests, concurrency, kv, waste, waste_saturated, prefix_cache,
  // latency_s, throughput); the caller adds memory, sim and the configuration.
  nlohmann::json Summary() const;

  int64_t peak_used_blocks() const { return peak_used_blocks_; }
  int64_t finished() const { return finished_; }
  int64_t rejected() const { return rejected_; }
  int64_t end_ns() const { return end_ns_; }
  const std::vector<ChartPoint>& chart() const { return chart_; }
  const LogHistogram& ttft_histogram() const { return ttft_hist_; }
  const LogHistogram& tpot_histogram() const { return tpot_hist_; }
  const LogHistogram& e2e_histogram() const { return e2e_hist_; }

 private:
  void WriteSeriesRow(const StepSample& s, int64_t t_ns);

  RecorderOptions o_;
  std::ofstream series_, requests_;
  std::string series_tmp_, requests_tmp_;
  int64_t next_sample_ns_ = 0;

  int64_t total_ = 0, finished_ = 0, rejected_ = 0, preemptions_ = 0;
  std::map<std::string, int64_t> rejected_by_reason_;
  int64_t peak_running_ = 0, peak_waiting_ = 0, peak_used_blocks_ = 0;
  double running_time_integral_ = 0;      // Σ running × dt (ns)
  double time_total_ns_ = 0, time_saturated_ns_ = 0;
  double waste_[6] = {}, waste_saturated_[6] = {};  // slot·ns per category
  int64_t first_ns_ = -1, end_ns_ = 0;
  int64_t last_arrival_ns_ = 0;           // the offered load is total_ over this span
  int64_t output_tokens_ = 0;
  int64_t prefix_queried_ = 0, prefix_hit_ = 0;
  LatencyStats queue_, ttft_, tpot_, e2e_;
  int64_t goodput_requests_ = 0;
  std::vector<ChartPoint> chart_;
  int64_t chart_interval_ns_ = 100000000;  // doubles whenever the series would pass kMaxChartPoints
  static constexpr size_t kMaxChartPoints = 1200;
  LogHistogram ttft_hist_, tpot_hist_, e2e_hist_;
  void AddChartSample(const StepSample& s);
};

}  // namespace kvsim

#endif  // KVSIM_REPORTS_REPLAY_RECORDER_H_
