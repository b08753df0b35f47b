#include "sim/sweep_search.h"

#include <cmath>
#include <map>
#include <memory>

#include "kvcache/base/text_format.h"

namespace kvsim {

std::string NearestPoint(const std::vector<PointOutcome>& points) {
  const PointOutcome* nearest = nullptr;
  for (const PointOutcome& p : points)
    if (p.error.empty() && p.summary && (!nearest || p.distance < nearest->distance)) nearest = &p;
  if (!nearest) return points.empty() ? "nothing was run" : "no point ran: " + Join(points.front().violations, "; ");
  const std::string ratio = nearest->distance >= 1e9 ? "no request finished" : Format("largest violated ratio %.3g", nearest->distance);
  return "nearest: " + nearest->label + " (" + ratio + "; ratio = value / limit; load check: offered / finished, backlog / 1%)\n  " +
         "violates: " + Join(nearest->violations, "; ") + "\n  binds: " + nearest->binding;
}

std::string ExplainNoFeasibleProbe(const SearchResult& r, const SweepCriteria& c) {
  (void)c;
  std::vector<PointOutcome> probes;
  for (const auto& [value, p] : r.probes) probes.push_back(p);
  return NearestPoint(probes);
}

SearchResult FindSmallestReplicas(const std::function<Variant(int64_t)>& make, const SweepCriteria& c, int64_t upper) {
  SearchResult r;
  r.precision = "exact (integer replicas; doubling, then bisection)";
  std::map<int64_t, PointOutcome> seen;
  std::shared_ptr<const PreloadedTrace> preload;
  auto eval = [&](int64_t n) -> const PointOutcome& {
    auto it = seen.find(n);
    if (it != seen.end()) return it->second;
    Variant v = make(n);
    if (!preload) preload = PreloadTrace(v.replay);
    PointOutcome p = EvaluateOne(v, c, preload);
    r.probes.emplace_back(static_cast<double>(n), p);
    return seen.emplace(n, std::move(p)).first->second;
  };
  int64_t lo = 0, hi = -1;  // lo fails (0: none tried), hi meets
  for (int64_t n = 1;; n = std::min(upper, n * 2)) {
    if (eval(n).feasible) {
      hi = n;
      break;
    }
    lo = n;
    if (n == upper) return r;
  }
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (eval(mid).feasible) hi = mid;
    else lo = mid;
  }
  r.found = true;
  r.value = r.smallest_value = static_cast<double>(hi);
  r.at_value = seen.at(hi);
  if (hi > 1) {
    r.has_next = true;
    r.next_value = static_cast<double>(hi - 1);
    r.at_next = eval(hi - 1);
  }
  return r;
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
  while (hi / lo - 1 > precision) {
    const double mid = std::sqrt(lo * hi);  // geometric midpoint: the bracket shrinks in ratio
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
