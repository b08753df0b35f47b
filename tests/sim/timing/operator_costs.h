// A step's operator costs by name, for tests that check one operator of StepModel::Operators.
#ifndef KVSIM_TESTS_SIM_TIMING_OPERATOR_COSTS_H_
#define KVSIM_TESTS_SIM_TIMING_OPERATOR_COSTS_H_

#include <map>
#include <string>
#include <vector>

#include "sim/timing/operator_cost.h"

namespace kvsim::testing {

inline std::map<std::string, OperatorCost> ByName(const std::vector<OperatorCost>& ops) {
  std::map<std::string, OperatorCost> m;
  for (const OperatorCost& op : ops) m[op.name] = op;
  return m;
}

}  // namespace kvsim::testing

#endif  // KVSIM_TESTS_SIM_TIMING_OPERATOR_COSTS_H_
