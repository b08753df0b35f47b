#include "reports/chart_recorder.h"

#include <algorithm>
#include <cmath>

namespace kvsim {

void LogHistogram::Add(double seconds) {
  // Bucket i covers (1e-4 × 1.02^(i−1), 1e-4 × 1.02^i]; bucket 0 everything up to 0.1 ms.
  int i = seconds <= 1e-4 ? 0 : static_cast<int>(std::ceil(std::log(seconds / 1e-4) / std::log(1.02)));
  i = std::min(std::max(i, 0), kBuckets - 1);
  ++counts_[i];
  ++count_;
}

std::vector<std::pair<double, double>> LogHistogram::Cdf() const {
  std::vector<std::pair<double, double>> out;
  int64_t cumulative = 0;
  for (int i = 0; i < kBuckets && count_ > 0; ++i) {
    if (counts_[i] == 0) continue;
    cumulative += counts_[i];
    out.emplace_back(1e-4 * std::pow(1.02, i), static_cast<double>(cumulative) / static_cast<double>(count_));
  }
  return out;
}

void ChartRecorder::HalveResolution() {
  // Merge neighbours, keeping each pair's peak.
  std::vector<ChartPoint> merged;
  interval_ns_ *= 2;
  for (const ChartPoint& p : chart_) {
    const double bucket = static_cast<double>(static_cast<int64_t>(p.t_s * 1e9) / interval_ns_ * interval_ns_) / 1e9;
    if (merged.empty() || merged.back().t_s != bucket) {
      merged.push_back(p);
      merged.back().t_s = bucket;
      continue;
    }
    ChartPoint& m = merged.back();
    if (p.used_fraction > m.used_fraction) std::copy(p.fractions, p.fractions + kNumWasteCategories, m.fractions), m.used_fraction = p.used_fraction;
    m.running_max = std::max(m.running_max, p.running_max);
    m.waiting_max = std::max(m.waiting_max, p.waiting_max);
    m.preemptions = std::max(m.preemptions, p.preemptions);
    m.offload_tiers = std::max(m.offload_tiers, p.offload_tiers);
    for (int i = 0; i < p.offload_tiers; ++i) m.offload_used_max[i] = std::max(m.offload_used_max[i], p.offload_used_max[i]);
  }
  chart_ = std::move(merged);
}

void ChartRecorder::OnStep(const StepSample& s) {
  const double cap = static_cast<double>(std::max<int64_t>(1, s.kv.capacity_slots));
  const double used = static_cast<double>(s.kv.token_slots + s.kv.reserved_slots + s.kv.internal_fragmentation_slots) / cap;
  double t = static_cast<double>(s.start_ns / interval_ns_ * interval_ns_) / 1e9;
  if (chart_.empty() || t > chart_.back().t_s) {
    if (chart_.size() >= kMaxChartPoints) {
      HalveResolution();
      t = static_cast<double>(s.start_ns / interval_ns_ * interval_ns_) / 1e9;
    }
    if (chart_.empty() || t > chart_.back().t_s) {
      chart_.push_back(ChartPoint{});
      chart_.back().t_s = t;
    }
  }
  ChartPoint& p = chart_.back();
  if (used > p.used_fraction) {
    for (int i = 0; i < kNumWasteCategories; ++i)
      p.fractions[i] = static_cast<double>(s.kv.slots(static_cast<WasteCategory>(i))) / cap;
    p.used_fraction = used;
  }
  p.running_max = std::max(p.running_max, s.running);
  p.waiting_max = std::max(p.waiting_max, s.waiting);
  p.preemptions = s.preemptions_total;
  p.offload_tiers = s.offload_tiers;
  for (int i = 0; i < s.offload_tiers; ++i) p.offload_used_max[i] = std::max(p.offload_used_max[i], s.offload_used_fraction[i]);
}

void ChartRecorder::OnRequestDone(const RequestRecord& r) {
  if (!r.rejected_reason.empty()) return;
  const RequestLatencies l = LatenciesOf(r);
  ttft_.Add(l.ttft_s);
  e2e_.Add(l.e2e_s);
  if (l.has_tpot) tpot_.Add(l.tpot_s);
}

}  // namespace kvsim
