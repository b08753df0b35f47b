#include "sim/sweep/sweep_search.h"

#include <algorithm>
#include <cmath>
#include <deque>
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

namespace {

// One judged outcome per searched value (a replay, or a known outcome in rounds).
using ValueProbe = std::function<PointOutcome(double value)>;

// Thrown by a probe that a stop cut short; the search ends there (see Interruptible).
struct SearchStopped {
  std::string label;
};

PointOutcome Probe(Variant& v, const SweepCriteria& c, std::shared_ptr<const PreloadedTrace>& preload,
                   const std::atomic<bool>* stop) {
  if (stop && stop->load()) throw SearchStopped{v.label};
  if (!preload) preload = PreloadTrace(v.replay, stop);
  if (preload->partial) throw SearchStopped{v.label};
  PointOutcome p = EvaluateOne(v, c, preload, stop);
  if (p.interrupted) throw SearchStopped{v.label};
  return p;
}

template <typename Search>
SearchResult Interruptible(Search&& search) {
  SearchResult r;
  try {
    search(r);
  } catch (const SearchStopped& s) {
    r.found = r.has_next = false;
    r.partial = true;
    r.unfinished.push_back({s.label, "interrupted"});
  }
  return r;
}

// A search's logic as a function of its probes' outcomes, filling `r` (see ProbeRounds).
using SearchBody = std::function<void(const ValueProbe& probe, SearchResult& r)>;

// Thrown out of a what-if run of a search when it asks for a probe beyond its hypotheses.
struct NeedProbe {
  double value;
};
// Bounds the what-if runs per round (their count doubles with each level of the decision tree).
constexpr size_t kMaxWhatIfRuns = 4096;

// Runs `body` with probes evaluated `rounds.width` at a time: breadth first over hypotheses
// (feasible or not) for the unknown probes, in the order the search asks for them, so the first
// value found is the one the serial search needs now; the last run replays the serial logic on
// the known outcomes, so answer and reported probes are the serial search's.
void RunInRounds(const SearchBody& body, ProbeRounds& rounds, SearchResult& r) {
  std::map<double, PointOutcome> known;
  for (;;) {
    std::vector<double> batch;
    std::deque<std::vector<bool>> hypotheses{{}};
    for (size_t runs = 0; !hypotheses.empty() && batch.size() < static_cast<size_t>(rounds.width) && runs < kMaxWhatIfRuns;
         ++runs) {
      const std::vector<bool> h = std::move(hypotheses.front());
      hypotheses.pop_front();
      size_t used = 0;
      SearchResult scratch;
      try {
        body([&](double value) {
          if (auto it = known.find(value); it != known.end()) return it->second;
          if (used == h.size()) throw NeedProbe{value};
          PointOutcome guess;
          guess.feasible = h[used++];
          return guess;
        }, scratch);
      } catch (const NeedProbe& need) {
        if (std::find(batch.begin(), batch.end(), need.value) == batch.end()) batch.push_back(need.value);
        for (bool feasible : {true, false}) {
          hypotheses.push_back(h);
          hypotheses.back().push_back(feasible);
        }
      }
    }
    if (batch.empty()) return body([&](double value) { return known.at(value); }, r);
    std::vector<PointOutcome> outcomes = rounds.run(batch);
    ++rounds.rounds;
    rounds.probes += static_cast<int64_t>(batch.size());
    for (size_t i = 0; i < batch.size(); ++i) known.emplace(batch[i], std::move(outcomes.at(i)));
  }
}

// One search: serially (each probe one replay sharing a preloaded trace, cut short by `stop`) or
// in rounds; a stop ends it with `partial` set (Interruptible).
template <class T>
SearchResult RunSearch(const std::function<Variant(T)>& make, const SweepCriteria& c, const std::atomic<bool>* stop,
                       ProbeRounds* rounds, const SearchBody& body) {
  return Interruptible([&](SearchResult& r) {
    if (rounds) return RunInRounds(body, *rounds, r);
    std::shared_ptr<const PreloadedTrace> preload;
    body([&](double value) {
      Variant v = make(static_cast<T>(value));
      return Probe(v, c, preload, stop);
    }, r);
  });
}

void BatchCapSearch(const ValueProbe& probe, int64_t upper, SearchResult& r) {
  r.precision = "exact (integer max_num_seqs; powers of two probed, then bisection)";
  std::map<int64_t, PointOutcome> seen;
  auto eval = [&](int64_t cap) -> const PointOutcome& {
    auto it = seen.find(cap);
    if (it != seen.end()) return it->second;
    PointOutcome p = probe(static_cast<double>(cap));
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
  if (lo < 0) return;
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
}

void RateScaleSearch(const ValueProbe& probe, double precision, SearchResult& r) {
  r.precision = "within " + Format("%g", 100 * precision) + "% (bisection on the arrival-rate multiplier)";
  auto eval = [&](double scale) {
    PointOutcome p = probe(scale);
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
      return;  // feasible up to the 1024x cap
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
    if (lo == 0) return;
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
}

void ReplicaSearch(const ValueProbe& probe, int64_t upper, SearchResult& r) {
  r.precision = "exact (integer replicas; doubling, then bisection)";
  std::map<int64_t, PointOutcome> seen;
  auto eval = [&](int64_t n) -> const PointOutcome& {
    auto it = seen.find(n);
    if (it != seen.end()) return it->second;
    PointOutcome p = probe(static_cast<double>(n));
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
    if (n == upper) return;
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
}

}  // namespace

SearchResult FindSmallestReplicas(const std::function<Variant(int64_t)>& make, const SweepCriteria& c, int64_t upper,
                                  const std::atomic<bool>* stop, ProbeRounds* rounds) {
  return RunSearch(make, c, stop, rounds, [&](const ValueProbe& probe, SearchResult& r) { ReplicaSearch(probe, upper, r); });
}

SearchResult FindLargestBatchCap(const std::function<Variant(int64_t)>& make, const SweepCriteria& c, int64_t upper,
                                 const std::atomic<bool>* stop, ProbeRounds* rounds) {
  return RunSearch(make, c, stop, rounds, [&](const ValueProbe& probe, SearchResult& r) { BatchCapSearch(probe, upper, r); });
}

SearchResult FindHighestRateScale(const std::function<Variant(double)>& make, const SweepCriteria& c, double precision,
                                  const std::atomic<bool>* stop, ProbeRounds* rounds) {
  return RunSearch(make, c, stop, rounds,
                   [&](const ValueProbe& probe, SearchResult& r) { RateScaleSearch(probe, precision, r); });
}

}  // namespace kvsim
