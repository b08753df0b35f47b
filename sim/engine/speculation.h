// Speculative decoding in replay, as vLLM v1 schedules and verifies it (v0.11 line):
//  - v1/core/sched/scheduler.py: a decoding request with k draft tokens is scheduled 1 + k tokens
//    (num_new_tokens = 1 + len(spec_token_ids)), taken from max_num_batched_tokens like any other
//    token and cut to the budget that is left;
//  - v1/sample/rejection_sampler.py: the target verifies them in the same forward; the first
//    rejected position ends the accepted run, and one more token (the bonus or the recovered one)
//    is sampled, so a step gives 1 + accepted tokens;
//  - v1/spec_decode/eagle.py (EAGLE, EAGLE-3, MTP) and the draft-model proposer run k forward
//    passes of the drafter over the decoding requests after the target's step; n-gram matching
//    (ngram_proposer.py) runs on the CPU and is not timed here.
// Acceptance: accepted_at[i] is the probability that draft position i + 1 is accepted, as vLLM's
// per-position acceptance-rate metric reports it (non-increasing; a single rate a gives a^i). One
// uniform draw per request and step, from the run's seed, gives a run of accepted positions with
// exactly those probabilities.
#ifndef KVSIM_SIM_ENGINE_SPECULATION_H_
#define KVSIM_SIM_ENGINE_SPECULATION_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "sim/engine/batched_mt19937_64.h"
#include "sim/timing/step_timer.h"

namespace kvsim {

struct SpeculationOptions {
  int64_t tokens = 0;                 // k = num_speculative_tokens; 0: no speculation
  std::vector<double> accepted_at;    // size k, non-increasing, each in [0, 1]
  uint64_t seed = 1;
  const StepTimer* proposer = nullptr;  // times one drafter pass; null: no GPU drafting (n-gram)
  int64_t proposer_passes = 0;          // drafter forwards per step (k for EAGLE / MTP / draft models)
};

// Draws how many of a request's k draft tokens the target accepts this step.
class AcceptanceDraw {
 public:
  explicit AcceptanceDraw(const SpeculationOptions& o) : rng_(o.seed ^ 0x5bd1e995u) {
    // Position i + 1 is reached only through position i: a rate above an earlier one counts as it.
    double rate = 1.0;
    for (const double a : o.accepted_at) {
      rate = std::min(rate, a);
      if (Uniform(UINT64_MAX) < rate) ++always_;  // every draw accepts it (a rate of 1)
      else below_.push_back(FirstDrawNotBelow(rate));
    }
    // The run is the same for every x of a range of 2^56 that no threshold splits (it falls as x
    // rises): its first and last x agree.
    for (uint64_t top = 0; top < kRanges; ++top) {
      const int64_t lo = Count(top << kRangeShift), hi = Count((top << kRangeShift) | ((uint64_t{1} << kRangeShift) - 1));
      by_range_[top] = lo == hi && lo <= INT8_MAX ? static_cast<int8_t>(lo) : int8_t{-1};
    }
  }
  // The accepted run: the positions before the first one whose rate the draw u reaches, u the
  // double std::uniform_real_distribution<double>(0, 1) makes of the engine's next number x
  // (libstdc++'s generate_canonical: x / 2^64, a result that rounds to 1 taken as the double
  // below 1).
  // speed: u < rate exactly when x is below an integer threshold found once, and the rates do not
  // rise, so the run is the count of thresholds above x, taken without a branch (the draw is made
  // for every decoding request at every step, and a loop that stops at the first failure
  // mispredicts about once a draw); and as most ranges of x's top bits hold no threshold, the count
  // is looked up by them, and counted only in the few ranges that do. The same runs as the loop
  // over u (decode_runs_test.cpp).
  int64_t Next() {
    const uint64_t x = rng_();
    const int8_t n = by_range_[x >> kRangeShift];
    return n >= 0 ? n : Count(x);
  }
  // u as the distribution makes it from x: the thresholds are found on it (the tests check it too).
  static double Uniform(uint64_t x) {
    const double u = static_cast<double>(x) * 0x1p-64;
    return u < 1.0 ? u : 0x1.fffffffffffffp-1;
  }

 private:
  // The least x whose u is not below `rate` (u rises with x). REQUIRES: Uniform(UINT64_MAX) >= rate.
  static uint64_t FirstDrawNotBelow(double rate) {
    uint64_t lo = 0, hi = UINT64_MAX;  // Uniform(hi) >= rate
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (Uniform(mid) < rate) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  int64_t Count(uint64_t x) const {
    int64_t n = always_;
    for (const uint64_t t : below_) n += x < t;
    return n;
  }
  static constexpr int kRangeShift = 56;
  static constexpr uint64_t kRanges = uint64_t{1} << (64 - kRangeShift);
  int64_t always_ = 0;          // the first positions, accepted by every draw
  std::vector<uint64_t> below_;  // each later position: draws below it accept it
  std::array<int8_t, kRanges> by_range_;  // Count over each range of x's top bits; −1: it varies there
  BatchedMt19937_64 rng_;  // std::mt19937_64's numbers
};

// The per-position rates a --spec-acceptance value gives for k drafts: one rate a -> a, a^2, ...;
// a list is taken as given (its length must be k). Throws kvsim::Error naming the flag.
std::vector<double> AcceptanceRates(const std::vector<double>& given, int64_t k);

}  // namespace kvsim

#endif  // KVSIM_SIM_ENGINE_SPECULATION_H_
