#include "sim/sweep.h"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <thread>

#include "kvcache/error.h"

namespace kvsim {
namespace {

std::string Fmt(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

double ParseDurationSeconds(const std::string& text, const std::string& piece) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    throw Error("--slo: '" + piece + "': '" + text + "' is not a duration (e.g. 2s, 100ms)");
  }
  const std::string unit = text.substr(used);
  if (unit == "s" || unit.empty()) return v;
  if (unit == "ms") return v / 1e3;
  if (unit == "us") return v / 1e6;
  throw Error("--slo: '" + piece + "': unit '" + unit + "' is not s, ms or us");
}

void Judge(PointOutcome& p, const SweepCriteria& c) {
  if (!p.error.empty()) {
    p.feasible = false;
    p.violations.push_back(p.error);
    return;
  }
  const auto& s = p.summary;
  p.objective = c.objective == "goodput" ? s["goodput"]["requests_per_s"].get<double>()
                                         : s["throughput"]["requests_per_s"].get<double>();
  for (const SloConstraint& slo : c.slos) {
    const double v = s["latency_s"][slo.metric][slo.quantile].get<double>();
    if (v > slo.limit_s)
      p.violations.push_back(slo.metric + "-" + slo.quantile + " " + Fmt("%.6g", v) + " s > " + Fmt("%g", slo.limit_s) +
                             " s (by " + Fmt("%.3g", v - slo.limit_s) + " s)");
  }
  const double finished = s["requests"]["finished"].get<double>();
  const double rate = finished > 0 ? s["requests"]["preemptions"].get<double>() / finished : 0.0;
  if (c.max_preemption_rate >= 0 && rate > c.max_preemption_rate)
    p.violations.push_back("preemption rate " + Fmt("%.3f", rate) + " > " + Fmt("%g", c.max_preemption_rate) + " per request");
  if (s["requests"]["rejected"].get<int64_t>() > 0 && finished == 0) p.violations.push_back("no request finished");
  p.feasible = p.violations.empty();
}

void ApplyGoodputThresholds(ReplayOptions& r, const SweepCriteria& c) {
  for (const SloConstraint& slo : c.slos) {
    if (slo.metric == "ttft") r.slo_ttft_s = r.slo_ttft_s > 0 ? std::min(r.slo_ttft_s, slo.limit_s) : slo.limit_s;
    if (slo.metric == "tpot") r.slo_tpot_s = r.slo_tpot_s > 0 ? std::min(r.slo_tpot_s, slo.limit_s) : slo.limit_s;
  }
}

VariantRun RunOneVariant(Variant& v, std::shared_ptr<const PreloadedTrace> preloaded) {
  VariantRun run;
  v.replay.quiet = true;
  v.replay.omit_wall_time = true;  // runs are compared, not timed: keep them deterministic
  try {
    run.result = RunReplay(v.deployment, v.replay, std::move(preloaded));
  } catch (const Error& e) {
    run.error = e.what();
  }
  return run;
}

PointOutcome Outcome(const std::string& label, const VariantRun& run, const SweepCriteria& c) {
  PointOutcome p;
  p.label = label;
  p.error = run.error;
  if (run.error.empty()) p.summary = run.result.summary;
  Judge(p, c);
  return p;
}

PointOutcome EvaluateOne(Variant& v, const SweepCriteria& c, std::shared_ptr<const PreloadedTrace> preloaded) {
  ApplyGoodputThresholds(v.replay, c);
  return Outcome(v.label, RunOneVariant(v, std::move(preloaded)), c);
}

}  // namespace

SweepCriteria ParseCriteria(const std::string& objective, const std::string& slo, double max_preemption_rate) {
  SweepCriteria c;
  if (objective != "throughput" && objective != "goodput")
    throw Error("--objective: '" + objective + "' is not throughput or goodput");
  c.objective = objective;
  c.max_preemption_rate = max_preemption_rate;
  std::stringstream ss(slo);
  for (std::string piece; std::getline(ss, piece, ',');) {
    if (piece.empty()) continue;
    const auto eq = piece.find('='), dash = piece.find('-');
    if (eq == std::string::npos || dash == std::string::npos || dash > eq)
      throw Error("--slo: '" + piece + "' is not METRIC-QUANTILE=LIMIT (e.g. ttft-p99=2s)");
    SloConstraint k;
    k.metric = piece.substr(0, dash);
    k.quantile = piece.substr(dash + 1, eq - dash - 1);
    if (k.metric != "ttft" && k.metric != "tpot" && k.metric != "e2e" && k.metric != "queue")
      throw Error("--slo: '" + piece + "': metric must be ttft, tpot, e2e or queue");
    if (k.quantile != "p50" && k.quantile != "p90" && k.quantile != "p99" && k.quantile != "mean")
      throw Error("--slo: '" + piece + "': quantile must be p50, p90, p99 or mean");
    k.limit_s = ParseDurationSeconds(piece.substr(eq + 1), piece);
    if (!(k.limit_s > 0)) throw Error("--slo: '" + piece + "': the limit must be positive");
    k.text = piece;
    c.slos.push_back(k);
  }
  if (c.objective == "goodput" && c.slos.empty()) throw Error("--objective goodput needs --slo thresholds");
  return c;
}

