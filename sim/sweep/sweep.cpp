#include "sim/sweep/sweep.h"

#include <algorithm>
#include <atomic>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "sim/stats/binding.h"

namespace kvsim {
namespace {

double ParseDurationSeconds(const std::string& text, const std::string& piece) {
  size_t used = 0;
  double v = 0;
  try {
    // std::stod reads hexadecimal too: "0x10s" is no duration a user means.
    if (text.find_first_of("xX") != std::string::npos) throw std::invalid_argument("hexadecimal");
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    throw Error("--slo: '" + piece + "': '" + text + "' is not a duration (e.g. 2s, 100ms)");
  }
  const std::string unit = text.substr(used);
  double seconds = 0;
  if (unit == "s" || unit.empty()) seconds = v;
  else if (unit == "ms") seconds = v / 1e3;
  else if (unit == "us") seconds = v / 1e6;
  else throw Error("--slo: '" + piece + "': unit '" + unit + "' is not s, ms or us");
  if (!(seconds > 0 && seconds <= 1e6))
    throw Error("--slo: '" + piece + "': the threshold must be in (0, 10^6] seconds");
  return seconds;
}

SloConstraint ParseSlo(const std::string& piece) {
  const auto eq = piece.find('='), dash = piece.find('-');
  if (eq == std::string::npos || dash == std::string::npos || dash > eq)
    throw Error("--slo: '" + piece + "' is not METRIC-QUANTILE=LIMIT (e.g. ttft-p99=2s)");
  SloConstraint k;
  const auto metric = TryParseEnum<SloMetric>(piece.substr(0, dash));
  if (!metric) throw Error("--slo: '" + piece + "': metric must be " + EnumChoices<SloMetric>(", "));
  const auto quantile = TryParseEnum<SloQuantile>(piece.substr(dash + 1, eq - dash - 1));
  if (!quantile) throw Error("--slo: '" + piece + "': quantile must be " + EnumChoices<SloQuantile>(", "));
  k.metric = *metric;
  k.quantile = *quantile;
  if ((k.metric == SloMetric::kGoodput) != (k.quantile == SloQuantile::kMin))
    throw Error("--slo: '" + piece + "': the goodput fraction is written goodput-min=F (F in (0, 1]); latencies take p50..p99.9 or mean");
  k.limit_s = ParseDurationSeconds(piece.substr(eq + 1), piece);
  if (!(k.limit_s > 0)) throw Error("--slo: '" + piece + "': the limit must be positive");
  if (k.metric == SloMetric::kGoodput && k.limit_s > 1) throw Error("--slo: '" + piece + "': a goodput fraction is at most 1");
  k.text = piece;
  return k;
}

void Judge(PointOutcome& p, const SweepCriteria& c) {
  if (!p.error.empty()) {
    p.feasible = false;
    p.violations.push_back(p.error);
    return;
  }
  const ReplaySummary& s = *p.summary;
  p.objective = c.objective == Objective::kGoodput ? s.goodput.requests_per_s : s.throughput.requests_per_s;
  if (c.objective == Objective::kCost) {
    p.objective = s.cost && s.cost->usd_per_million_output_tokens > 0 ? 1.0 / s.cost->usd_per_million_output_tokens : 0.0;
    if (!s.cost) p.violations.push_back("--objective cost needs --gpu-hourly-cost");
  }
  for (const SloConstraint& slo : c.slos) {
    const double v = SloValue(s, slo.metric, slo.quantile);
    if (slo.metric == SloMetric::kGoodput) {  // at least the limit
      p.distance = std::max(p.distance, v > 0 ? slo.limit_s / v : 1e9);
      if (v < slo.limit_s)
        p.violations.push_back(Format("goodput fraction %.4f < %g", v, slo.limit_s));
      continue;
    }
    p.distance = std::max(p.distance, v / slo.limit_s);
    if (v > slo.limit_s)
      p.violations.push_back(std::string(NameOf(slo.metric)) + "-" + NameOf(slo.quantile) + " " + Format("%.6g", v) +
                             " s > " + Format("%g", slo.limit_s) + " s (by " + Format("%.3g", v - slo.limit_s) + " s)");
  }
  const double finished = static_cast<double>(s.requests.finished);
  const double rate = finished > 0 ? static_cast<double>(s.requests.preemptions) / finished : 0.0;
  if (c.max_preemption_rate >= 0 && rate > c.max_preemption_rate)
    p.violations.push_back("preemption rate " + Format("%.3f", rate) + " > " + Format("%g", c.max_preemption_rate) +
                           " per request");
  if (s.requests.rejected > 0 && finished == 0) p.violations.push_back("no request finished");
  // Honest answers: latency SLOs hold only on requests that got through, so the load must be served.
  if (!s.load_check.served) {
    p.violations.push_back(LoadCheckViolation(s.load_check));
    const LoadCheck& l = s.load_check;
    p.distance = std::max({p.distance, l.served_ratio > 0 ? 1.0 / l.served_ratio : 1e9, l.backlog_fraction / 0.01});
  }
  if (finished == 0) p.distance = std::max(p.distance, 1e9);
  p.feasible = p.violations.empty();
  if (!p.feasible) p.binding = WhatBinds(s);
}

void ApplyGoodputThresholds(ReplayOptions& r, const SweepCriteria& c) {
  for (const SloConstraint& slo : c.slos) {
    if (slo.metric == SloMetric::kTtft || slo.metric == SloMetric::kClientTtft)
      r.slo_ttft_s = r.slo_ttft_s > 0 ? std::min(r.slo_ttft_s, slo.limit_s) : slo.limit_s;
    if (slo.metric == SloMetric::kTpot) r.slo_tpot_s = r.slo_tpot_s > 0 ? std::min(r.slo_tpot_s, slo.limit_s) : slo.limit_s;
  }
}

VariantRun RunOneVariant(Variant& v, ReplayHooks hooks) {
  VariantRun run;
  v.replay.quiet = true;
  v.replay.omit_wall_time = true;  // runs are compared, not timed: keep them deterministic
  if ((hooks.stop && hooks.stop->load()) || (hooks.preloaded && hooks.preloaded->partial)) {
    run.interrupted = true;
    return run;
  }
  try {
    run.result = v.disagg ? RunDisaggregatedReplay(*v.disagg, v.replay, hooks) : RunReplay(v.deployment, v.replay, hooks);
    run.interrupted = run.result->summary.partial;
    std::vector<std::string>& warnings = run.result->summary.warnings;
    warnings.insert(warnings.begin(), v.warnings.begin(), v.warnings.end());
  } catch (const Error& e) {
    run.error = e.what();
  }
  return run;
}

PointOutcome Outcome(const std::string& label, const VariantRun& run, const SweepCriteria& c) {
  PointOutcome p;
  p.label = label;
  p.error = run.error;
  p.interrupted = run.interrupted;
  if (run.interrupted) return p;  // a replay cut short is not judged
  if (run.result) p.summary = run.result->summary;
  Judge(p, c);
  return p;
}

}  // namespace

double SloValue(const ReplaySummary& s, SloMetric metric, SloQuantile quantile) {
  if (metric == SloMetric::kGoodput) return s.goodput.fraction;
  const LatencySummary* l = &s.latency_s.ttft;
  switch (metric) {
    case SloMetric::kGoodput: break;
    case SloMetric::kQueue: l = &s.latency_s.queue; break;
    case SloMetric::kTtft: l = &s.latency_s.ttft; break;
    case SloMetric::kClientTtft: l = &s.latency_s.client_ttft; break;
    case SloMetric::kServerTtft: l = &s.latency_s.server_ttft; break;
    case SloMetric::kTpot: l = &s.latency_s.tpot; break;
    case SloMetric::kItl: l = &s.latency_s.itl; break;
    case SloMetric::kE2e: l = &s.latency_s.e2e; break;
  }
  switch (quantile) {
    case SloQuantile::kMean: return l->mean;
    case SloQuantile::kP50: return l->p50;
    case SloQuantile::kP90: return l->p90;
    case SloQuantile::kP99: return l->p99;
    case SloQuantile::kP999: return l->p999;
    case SloQuantile::kMin: return l->p50;  // not a latency quantile (ParseSlo allows it for goodput only)
  }
  return l->p99;
}

SweepCriteria ParseCriteria(const std::string& objective, const std::string& slo, double max_preemption_rate) {
  SweepCriteria c;
  c.objective = ParseEnum<Objective>(objective, "--objective");
  c.max_preemption_rate = max_preemption_rate;
  std::stringstream ss(slo);
  for (std::string piece; std::getline(ss, piece, ',');) {
    if (piece.empty()) continue;
    SloConstraint k = ParseSlo(piece);
    // Two limits on one metric and quantile: the stricter would decide and the other be ignored.
    for (const SloConstraint& seen : c.slos)
      if (seen.metric == k.metric && seen.quantile == k.quantile)
        throw Error("--slo: '" + seen.text + "' and '" + k.text + "' limit the same quantile; give one limit");
    c.slos.push_back(std::move(k));
  }
  if (c.objective == Objective::kGoodput && c.slos.empty()) throw Error("--objective goodput needs --slo thresholds");
  return c;
}

std::vector<VariantRun> RunVariants(std::vector<Variant>& variants, int jobs,
                                    const std::function<std::vector<ReplayObserver*>(size_t)>& observers_for,
                                    const std::atomic<bool>* stop) {
  // One preload per distinct trace input (usually one for the whole set).
  std::vector<std::shared_ptr<const PreloadedTrace>> preloads(variants.size());
  for (size_t i = 0; i < variants.size(); ++i) {
    for (size_t j = 0; j < i && !preloads[i]; ++j)
      if (SameTraceInput(variants[i].replay, variants[j].replay)) preloads[i] = preloads[j];
    if (!preloads[i]) preloads[i] = PreloadTrace(variants[i].replay, stop);
  }
  std::vector<VariantRun> out(variants.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < variants.size();) {
      ReplayHooks hooks;
      hooks.preloaded = preloads[i];
      hooks.stop = stop;
      if (observers_for) hooks.observers = observers_for(i);
      out[i] = RunOneVariant(variants[i], hooks);
    }
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

GridOutcome EvaluateGrid(std::vector<Variant> variants, const SweepCriteria& criteria, int jobs,
                         const std::atomic<bool>* stop) {
  for (Variant& v : variants) ApplyGoodputThresholds(v.replay, criteria);
  const std::vector<VariantRun> runs = RunVariants(variants, jobs, {}, stop);
  GridOutcome out;
  for (size_t i = 0; i < variants.size(); ++i) {
    if (runs[i].interrupted) out.unfinished.push_back({variants[i].label, "interrupted"});
    else out.points.push_back(Outcome(variants[i].label, runs[i], criteria));
  }
  out.partial = !out.unfinished.empty();
  return out;
}

PointOutcome EvaluateOne(Variant& v, const SweepCriteria& c, std::shared_ptr<const PreloadedTrace> preloaded,
                         const std::atomic<bool>* stop) {
  ApplyGoodputThresholds(v.replay, c);
  ReplayHooks hooks;
  hooks.preloaded = std::move(preloaded);
  hooks.stop = stop;
  return Outcome(v.label, RunOneVariant(v, hooks), c);
}

int BestPoint(const std::vector<PointOutcome>& points) {
  int best = -1;
  for (size_t i = 0; i < points.size(); ++i)
    if (points[i].feasible && (best < 0 || points[i].objective > points[static_cast<size_t>(best)].objective))
      best = static_cast<int>(i);
  return best;
}

const char* ObjectiveUnit(Objective objective) {
  switch (objective) {
    case Objective::kThroughput: return "req/s";
    case Objective::kGoodput: return "goodput req/s";
    case Objective::kCost: return "M output tokens/USD";
  }
  return "";
}

std::string WhyNotBest(const PointOutcome& p, const PointOutcome& best, const SweepCriteria& c) {
  if (!p.feasible) return "violates: " + Join(p.violations, "; ");
  const std::string unit = std::string(" ") + ObjectiveUnit(c.objective);
  if (p.objective >= best.objective) return Format("%.3f", p.objective) + unit + ", ties the best (the first listed wins)";
  return Format("%.3f", p.objective) + unit + " < best " + Format("%.3f", best.objective) + " (" +
         Format("%.1f", best.objective > 0 ? 100 * (best.objective - p.objective) / best.objective : 0) + "% lower)";
}

}  // namespace kvsim
