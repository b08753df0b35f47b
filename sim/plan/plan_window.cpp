#include "sim/plan/plan_window.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "kvcache/base/check.h"
#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"

namespace kvsim {
namespace {

double PriceOf(const PlanSettings& settings, const PlanConfig& c) {
  const auto it = settings.gpu_hourly_usd.find(c.gpu);
  return it == settings.gpu_hourly_usd.end() ? 0.0 : it->second;
}

// The largest replica count whose key can still tie or beat `best` (which is found), given the
// configuration's GPUs per replica and price; 0 when not even one replica can. Only cost and GPUs
// grow with the replicas; the latency objective has no such bound.
//
// Proof that the bound drops no winner: a plan's key is replicas x g x price (cost) or
// replicas x g (GPUs), strictly increasing in the replicas. A configuration wins only with a key at
// most the best found so far (the best only falls as the search goes on, so it is at least the
// winner's key), i.e. only with at most this many replicas. Its fewest replicas meeting the SLOs,
// if within the bound, are found by the search over [1, bound] (replica counts are monotone: more
// replicas of the same configuration never make the SLOs worse, the same assumption the sweep's
// --find replicas makes, which --exhaustive checks by replaying every count); if they lie beyond it,
// or do not exist, the configuration's key is above the best and it cannot win. Any set of finished
// plans gives a valid bound, so the window's lag changes what is replayed, never the winner.
int64_t ReplicasWithin(const ConfigPlan& best, int64_t gpus_per_replica, double price, PlanObjective objective) {
  if (objective == PlanObjective::kLatency) return std::numeric_limits<int64_t>::max();
  int64_t n = 0;
  if (objective == PlanObjective::kGpus) {
    n = best.gpus / gpus_per_replica;
  } else {
    const double per_replica = static_cast<double>(gpus_per_replica) * price;
    if (!(per_replica > 0)) return std::numeric_limits<int64_t>::max();
    n = static_cast<int64_t>(std::floor(best.usd_per_hour / per_replica));
    // The same product PricePlan computes decides, not the division's rounding.
    while (n >= 0 && static_cast<double>(n + 1) * static_cast<double>(gpus_per_replica) * price <= best.usd_per_hour) ++n;
    while (n > 0 && static_cast<double>(n) * static_cast<double>(gpus_per_replica) * price > best.usd_per_hour) --n;
  }
  return n;
}

}  // namespace

PlanWindow::PlanWindow(const PlanSpace& space, const PlanSettings& settings, size_t lag,
                       std::function<void(size_t, size_t)> progress)
    : space_(space), settings_(settings), lag_(lag), progress_(std::move(progress)) {
  const size_t n = space.configs.size();
  if (settings.objective == PlanObjective::kCost)
    for (const PlanConfig& c : space.configs)
      if (!(PriceOf(settings, c) > 0)) throw Error("--gpu-hourly-cost: no price for " + c.gpu + " (the GPU table has none; give GPU=USD)");
  result_.plans.resize(n);
  // The most replicas each configuration may use: --max-replicas, and --max-gpus over its GPUs.
  cap_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t g = space.configs[i].GpusPerReplica();
    cap_[i] = settings.max_replicas;
    if (settings.max_gpus > 0) cap_[i] = std::min(cap_[i], settings.max_gpus / g);
    result_.points += std::max<int64_t>(cap_[i], 0);
    result_.plans[i].config = i;
    if (cap_[i] < 1)
      result_.plans[i].not_searched = Format("one replica's %lld GPUs exceed --max-gpus %lld", static_cast<long long>(g),
                                             static_cast<long long>(settings.max_gpus));
  }
  // Cheapest first by what one replica costs (the key's lower bound at one replica), so that the
  // bound is tight early; the order does not change the answer (PlanBeats breaks ties by index).
  order_.resize(n);
  for (size_t i = 0; i < n; ++i) order_[i] = i;
  auto one_replica_key = [&](size_t i) {
    const double g = static_cast<double>(space.configs[i].GpusPerReplica());
    const double usd = g * PriceOf(settings, space.configs[i]);
    return settings.objective == PlanObjective::kGpus ? std::tuple(g, usd) : std::tuple(usd, g);
  };
  std::stable_sort(order_.begin(), order_.end(), [&](size_t a, size_t b) { return one_replica_key(a) < one_replica_key(b); });
  position_.resize(n);
  for (size_t p = 0; p < n; ++p) position_[order_[p]] = p;
  finished_.assign(n, false);
  prefix_best_.assign(n + 1, -1);
  // --exhaustive has no bound to wait for: every search may start at once.
  if (settings.exhaustive) lag_ = n;
}

