// One operator of an engine step, summed over the layers it runs in: what `kvsim step` lists.
#ifndef KVSIM_SIM_TIMING_OPERATOR_COST_H_
#define KVSIM_SIM_TIMING_OPERATOR_COST_H_

#include <cstdint>
#include <string>

namespace kvsim {

struct OperatorCost {
  std::string name;      // "qkv_proj", "experts_up", "attention", ...
  std::string group;     // the StepBreakdown component it belongs to
  int64_t kernels = 0;   // launches per step
  double flops = 0;
  double bytes = 0;      // moved to or from HBM (communication: sent over the links)
  double seconds = 0;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_TIMING_OPERATOR_COST_H_
