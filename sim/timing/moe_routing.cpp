#include "sim/timing/moe_routing.h"

#include <algorithm>
#include <cmath>

#include "kvcache/base/check.h"

namespace kvsim {
namespace {

// The sums run over the mean ± kSpread standard deviations: the mass outside is below 1e-30.
constexpr double kSpread = 12;

}  // namespace

double ExpectedTouchedExperts(double experts, double top_k, double tokens) {
  KVSIM_DCHECK(top_k > 0 && top_k <= experts);
  return experts * (1.0 - std::pow(1.0 - top_k / experts, tokens));
}

double ExpectedPaddedRows(double tokens, double p, double block) {
  KVSIM_DCHECK(p >= 0 && p <= 1 && block >= 1);
  const double n = std::floor(tokens);
  if (n <= 0 || p <= 0) return 0;
  if (p >= 1) return std::ceil(n / block) * block;
  const double mean = n * p, sd = std::sqrt(n * p * (1 - p));
  const double lo = std::max(0.0, std::floor(mean - kSpread * sd - 1)), hi = std::min(n, std::ceil(mean + kSpread * sd + 1));
  const double log_p = std::log(p), log_q = std::log1p(-p), log_n = std::lgamma(n + 1);
  double rows = 0;
  for (double x = std::max(1.0, lo); x <= hi; ++x) {
    const double pmf = std::exp(log_n - std::lgamma(x + 1) - std::lgamma(n - x + 1) + x * log_p + (n - x) * log_q);
    rows += pmf * std::ceil(x / block);
  }
  return rows * block;
}

double FusedMoeBlockRows(double tokens, double experts) { return tokens <= experts ? 16 : 64; }

double ExpectedMaxLoad(double assignments, double bins) {
  KVSIM_DCHECK(bins >= 1);
  const double lambda = assignments / bins;
  if (bins <= 1 || lambda <= 0) return std::max(0.0, lambda);
  // E[max] = Σ_{x ≥ 0} P(max > x) = Σ (1 − F(x)^bins); below `lo` F is negligible, every term 1.
  const double sd = std::sqrt(lambda);
  const double lo = std::max(0.0, std::floor(lambda - kSpread * sd - 1));
  const double hi = std::ceil(lambda + kSpread * sd + 4 * std::log(bins) + 20);
  const double log_lambda = std::log(lambda);
  double expected = lo, cdf = 0;
  for (double x = lo; x <= hi; ++x) {
    cdf += std::exp(x * log_lambda - lambda - std::lgamma(x + 1));
    expected += 1.0 - std::pow(std::min(1.0, cdf), bins);
  }
  return expected;
}

}  // namespace kvsim