bool PlanWindow::Better(int a, int b) const {
  if (a < 0) return false;
  if (b < 0) return result_.plans[static_cast<size_t>(a)].found;
  return result_.plans[static_cast<size_t>(a)].found &&
         PlanBeats(result_.plans[static_cast<size_t>(a)], result_.plans[static_cast<size_t>(b)], settings_.objective);
}

void PlanWindow::Finish(size_t position) {
  KVSIM_DCHECK(!finished_[position]);  // a configuration finishes once
  finished_[position] = true;
  ++finished_count_;
  while (frontier_ < order_.size() && finished_[frontier_]) {
    const int here = static_cast<int>(order_[frontier_]);
    prefix_best_[frontier_ + 1] = Better(here, prefix_best_[frontier_]) ? here : prefix_best_[frontier_];
    ++frontier_;
  }
  if (progress_) progress_(finished_count_, order_.size());
}

std::optional<ConfigTask> PlanWindow::Next() {
  while (next_ < order_.size()) {
    const size_t k = next_;
    const size_t i = order_[k];
    if (cap_[i] < 1) {
      ++next_;
      Finish(k);
      continue;
    }
    // Bounded by the positions at least lag_ + 1 behind: every one of them must have finished.
    const size_t known = k > lag_ ? k - lag_ : 0;
    if (frontier_ < known) return std::nullopt;
    int64_t upper = cap_[i];
    const int best = prefix_best_[known];
    if (best >= 0) {
      const ConfigPlan& b = result_.plans[static_cast<size_t>(best)];
      const PlanConfig& c = space_.configs[i];
      upper = std::min(upper, ReplicasWithin(b, c.GpusPerReplica(), PriceOf(settings_, c), settings_.objective));
      if (upper < 1) {
        result_.plans[i].not_searched =
            settings_.objective == PlanObjective::kGpus
                ? Format("one replica's %lld GPUs > the best plan's %lld", static_cast<long long>(c.GpusPerReplica()),
                         static_cast<long long>(b.gpus))
                : Format("one replica costs %.2f USD/h > the best plan's %.2f",
                         static_cast<double>(c.GpusPerReplica()) * PriceOf(settings_, c), b.usd_per_hour);
        ++next_;
        Finish(k);
        continue;
      }
    }
    ++next_;
    return ConfigTask{i, upper};
  }
  return std::nullopt;
}

void PlanWindow::Done(ConfigPlan plan) {
  const size_t i = plan.config;
  KVSIM_CHECK(i < result_.plans.size() && position_[i] < next_, "a plan answers a search the window started");
  ConfigPlan& p = result_.plans[i];
  p = std::move(plan);
  PricePlan(p, space_.configs[i], settings_);
  result_.replays += p.replays;
  Finish(position_[i]);
}

PlanResult PlanWindow::Result(bool partial) const {
  PlanResult r = result_;
  r.partial = partial;
  int best = -1;
  for (size_t p = 0; p < order_.size(); ++p)
    if (finished_[p] && Better(static_cast<int>(order_[p]), best)) best = static_cast<int>(order_[p]);
  r.winner = best;
  return r;
}

}  // namespace kvsim
