// LoadCheckObserver: whether a replay served the load it was offered (LoadCheck in
// replay_summary.h). A latency SLO alone can pass while requests pile up (TPOT is measured only on
// requests that got through), so every SLO answer of a sweep also requires this check. Arrivals,
// completions and the time-weighted waiting queue are counted in time buckets whose width doubles
// when the run outgrows them: memory is constant in the length of the trace.
#ifndef KVSIM_SIM_LOAD_CHECK_H_
#define KVSIM_SIM_LOAD_CHECK_H_

#include <array>
#include <cstdint>

#include "sim/engine/replay_observer.h"
#include "sim/stats/replay_summary.h"

namespace kvsim {

class LoadCheckObserver final : public ReplayObserver {
 public:
  void OnStep(const StepSample& sample) override;
  void OnStepRun(const StepRun& run) override;
  void OnRequestDone(const RequestRecord& record) override;
  LoadCheck Result() const;

 private:
  static constexpr int kBuckets = 1024;
  void Fit(int64_t t_ns);  // widen the buckets until t_ns falls inside them
  size_t Bucket(int64_t t_ns) const { return static_cast<size_t>(t_ns / width_ns_); }
  // Sum over [a, b) of a per-bucket quantity, with partial buckets prorated.
  double Sum(const std::array<double, kBuckets>& v, double a_ns, double b_ns) const;

  int64_t width_ns_ = 1'000'000'000;  // 1 s to start
  std::array<double, kBuckets> arrivals_{}, finished_{}, waiting_ns_{};  // waiting: count x ns
  int64_t last_arrival_ns_ = 0;
  int64_t arrivals_total_ = 0;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_LOAD_CHECK_H_
