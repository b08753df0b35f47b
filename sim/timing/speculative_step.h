// One engine step with speculative decoding, as vLLM v1 runs it (sim/engine/speculation.h), timed
// for `kvsim step` beside the plain step:
//  - verify: the target's forward with each decoding sequence scheduled 1 + k tokens (its last
//    sampled token and the k drafts) against its context, logits at all 1 + k positions; prefills
//    as in the plain step;
//  - drafting: the proposer's passes after it, as DraftingTimer times them for the replay (none for
//    n-gram matching, which runs on the CPU);
//  - the expected tokens a decoding sequence gains per step, 1 + Σ accepted_at (position i is
//    accepted with probability accepted_at[i], the bonus or recovered token always comes), so the
//    time per output token is (verify + drafting) / expected tokens against the plain step / 1.
#ifndef KVSIM_SIM_TIMING_SPECULATIVE_STEP_H_
#define KVSIM_SIM_TIMING_SPECULATIVE_STEP_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/timing/step_model.h"
#include "sim/timing/step_timer.h"

namespace kvsim {

// One step's drafting, pass by pass.
struct DraftingTime {
  StepWork first_work;        // the first pass: 1 + k tokens per decoding request
  StepBreakdown first_pass;
  StepWork later_work;        // each later pass: one token per decoding request
  StepBreakdown later_pass;
  int64_t later_passes = 0;   // k - 1
  double exposed_host_s = 0;  // GPU idle on the host: one pass's preparation and the prologue
  double prologue_s = 0;      // the part of exposed_host_s before the first pass (drafting_prologue.h)
  double total() const {
    return first_pass.total() + static_cast<double>(later_passes) * later_pass.total() + exposed_host_s;
  }
};

// A step's drafting as vLLM v1's EagleProposer.propose() runs it for EAGLE, EAGLE-3, MTP and draft
// models (vllm/v1/spec_decode/eagle.py, main at 008603a; the same shape since the v0.9 line):
//  - the first pass runs the drafter over every token the target just scheduled
//    (num_tokens = target_token_ids.shape[0]): for a decoding request its last sampled token and its
//    k drafts, 1 + k tokens at the request's context (the padded drafter batch keeps the rejected
//    drafts as padding), writing the drafter's own KV for them and attending its own KV cache over
//    the whole context, in one attention call of 1 + k queries per request, timed as a verify's
//    (fa2_multi_query_attention.h on FlashAttention-2);
//  - the other k - 1 passes (the loop over token_index) run one token per request;
//  - the host: nothing inside the loop waits for the GPU, so a pass's launches overlap the previous
//    pass's kernels (the pass model's overlapped host), but one pass's host preparation per step has
//    the GPU idle: the step's sampled tokens are read back to the host before propose() is called
//    (gpu_model_runner.py, v0.9-0.10 line: the rejection sampler's parse_output lists), and at main
//    `num_rejected_tokens_gpu.to("cpu")` in propose() waits for the first pass before the second is
//    prepared. vllm#49488 profiles the same serialisation (the GPU idle on the host's per-pass
//    metadata rebuild between graphed drafter forwards).
//  - before the first pass, the host builds the drafter's inputs with the GPU idle (the accepted
//    tokens read back, then two scalar reads in propose(): DraftingPrologue, drafting_prologue.h).
// The engine asks for one pass at a time (SpeculationOptions: passes x StepNs of the one-token
// work), so StepNs is the step's drafting divided by its passes.
class DraftingTimer final : public StepTimer {
 public:
  // `pass` times one drafter pass; `drafts` = k >= 1 and `passes` >= 1 the forwards per step;
  // `host_prepare_s` >= 0 the host work of preparing one pass (its launches and graph replays);
  // `prologue_s` >= 0 the step's host work before the first pass (DraftingPrologue::Seconds).
  DraftingTimer(std::unique_ptr<StepModel> pass, int64_t drafts, int64_t passes, double host_prepare_s,
                double prologue_s);

  // The step's drafting for the decoding requests `decoding` describes one token each at its
  // context (StepWork::Add(1, context) per request, as the engine and `kvsim step` build it).
  DraftingTime Time(const StepWork& decoding) const;
  // Time(decoding).total() / passes, in nanoseconds (>= 1).
  int64_t StepNs(const StepWork& decoding) const override;
  std::unique_ptr<DecodeRunTimer> DecodeRun(int64_t sequences) const override;
  std::string Describe() const override { return pass_->Describe(); }

  const StepModel& pass() const { return *pass_; }
  int64_t passes() const { return passes_; }

 private:
  std::unique_ptr<StepModel> pass_;
  int64_t drafts_ = 0, passes_ = 0;
  double host_prepare_s_ = 0, prologue_s_ = 0;
};

struct SpeculativeStep {
  int64_t tokens = 0;                 // k = num_speculative_tokens
  std::vector<double> accepted_at;    // per draft position
  double expected_tokens = 0;         // per decoding sequence and step: 1 + Σ accepted_at
  StepWork verify_work;
  StepBreakdown verify;
  std::vector<OperatorCost> verify_operators;
  int64_t proposer_passes = 0;        // 0: no drafter forward on the GPU
  DraftingTime drafting;              // the passes, as DraftingTimer times them
  StepWork draft_work;                // one later drafter pass (one token per sequence)
  StepBreakdown draft_pass;           // one later drafter pass
  std::vector<OperatorCost> draft_operators;  // one later drafter pass
  double plain_seconds = 0;           // the step without speculation

  double draft_seconds() const { return proposer_passes > 0 ? drafting.total() : 0.0; }
  double step_seconds() const { return verify.total() + draft_seconds(); }
  // Per output token of a decoding sequence, with and without speculation.
  double seconds_per_token() const { return step_seconds() / expected_tokens; }
  double plain_seconds_per_token() const { return plain_seconds; }
  bool pays() const { return seconds_per_token() < plain_seconds_per_token(); }
};

// `decode_seqs` (>= 1) sequences decoding at `decode_context` tokens each beside `prefills` (the
// prefilling part of the batch, possibly empty). `proposer` times the drafting, `proposer_passes`
// forwards (null or 0: no GPU drafting). REQUIRES: accepted_at.size() == k, k >= 1.
SpeculativeStep TimeSpeculativeStep(const StepModel& target, const DraftingTimer* proposer, int64_t proposer_passes,
                                    int64_t decode_seqs, int64_t decode_context, const StepWork& prefills,
                                    const std::vector<double>& accepted_at);

}  // namespace kvsim

#endif  // KVSIM_SIM_TIMING_SPECULATIVE_STEP_H_
