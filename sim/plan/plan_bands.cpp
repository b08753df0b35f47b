#include "sim/plan/plan_bands.h"

#include <algorithm>
#include <optional>

#include "kvcache/base/text_format.h"

namespace kvsim {
namespace {

std::optional<ErrorMetric> ErrorMetricOf(SloMetric m) {
  switch (m) {
    case SloMetric::kTtft:
    case SloMetric::kClientTtft:
    case SloMetric::kServerTtft: return ErrorMetric::kTtft;
    case SloMetric::kTpot:
    case SloMetric::kItl: return ErrorMetric::kTpot;
    case SloMetric::kE2e: return ErrorMetric::kE2e;
    case SloMetric::kQueue:
    case SloMetric::kGoodput: break;
  }
  return std::nullopt;
}

}  // namespace

ErrorRegime RegimeOf(const Deployment& d, const ReplaySummary& s, int64_t replicas) {
  ErrorRegime r;
  r.model = d.model.is_moe() ? ModelClass::kMoe : ModelClass::kDense;
  r.gpu_family = d.gpu.generation;  // the GPU table's architecture column
  const double slots = static_cast<double>(d.config.max_num_seqs.value_or(256)) * static_cast<double>(std::max<int64_t>(1, replicas));
  r.load = ClassifyLoad(slots > 0 ? s.concurrency.mean_running / slots : 0.0);
  return r;
}

std::vector<LatencyBand> BandsFor(const ReplaySummary& s, const ErrorRegime& regime, const SweepCriteria& c,
                                  const ErrorBands& bands) {
  std::vector<LatencyBand> out;
  for (const SloConstraint& slo : c.slos) {
    if (slo.metric == SloMetric::kGoodput) continue;
    LatencyBand b;
    b.slo = slo;
    b.predicted_s = SloValue(s, slo.metric, slo.quantile);
    const std::optional<ErrorMetric> metric = ErrorMetricOf(slo.metric);
    b.band = metric ? bands.For(*metric, regime) : ErrorBand{1, 1, 0, "no band for this metric"};
    b.pessimistic_s = b.predicted_s * b.band.high;
    b.holds = b.predicted_s <= slo.limit_s;
    b.holds_at_edge = b.pessimistic_s <= slo.limit_s;
    out.push_back(b);
  }
  return out;
}

void JudgeAtPessimisticEdge(PointOutcome& p, const std::vector<LatencyBand>& bands) {
  if (!p.feasible) return;
  for (const LatencyBand& b : bands) {
    if (b.holds_at_edge) continue;
    const std::string name = std::string(NameOf(b.slo.metric)) + "-" + NameOf(b.slo.quantile);
    p.violations.push_back(Format("%s at the pessimistic edge %.4g s (%.4g s x %.3g, %s) > %g s", name.c_str(),
                                  b.pessimistic_s, b.predicted_s, b.band.high, b.band.regime.c_str(), b.slo.limit_s));
    p.distance = std::max(p.distance, b.pessimistic_s / b.slo.limit_s);
  }
  p.feasible = p.violations.empty();
}

}  // namespace kvsim
