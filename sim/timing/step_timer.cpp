#include "sim/timing/step_timer.h"

#include "kvcache/base/text_format.h"

namespace kvsim {
namespace {

class FixedDecodeRun final : public DecodeRunTimer {
 public:
  explicit FixedDecodeRun(int64_t step_ns) : step_ns_(step_ns) {}
  int64_t Ns(int64_t) const override { return step_ns_; }
  bool Nondecreasing() const override { return true; }
  int64_t TimeSteps(int64_t, int64_t, int64_t limit, int64_t horizon_ns, int64_t* now_ns, int64_t* out) const override {
    int64_t steps = 0;
    do {
      out[steps++] = step_ns_;
      *now_ns += step_ns_;
    } while (*now_ns < horizon_ns && steps < limit);
    return steps;
  }

 private:
  int64_t step_ns_;
};

// StepNs of each verify step, asked of the timer.
class VerifyStepsByStepNs final : public DecodeRunTimer {
 public:
  VerifyStepsByStepNs(const StepTimer& timer, int64_t sequences, int64_t tokens)
      : timer_(timer), sequences_(sequences), tokens_(tokens) {}
  int64_t Ns(int64_t context_tokens) const override {
    StepWork w;
    w.Add(tokens_, 0, sequences_);
    w.context_tokens = context_tokens;
    w.attended += tokens_ * context_tokens;
    w.draft_tokens = sequences_ * (tokens_ - 1);
    return timer_.StepNs(w);
  }
  bool Nondecreasing() const override { return false; }

 private:
  const StepTimer& timer_;
  int64_t sequences_, tokens_;
};

}  // namespace

std::unique_ptr<DecodeRunTimer> StepTimer::VerifyRun(int64_t sequences, int64_t tokens) const {
  return std::make_unique<VerifyStepsByStepNs>(*this, sequences, tokens);
}

std::unique_ptr<DecodeRunTimer> FixedStepTimer::DecodeRun(int64_t) const { return std::make_unique<FixedDecodeRun>(step_ns_); }

std::string FixedStepTimer::Describe() const { return Format("fixed %g ms", static_cast<double>(step_ns_) / 1e6); }

}  // namespace kvsim
