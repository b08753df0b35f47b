#include "sim/sweep_search.h"

#include <cmath>
#include <map>
#include <memory>

#include "kvcache/base/text_format.h"

namespace kvsim {

std::string ExplainNoFeasibleProbe(const SearchResult& r, const SweepCriteria& c) {
  const PointOutcome* closest = nullptr;
  for (const auto& [value, p] : r.probes)
    if (p.error.empty() &&
        (!closest || p.summary->throughput.requests_per_s > closest->summary->throughput.requests_per_s))
      closest = &p;
  if (!closest) return r.probes.empty() ? "nothing was run" : WhyNotBest(r.probes.front().second, {}, c);
  std::string why = "closest: " + closest->label + ", " + WhyNotBest(*closest, {}, c);
  const auto& th = closest->summary->throughput;
  const double done = th.requests_per_s, offered = th.offered_requests_per_s;
  // 5% slack: a run that keeps up still ends a little after its last arrival.
  if (offered > 0 && done < 0.95 * offered)
    why += "\n  overloaded: at best " + Format("%.3g", done) + " req/s finish while the trace offers " + Format("%.3g", offered) +
           " req/s, so queues grow at every probe; lower the load (--find rate-scale) or add capacity";
  return why;
}

SearchResult FindLargestBatchCap(const std::function<Variant(int64_t)>& make, const SweepCriteria& c, int64_t upper) {
  SearchResult r;
  r.precision = "exact (integer max_num_seqs; powers of two probed, then bisection)";
  std::map<int64_t, PointOutcome> seen;
  std::shared_ptr<const PreloadedTrace> preload;
  auto eval = [&](int64_t cap) -> const PointOutcome& {
    auto it = seen.find(cap);
    if (it != seen.end()) return it->second;
    Variant v = make(cap);
    if (!preload) preload = PreloadTrace(v.replay);
    PointOutcome p = EvaluateOne(v, c, preload);
    r.probes.emplace_back(static_cast<double>(cap), p);
    return seen.emplace(cap, std::move(p)).first->second;
  };
  // Small caps queue (latency SLOs fail), large ones overload memory or steps: the caps that meet
  // the SLOs usually form a range. Probe every power of two, take the largest that passes, then
  // bisect towards the next power (or the upper bound), which fails.
  std::vector<int64_t> grid;
  for (int64_t cap = 1; cap < upper; cap *= 2) grid.push_back(cap);
  grid.push_back(upper);
  int64_t lo = -1, hi = -1, first = -1;
  for (int64_t cap : grid)
    if (eval(cap).feasible) {
      lo = cap;
      if (first < 0) first = cap;
    }
  if (lo < 0) return r;
  for (int64_t cap : grid)
    if (cap > lo) {
      hi = cap;
      break;
    }
  while (hi > 0 && hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (eval(mid).feasible) lo = mid;
    else hi = mid;
  }
  // The lower edge: with TTFT-only SLOs every cap above it meets them (the KV pool, not the cap,
  // bounds concurrency there), so the range says more than its upper end.
  for (int64_t below = first / 2; first > 1 && first - below > 1;) {
    const int64_t mid = below + (first - below) / 2;
    if (eval(mid).feasible) first = mid;
    else below = mid;
  }
  r.found = true;
  r.smallest_value = static_cast<double>(first);
  r.value = static_cast<double>(lo);
  r.at_value = seen.at(lo);
  if (lo < upper) {
    r.has_next = true;
    r.next_value = static_cast<double>(lo + 1);
    r.at_next = eval(lo + 1);
  }
  return r;
}

SearchResult FindHighestRateScale(const std::function<Variant(double)>& make, const SweepCriteria& c, double precision) {
  SearchResult r;
  r.precision = "within " + Format("%g", 100 * precision) + "% (bisection on the arrival-rate multiplier)";
  std::shared_ptr<const PreloadedTrace> preload;
  auto eval = [&](double scale) {
    Variant v = make(scale);
    if (!preload) preload = PreloadTrace(v.replay);
    PointOutcome p = EvaluateOne(v, c, preload);
    r.probes.emplace_back(scale, p);
    return p;
  };
  double lo = 0, hi = 0;
  PointOutcome at_lo, at_hi;
  PointOutcome first = eval(1.0);
  if (first.feasible) {
    lo = 1.0, at_lo = first;
    for (double s = 2.0; s <= 1024.0; s *= 2) {
      PointOutcome p = eval(s);
      if (p.feasible) {
        lo = s, at_lo = p;
      } else {
        hi = s, at_hi = p;
        break;
      }
    }
    if (hi == 0) {
      r.found = true;
      r.value = lo;
      r.at_value = at_lo;
      return r;  // feasible up to the 1024x cap
    }
  } else {
    hi = 1.0, at_hi = first;
    for (double s = 0.5; s >= 1.0 / 1024; s /= 2) {
      PointOutcome p = eval(s);
      if (p.feasible) {
        lo = s, at_lo = p;
        break;
      }
      hi = s, at_hi = p;
    }
    if (lo == 0) return r;
  }
  // The iteration cap ends the loop even when `precision` is below what doubles can resolve
  // (1e-16 never converged: the midpoint rounds to an end of the bracket).
  for (int step = 0; step < 64 && hi / lo - 1 > precision; ++step) {
    const double mid = std::sqrt(lo * hi);  // geometric midpoint: the bracket shrinks in ratio
    if (!(mid > lo && mid < hi)) break;
    PointOutcome p = eval(mid);
    if (p.feasible) lo = mid, at_lo = p;
    else hi = mid, at_hi = p;
  }
  r.found = true;
  r.value = lo;
  r.at_value = at_lo;
  r.has_next = true;
  r.next_value = hi;
  r.at_next = at_hi;
  return r;
}

}  // namespace kvsim
