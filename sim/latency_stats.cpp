#include "sim/latency_stats.h"

#include <algorithm>
#include <sstream>  // Boost.Accumulators formats its errors with ostringstream without including it

// Boost.Accumulators' extended P² copies a member GCC 12 cannot prove initialised (it is, by the
// probabilities argument); the false positive fires inside Boost's inlined code, so it is silenced
// for this file only.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <boost/accumulators/accumulators.hpp>
#include <boost/accumulators/statistics/extended_p_square_quantile.hpp>
#include <boost/accumulators/statistics/stats.hpp>
#include <cmath>

namespace kvsim {
namespace ba = boost::accumulators;

struct LatencyStats::Accumulators {
  using Set = ba::accumulator_set<double, ba::stats<ba::tag::extended_p_square_quantile(ba::quadratic)>>;
  static constexpr double kProbs[3] = {0.5, 0.9, 0.99};
  explicit Accumulators(std::vector<double> probs) : set{ba::extended_p_square_probabilities = std::move(probs)} {}
  Set set;
};

LatencyStats::LatencyStats()
    : acc_(std::make_unique<Accumulators>(std::vector<double>(std::begin(Accumulators::kProbs), std::end(Accumulators::kProbs)))),
      tail_(std::make_unique<Accumulators>(std::vector<double>{0.999})) {}
LatencyStats::~LatencyStats() = default;
LatencyStats::LatencyStats(LatencyStats&&) noexcept = default;
LatencyStats& LatencyStats::operator=(LatencyStats&&) noexcept = default;

void LatencyStats::Add(double seconds) {
  ++count_;
  sum_ += seconds;
  acc_->set(seconds);
  tail_->set(seconds);
  if (exact_.size() < kExactLimit) exact_.push_back(seconds);
}

double LatencyStats::mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0.0; }

double LatencyStats::Quantile(double p) const {
  if (count_ == 0) return 0.0;
  if (static_cast<size_t>(count_) <= kExactLimit) {
    std::vector<double> v = exact_;
    const size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(v.size())));
    const size_t k = rank == 0 ? 0 : rank - 1;
    std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
    return v[k];
  }
  if (p > 0.99) return ba::quantile(tail_->set, ba::quantile_probability = p);
  return ba::quantile(acc_->set, ba::quantile_probability = p);
}

LatencySummary LatencyStats::Summary() const {
  auto r = [](double x) { return std::round(x * 1e6) / 1e6; };
  return {count_, r(mean()), r(Quantile(0.5)), r(Quantile(0.9)), r(Quantile(0.99)), r(Quantile(0.999))};
}

}  // namespace kvsim