std::vector<VariantRun> RunVariants(std::vector<Variant>& variants, int jobs) {
  // One preload per distinct trace input (usually one for the whole set).
  std::vector<std::shared_ptr<const PreloadedTrace>> preloads(variants.size());
  for (size_t i = 0; i < variants.size(); ++i) {
    for (size_t j = 0; j < i && !preloads[i]; ++j)
      if (SameTraceInput(variants[i].replay, variants[j].replay)) preloads[i] = preloads[j];
    if (!preloads[i]) preloads[i] = PreloadTrace(variants[i].replay);
  }
  std::vector<VariantRun> out(variants.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < variants.size();) out[i] = RunOneVariant(variants[i], preloads[i]);
  };
  const int n = std::max(1, std::min<int>(jobs, static_cast<int>(variants.size())));
  std::vector<std::thread> threads;
  for (int t = 1; t < n; ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  return out;
}

std::vector<PointOutcome> EvaluatePoints(std::vector<Variant> variants, const SweepCriteria& criteria, int jobs) {
  for (Variant& v : variants) ApplyGoodputThresholds(v.replay, criteria);
  const std::vector<VariantRun> runs = RunVariants(variants, jobs);
  std::vector<PointOutcome> out;
  for (size_t i = 0; i < variants.size(); ++i) out.push_back(Outcome(variants[i].label, runs[i], criteria));
  return out;
}

int BestPoint(const std::vector<PointOutcome>& points) {
  int best = -1;
  for (size_t i = 0; i < points.size(); ++i)
    if (points[i].feasible && (best < 0 || points[i].objective > points[static_cast<size_t>(best)].objective))
      best = static_cast<int>(i);
  return best;
}

std::string WhyNotBest(const PointOutcome& p, const PointOutcome& best, const SweepCriteria& c) {
  if (!p.feasible) {
    std::string why;
    for (const auto& v : p.violations) why += (why.empty() ? "" : "; ") + v;
    return "violates: " + why;
  }
  const std::string unit = c.objective == "goodput" ? " goodput req/s" : " req/s";
  if (p.objective >= best.objective) return Fmt("%.3f", p.objective) + unit + ", ties the best (the first listed wins)";
  return Fmt("%.3f", p.objective) + unit + " < best " + Fmt("%.3f", best.objective) + " (" +
         Fmt("%.1f", best.objective > 0 ? 100 * (best.objective - p.objective) / best.objective : 0) + "% lower)";
}

std::string ExplainNoFeasibleProbe(const SearchResult& r, const SweepCriteria& c) {
  const PointOutcome* closest = nullptr;
  for (const auto& [value, p] : r.probes)
    if (p.error.empty() && (!closest || p.summary["throughput"]["requests_per_s"].get<double>() >
                                            closest->summary["throughput"]["requests_per_s"].get<double>()))
      closest = &p;
  if (!closest) return r.probes.empty() ? "nothing was run" : WhyNotBest(r.probes.front().second, {}, c);
  std::string why = "closest: " + closest->label + ", " + WhyNotBest(*closest, {}, c);
  const auto& th = closest->summary["throughput"];
  const double done = th["requests_per_s"].get<double>(), offered = th["offered_requests_per_s"].get<double>();
  // 5% slack: a run that keeps up still ends a little after its last arrival.
  if (offered > 0 && done < 0.95 * offered)
    why += "\n  overloaded: at best " + Fmt("%.3g", done) + " req/s finish while the trace offers " + Fmt("%.3g", offered) +
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
  r.precision = "within " + Fmt("%g", 100 * precision) + "% (bisection on the arrival-rate multiplier)";
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
