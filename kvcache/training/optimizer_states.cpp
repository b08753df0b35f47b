#include "kvcache/training/optimizer_states.h"

#include "kvcache/base/check.h"

namespace kvsim {
namespace {
// bitsandbytes' blockwise 8-bit optimizers: one fp32 absmax per block of 2,048 state elements.
constexpr double kBnbBlockElements = 2048;
}  // namespace

double ComputeBytes(TrainPrecision precision) { return precision == TrainPrecision::kFp32 ? 4.0 : 2.0; }

bool KeepsMasterWeights(TrainPrecision precision) {
  return precision == TrainPrecision::kBf16Mixed || precision == TrainPrecision::kFp16Mixed;
}

double StateBytes(TrainPrecision precision) { return precision == TrainPrecision::kBf16 ? 2.0 : 4.0; }

StateBytesPerParam OptimizerBytesPerParam(TrainPrecision precision, Optimizer optimizer) {
  KVSIM_CHECK(optimizer != Optimizer::kAdafactor, "Adafactor states depend on tensor shapes");
  StateBytesPerParam b;
  b.master = KeepsMasterWeights(precision) ? 4.0 : 0.0;
  const double state = StateBytes(precision);
  switch (optimizer) {
    case Optimizer::kAdamW:
      b.moments = 2 * state;
      // torch's foreach AdamW builds one parameter-sized temporary per step (the denominator
      // sqrt(v) + eps) in the state dtype; the article charges N × P.
      b.intermediates = state;
      break;
    case Optimizer::kAdamW8bit:
      b.moments = 2 * (1.0 + 4.0 / kBnbBlockElements);
      b.intermediates = 0;  // the fused bitsandbytes kernel updates in place
      break;
    case Optimizer::kSgd:
      b.moments = 0;
      b.intermediates = 0;  // param.add_(grad, alpha=-lr): in place
      break;
    case Optimizer::kSgdMomentum:
      b.moments = state;
      b.intermediates = 0;  // buf.mul_(momentum).add_(grad): in place
      break;
    case Optimizer::kAdafactor:
      break;
  }
  return b;
}

}  // namespace kvsim
