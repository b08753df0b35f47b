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

std::string GpuFamily(const GpuSpec& gpu) {
  const std::string& id = gpu.id;
  // By the table's ids (NVIDIA's and AMD's product names for each architecture).
  if (StartsWith(id, "a100") || StartsWith(id, "a800") || StartsWith(id, "a10") || StartsWith(id, "rtx3090") ||
      StartsWith(id, "a30") || StartsWith(id, "a40"))
    return "ampere";
  if (StartsWith(id, "l4") || StartsWith(id, "l20") || StartsWith(id, "rtx4090")) return "ada";
  if (StartsWith(id, "h100") || StartsWith(id, "h200") || StartsWith(id, "h800") || StartsWith(id, "h20") ||
      StartsWith(id, "gh200"))
    return "hopper";
  if (StartsWith(id, "b200") || StartsWith(id, "gb200") || StartsWith(id, "b300") || StartsWith(id, "gb300") ||
      StartsWith(id, "rtx-pro-6000"))
    return "blackwell";
  if (StartsWith(id, "mi300") || StartsWith(id, "mi325")) return "cdna3";
  if (StartsWith(id, "mi355")) return "cdna4";
  if (StartsWith(id, "t4")) return "turing";
  if (StartsWith(id, "v100")) return "volta";
  return "";
}

ErrorRegime RegimeOf(const Deployment& d, const ReplaySummary& s, int64_t replicas) {
  ErrorRegime r;
  r.model = d.model.is_moe() ? ModelClass::kMoe : ModelClass::kDense;
  r.gpu_family = GpuFamily(d.gpu);
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
