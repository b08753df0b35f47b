#include "sim/timing/speculative_step.h"

#include "kvcache/base/check.h"

namespace kvsim {
namespace {

StepWork Plus(StepWork a, const StepWork& b) {
  a.new_tokens += b.new_tokens;
  a.context_tokens += b.context_tokens;
  a.attended += b.attended;
  a.sequences += b.sequences;
  a.draft_tokens += b.draft_tokens;
  return a;
}

}  // namespace

SpeculativeStep TimeSpeculativeStep(const StepModel& target, const StepModel* proposer, int64_t proposer_passes,
                                    int64_t decode_seqs, int64_t decode_context, const StepWork& prefills,
                                    const std::vector<double>& accepted_at) {
  const int64_t k = static_cast<int64_t>(accepted_at.size());
  KVSIM_CHECK(k >= 1 && decode_seqs >= 1, "a speculative step needs drafts and decoding sequences");
  SpeculativeStep s;
  s.tokens = k;
  s.accepted_at = accepted_at;
  s.expected_tokens = 1;
  for (const double a : accepted_at) s.expected_tokens += a;
  StepWork plain, verify;
  plain.Add(1, decode_context, decode_seqs);
  verify.Add(1 + k, decode_context, decode_seqs);
  verify.draft_tokens = k * decode_seqs;
  s.plain_seconds = target.Breakdown(Plus(plain, prefills)).total();
  s.verify_work = Plus(verify, prefills);
  s.verify = target.Breakdown(s.verify_work);
  s.verify_operators = target.Operators(s.verify_work);
  if (proposer && proposer_passes > 0) {
    s.proposer_passes = proposer_passes;
    s.draft_work.Add(1, decode_context, decode_seqs);
    s.draft_pass = proposer->Breakdown(s.draft_work);
    s.draft_operators = proposer->Operators(s.draft_work);
  }
  return s;
}

}  // namespace kvsim
