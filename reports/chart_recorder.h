// ChartRecorder: the observer behind the HTML report's charts. It keeps a downsampled series of
// the KV pool by category, running and waiting requests and preemptions (at most ~1,200 points:
// when the series would grow past that the bucket width doubles, each bucket keeping its peak
// step), and latency histograms for the CDFs. Memory: constant in the trace's length.
// A quiet run (StepRun) is taken whole: its steps change only the clock and the KV use, which never
// falls within the run, so each bucket it touches needs one peak step, found without the others.
#ifndef KVSIM_REPORTS_CHART_RECORDER_H_
#define KVSIM_REPORTS_CHART_RECORDER_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "kvcache/kv_allocator.h"
#include "sim/engine/replay_observer.h"

namespace kvsim {

// One point of the chart series: the step with the most KV memory in use within its time bucket
// (so downsampling keeps peaks), plus the bucket's maxima.
struct ChartPoint {
  double t_s = 0;
  double fractions[kNumWasteCategories] = {};  // shares of the pool, by WasteCategory
  double used_fraction = -1;                   // token + reserved + internal
  int64_t running_max = 0;
  int64_t waiting_max = 0;
  int64_t preemptions = 0;                     // cumulative at the bucket's end
  int offload_tiers = 0;                       // KV tiers below the GPU (--kv-offload)
  double offload_used_max[StepSample::kMaxOffloadTiers] = {};  // each tier's share in use, bucket maxima
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

class ChartRecorder final : public ReplayObserver {
 public:
  void OnStep(const StepSample& s) override;
  // The same points as OnStep on each of the run's steps in turn.
  void OnStepRun(const StepRun& run) override;
  void OnRequestDone(const RequestRecord& r) override;

  const std::vector<ChartPoint>& chart() const { return chart_; }
  const LogHistogram& ttft_histogram() const { return ttft_; }
  const LogHistogram& tpot_histogram() const { return tpot_; }
  const LogHistogram& e2e_histogram() const { return e2e_; }

  static constexpr size_t kMaxChartPoints = 1200;

 private:
  // The point a step starting at start_ns updates: always the last one, opened first when the step
  // is past its bucket.
  ChartPoint& PointFor(int64_t start_ns) {
    return start_ns >= bucket_begin_ns_ && start_ns < bucket_end_ns_ ? chart_.back() : OpenPoint(start_ns);
  }
  ChartPoint& OpenPoint(int64_t start_ns);
  void HalveResolution();

  std::vector<ChartPoint> chart_;
  int64_t interval_ns_ = 100000000;  // doubles whenever the series would pass kMaxChartPoints
  // speed: the bucket [begin, end) of the last step PointFor placed; a step starting in it opens no
  // point (the last point's time is at least the bucket's), so most steps skip the division.
  int64_t bucket_begin_ns_ = 0, bucket_end_ns_ = 0;
  LogHistogram ttft_, tpot_, e2e_;
};

}  // namespace kvsim

#endif  // KVSIM_REPORTS_CHART_RECORDER_H_
