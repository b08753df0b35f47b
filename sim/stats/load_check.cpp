#include "sim/stats/load_check.h"

#include <algorithm>
#include <cmath>

namespace kvsim {

void LoadCheckObserver::Fit(int64_t t_ns) {
  while (t_ns >= width_ns_ * kBuckets) {
    for (auto* v : {&arrivals_, &finished_, &waiting_ns_}) {
      for (int i = 0; i < kBuckets / 2; ++i) (*v)[static_cast<size_t>(i)] = (*v)[2 * static_cast<size_t>(i)] + (*v)[2 * static_cast<size_t>(i) + 1];
      std::fill(v->begin() + kBuckets / 2, v->end(), 0.0);
    }
    width_ns_ *= 2;
  }
}

void LoadCheckObserver::OnStep(const StepSample& s) {
  if (s.waiting == 0) return;
  // A step's waiting count holds over its duration; spread it over the buckets the step covers.
  int64_t t = s.start_ns;
  const int64_t end = s.start_ns + s.duration_ns;
  Fit(end);
  while (t < end) {
    const int64_t bucket_end = (t / width_ns_ + 1) * width_ns_;
    const int64_t upto = std::min(end, bucket_end);
    waiting_ns_[Bucket(t)] += static_cast<double>(s.waiting) * static_cast<double>(upto - t);
    t = upto;
  }
}

// The waiting count is the run's throughout, so the run counts as one step of its whole length
// (bucket sums are whole request·ns, exact in a double below 2^53 per bucket either way).
void LoadCheckObserver::OnStepRun(const StepRun& run) {
  if (run.first.waiting == 0) return;
  StepSample whole = run.first;
  whole.duration_ns = run.duration_sum;
  OnStep(whole);
}

void LoadCheckObserver::OnRequestDone(const RequestRecord& r) {
  Fit(std::max(r.arrival_ns, r.finished_ns));
  arrivals_[Bucket(r.arrival_ns)] += 1;
  ++arrivals_total_;
  last_arrival_ns_ = std::max(last_arrival_ns_, r.arrival_ns);
  if (r.rejected_reason.empty()) finished_[Bucket(r.finished_ns)] += 1;
}

double LoadCheckObserver::Sum(const std::array<double, kBuckets>& v, double a, double b) const {
  double total = 0;
  const double w = static_cast<double>(width_ns_);
  for (int i = static_cast<int>(a / w); i < kBuckets && i * w < b; ++i) {
    const double lo = std::max(a, i * w), hi = std::min(b, (i + 1) * w);
    if (hi > lo) total += v[static_cast<size_t>(i)] * (hi - lo) / w;
  }
  return total;
}

LoadCheck LoadCheckObserver::Result() const {
  LoadCheck c;
  const double t = static_cast<double>(last_arrival_ns_);
  // The last arrival's own bucket counts whole: the window closes at its end.
  const double end = (std::floor(t / static_cast<double>(width_ns_)) + 1) * static_cast<double>(width_ns_);
  const double half = end / 2;
  const double arrived = Sum(arrivals_, half, end), finished = Sum(finished_, half, end);
  c.applicable = arrivals_total_ >= 20 && t >= 1e9 && arrived >= 10;
  const double span_s = (end - half) / 1e9;
  c.offered_rps = std::round(arrived / span_s * 1e6) / 1e6;
  c.finished_rps = std::round(finished / span_s * 1e6) / 1e6;
  c.served_ratio = arrived > 0 ? std::round(finished / arrived * 1e6) / 1e6 : 1.0;
  c.waiting_before = std::round(Sum(waiting_ns_, 0.8 * end, 0.9 * end) / (0.1 * end) * 1e3) / 1e3;
  c.waiting_end = std::round(Sum(waiting_ns_, 0.9 * end, end) / (0.1 * end) * 1e3) / 1e3;
  // A queue growing linearly in time has its last-tenth mean 12% above the one before (0.95 / 0.85).
  c.queue_growing = c.waiting_end > 1.05 * c.waiting_before + 1;
  // A backlog that no longer grows but was never worked off is not served either.
  c.backlog_fraction = std::round(c.waiting_end / static_cast<double>(std::max<int64_t>(1, arrivals_total_)) * 1e6) / 1e6;
  c.served = !c.applicable || (c.served_ratio >= 0.99 && !c.queue_growing && c.backlog_fraction <= 0.01);
  return c;
}

}  // namespace kvsim
