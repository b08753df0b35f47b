#include "reports/chart_recorder.h"

#include <algorithm>
#include <cmath>

#include "kvcache/base/check.h"

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

namespace {

double Capacity(const KvAccounting& kv) { return static_cast<double>(std::max<int64_t>(1, kv.capacity_slots)); }

// The share of the pool a step holds: token states, reserved slots and internal fragmentation.
double UsedFraction(const KvAccounting& kv) {
  return static_cast<double>(kv.used_slots()) / Capacity(kv);
}

void TakeFractions(ChartPoint& p, const KvAccounting& kv, double used) {
  const double cap = Capacity(kv);
  for (int i = 0; i < kNumWasteCategories; ++i) p.fractions[i] = static_cast<double>(kv.slots(static_cast<WasteCategory>(i))) / cap;
  p.used_fraction = used;
}

// What a step adds to its point besides the KV shares.
void TakeCounts(ChartPoint& p, const StepSample& s) {
  p.running_max = std::max(p.running_max, s.running);
  p.waiting_max = std::max(p.waiting_max, s.waiting);
  p.preemptions = s.preemptions_total;
  p.offload_tiers = s.offload_tiers;
  for (int i = 0; i < s.offload_tiers; ++i) p.offload_used_max[i] = std::max(p.offload_used_max[i], s.offload_used_fraction[i]);
}

}  // namespace

ChartPoint& ChartRecorder::OpenPoint(int64_t start_ns) {
  double t = static_cast<double>(start_ns / interval_ns_ * interval_ns_) / 1e9;
  if (chart_.empty() || t > chart_.back().t_s) {
    if (chart_.size() >= kMaxChartPoints) {
      HalveResolution();
      t = static_cast<double>(start_ns / interval_ns_ * interval_ns_) / 1e9;
    }
    if (chart_.empty() || t > chart_.back().t_s) {
      chart_.push_back(ChartPoint{});
      chart_.back().t_s = t;
    }
  }
  // The last point's time is now at least t: later steps in this bucket open none. (In a fleet the
  // replicas' steps interleave, so a step may also fall in an earlier bucket and join the last point.)
  bucket_begin_ns_ = start_ns / interval_ns_ * interval_ns_;
  bucket_end_ns_ = bucket_begin_ns_ + interval_ns_;
  return chart_.back();
}

void ChartRecorder::OnStep(const StepSample& s) {
  ChartPoint& p = PointFor(s.start_ns);
  const double used = UsedFraction(s.kv);
  if (used > p.used_fraction) TakeFractions(p, s.kv, used);
  TakeCounts(p, s);
}

// Within a run the counts and tiers are the first step's, and the KV in use only grows (decoded
// tokens fill reserved slots, crossings move free slots to reserved), so a point's share of the run
// is its last step's use and, when that beats the point, the shares of the first step with that use
// (as OnStep step by step keeps the first of equal peaks).
void ChartRecorder::OnStepRun(const StepRun& run) {
  // Step j's use, as UsedFraction(run.Step(j, ·).kv) adds it up: decoding moves slots from reserved
  // to token states (the sum stays), each block crossed into adds block_slots reserved ones.
  const KvAccounting& kv = run.first.kv;
  const int64_t used_slots = kv.used_slots();
  const double cap = Capacity(kv);
  auto used_at = [&](int64_t j) {
    return static_cast<double>(used_slots + (run.added_blocks ? run.added_blocks[j] * run.block_slots : 0)) / cap;
  };
  int64_t start = run.first.start_ns;
  for (int64_t j = 0; j < run.steps;) {
    ChartPoint& p = PointFor(start);
    const int64_t from = j;
    do {
      KVSIM_DCHECK(run.durations[j] >= 0);
      start += run.durations[j++];
    } while (j < run.steps && start < bucket_end_ns_);
    const int64_t last = j - 1;
    const double used = used_at(last);
    if (used > p.used_fraction) {
      int64_t lo = from, hi = run.added_blocks ? last : from;  // without crossings the use is constant
      while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (used_at(mid) < used) lo = mid + 1;
        else hi = mid;
      }
      const StepSample peak = run.Step(lo, run.first.start_ns);
      KVSIM_DCHECK(UsedFraction(peak.kv) == used);
      TakeFractions(p, peak.kv, used);
    }
    TakeCounts(p, run.first);
  }
}

void ChartRecorder::OnRequestDone(const RequestRecord& r) {
  if (!r.rejected_reason.empty()) return;
  const RequestLatencies l = LatenciesOf(r);
  ttft_.Add(l.ttft_s);
  e2e_.Add(l.e2e_s);
  if (l.has_tpot) tpot_.Add(l.tpot_s);
}

}  // namespace kvsim
