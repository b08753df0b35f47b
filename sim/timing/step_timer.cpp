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

}  // namespace

std::unique_ptr<DecodeRunTimer> FixedStepTimer::DecodeRun(int64_t) const { return std::make_unique<FixedDecodeRun>(step_ns_); }

std::string FixedStepTimer::Describe() const { return Format("fixed %g ms", static_cast<double>(step_ns_) / 1e6); }

}  // namespace kvsim
