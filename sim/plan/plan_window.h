// The order in which `kvsim plan` starts its configuration searches, and the bound each starts with.
// Every search runs as soon as a slot (a thread, an MPI rank's thread) is free, yet the plan does not
// depend on how many slots there are or on which search finishes first: the search at position k of
// the order is bounded by the best plan among positions 0 .. k - lag - 1 only, so it starts once
// those have finished, and it starts with the same bound in every run. The lag lets `lag` + 1
// searches run at once without a slot waiting for the longest of a batch.
#ifndef KVSIM_SIM_PLAN_PLAN_WINDOW_H_
#define KVSIM_SIM_PLAN_PLAN_WINDOW_H_

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "sim/plan/plan_search.h"

namespace kvsim {

class PlanWindow {
 public:
  // `progress(done, total)` after every configuration that finishes (pruned ones included).
  PlanWindow(const PlanSpace& space, const PlanSettings& settings, size_t lag,
             std::function<void(size_t done, size_t total)> progress = {});

  // The next search to start, or nullopt when none may start before a running search finishes, or
  // when every search has started. Configurations the bound rules out finish here, unreplayed.
  std::optional<ConfigTask> Next();
  // A started search's answer, in any order.
  void Done(ConfigPlan plan);

  bool AllStarted() const { return next_ == order_.size(); }
  size_t Unstarted() const { return order_.size() - next_; }
  size_t Finished() const { return finished_count_; }

  // The plans so far (every one when AllStarted() and none is running); `partial` marks a stopped search.
  PlanResult Result(bool partial) const;

 private:
  void Finish(size_t position);
  bool Better(int a, int b) const;  // a plan index beats another (-1: none)

  const PlanSpace& space_;
  const PlanSettings& settings_;
  size_t lag_;
  std::function<void(size_t, size_t)> progress_;
  std::vector<size_t> order_;     // configuration indices, cheapest replica first
  std::vector<size_t> position_;  // a configuration's position in order_
  std::vector<int64_t> cap_;      // per configuration: the most replicas the flags allow
  std::vector<bool> finished_;    // per position
  std::vector<int> prefix_best_;  // prefix_best_[p]: the best plan among positions < p (p <= frontier_)
  size_t frontier_ = 0;           // every position below it has finished
  size_t next_ = 0;               // the next position to start
  size_t finished_count_ = 0;
  PlanResult result_;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_PLAN_PLAN_WINDOW_H_
