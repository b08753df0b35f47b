#include "sim/timing/speculative_step.h"

#include <algorithm>
#include <utility>

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

// A decode run of the drafting: each step's drafting for `sequences` requests one token each, through
// StepNs (the engine times drafting step by step; this is for a caller that asks for runs).
class DraftingDecodeRun final : public DecodeRunTimer {
 public:
  DraftingDecodeRun(const DraftingTimer& timer, int64_t sequences) : timer_(timer), sequences_(sequences) {}
  int64_t Ns(int64_t context_tokens) const override {
    StepWork w;
    w.new_tokens = sequences_;
    w.sequences = sequences_;
    w.context_tokens = context_tokens;
    w.attended = context_tokens + sequences_;
    return timer_.StepNs(w);
  }
  // The first pass's overlapped host term can shrink as its GPU time grows.
  bool Nondecreasing() const override { return false; }

 private:
  const DraftingTimer& timer_;
  int64_t sequences_ = 0;
};

}  // namespace

DraftingTimer::DraftingTimer(std::unique_ptr<StepModel> pass, int64_t drafts, int64_t passes, double host_prepare_s,
                             double prologue_s)
    : pass_(std::move(pass)), drafts_(drafts), passes_(passes), host_prepare_s_(host_prepare_s),
      prologue_s_(prologue_s) {
  KVSIM_CHECK(pass_ != nullptr && drafts_ >= 1 && passes_ >= 1 && host_prepare_s_ >= 0 && prologue_s_ >= 0,
              "a drafting timer needs a pass model, drafts, passes and host times");
}

DraftingTime DraftingTimer::Time(const StepWork& d) const {
  KVSIM_DCHECK(d.new_tokens == d.sequences);  // one token per decoding request
  DraftingTime t;
  // The first pass's queries: 1 + k per request at its context c_i, so Σ (1 + k)·c_i and the causal
  // pairs among its own tokens, (1 + k)(2 + k)/2 per request.
  const int64_t q = 1 + drafts_;
  t.first_work.new_tokens = q * d.sequences;
  t.first_work.context_tokens = d.context_tokens;
  t.first_work.attended = q * d.context_tokens + d.sequences * q * (q + 1) / 2;
  t.first_work.sequences = d.sequences;
  t.first_pass = pass_->Breakdown(t.first_work);
  // Its attention is one varlen call with 1 + k queries per request, the shape of a verify: where the
  // step model times that kernel differently for a verify (FlashAttention-2's whole tiles per query
  // head, fa2_multi_query_attention.h), the pass's attention is the verify's. Its logits stay one row
  // per request (compute_logits on last_token_indices), so only the attention is taken from it.
  StepWork as_verify = t.first_work;
  as_verify.draft_tokens = drafts_ * d.sequences;
  t.first_pass.attention = pass_->Breakdown(as_verify).attention;
  t.later_passes = passes_ - 1;
  t.later_work = d;
  if (t.later_passes > 0) t.later_pass = pass_->Breakdown(d);
  t.prologue_s = prologue_s_;
  t.exposed_host_s = host_prepare_s_ + prologue_s_;
  return t;
}

int64_t DraftingTimer::StepNs(const StepWork& decoding) const {
  const double ns = Time(decoding).total() * 1e9 / static_cast<double>(passes_);
  return std::max<int64_t>(1, static_cast<int64_t>(ns + 0.5));
}

std::unique_ptr<DecodeRunTimer> DraftingTimer::DecodeRun(int64_t sequences) const {
  return std::make_unique<DraftingDecodeRun>(*this, sequences);
}

SpeculativeStep TimeSpeculativeStep(const StepModel& target, const DraftingTimer* proposer, int64_t proposer_passes,
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
    s.drafting = proposer->Time(s.draft_work);
    s.draft_pass = proposer->pass().Breakdown(s.draft_work);
    s.draft_operators = proposer->pass().Operators(s.draft_work);
  }
  return s;
}

}  // namespace kvsim
