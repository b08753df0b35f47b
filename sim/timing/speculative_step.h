// One engine step with speculative decoding, as vLLM v1 runs it (sim/engine/speculation.h), timed
// for `kvsim step` beside the plain step:
//  - verify: the target's forward with each decoding sequence scheduled 1 + k tokens (its last
//    sampled token and the k drafts) against its context, logits at all 1 + k positions; prefills
//    as in the plain step;
//  - drafting: the proposer's passes after it, each one token per decoding sequence over the same
//    contexts, as the replay times them (none for n-gram matching, which runs on the CPU);
//  - the expected tokens a decoding sequence gains per step, 1 + Σ accepted_at (position i is
//    accepted with probability accepted_at[i], the bonus or recovered token always comes), so the
//    time per output token is (verify + drafting) / expected tokens against the plain step / 1.
#ifndef KVSIM_SIM_TIMING_SPECULATIVE_STEP_H_
#define KVSIM_SIM_TIMING_SPECULATIVE_STEP_H_

#include <cstdint>
#include <vector>

#include "sim/timing/step_model.h"

namespace kvsim {

struct SpeculativeStep {
  int64_t tokens = 0;                 // k = num_speculative_tokens
  std::vector<double> accepted_at;    // per draft position
  double expected_tokens = 0;         // per decoding sequence and step: 1 + Σ accepted_at
  StepWork verify_work;
  StepBreakdown verify;
  std::vector<OperatorCost> verify_operators;
  int64_t proposer_passes = 0;        // 0: no drafter forward on the GPU
  StepWork draft_work;                // one drafter pass
  StepBreakdown draft_pass;           // one drafter pass
  std::vector<OperatorCost> draft_operators;  // one drafter pass
  double plain_seconds = 0;           // the step without speculation

  double draft_seconds() const { return static_cast<double>(proposer_passes) * draft_pass.total(); }
  double step_seconds() const { return verify.total() + draft_seconds(); }
  // Per output token of a decoding sequence, with and without speculation.
  double seconds_per_token() const { return step_seconds() / expected_tokens; }
  double plain_seconds_per_token() const { return plain_seconds; }
  bool pays() const { return seconds_per_token() < plain_seconds_per_token(); }
};

// `decode_seqs` (>= 1) sequences decoding at `decode_context` tokens each beside `prefills` (the
// prefilling part of the batch, possibly empty). `proposer` times one drafter pass and runs
// `proposer_passes` times (null or 0: no GPU drafting). REQUIRES: accepted_at.size() == k, k >= 1.
SpeculativeStep TimeSpeculativeStep(const StepModel& target, const StepModel* proposer, int64_t proposer_passes,
                                    int64_t decode_seqs, int64_t decode_context, const StepWork& prefills,
                                    const std::vector<double>& accepted_at);

}  // namespace kvsim

#endif  // KVSIM_SIM_TIMING_SPECULATIVE_STEP_H_
