#include "sim/engine/speculation.h"

#include <cmath>
#include <string>

#include "kvcache/base/error.h"

namespace kvsim {

std::vector<double> AcceptanceRates(const std::vector<double>& given, int64_t k) {
  for (const double a : given)
    if (!(a >= 0.0 && a <= 1.0)) throw Error("--spec-acceptance: every rate must be in [0, 1]");
  if (given.size() == 1) {
    std::vector<double> out;
    for (int64_t i = 1; i <= k; ++i) out.push_back(std::pow(given[0], static_cast<double>(i)));
    return out;
  }
  if (static_cast<int64_t>(given.size()) != k)
    throw Error("--spec-acceptance: give one rate or one per draft position (" + std::to_string(k) + " for num_speculative_tokens " +
                std::to_string(k) + "), not " + std::to_string(given.size()));
  for (size_t i = 1; i < given.size(); ++i)
    if (given[i] > given[i - 1])
      throw Error("--spec-acceptance: per-position rates cannot rise (position i+1 is accepted only after position i)");
  return given;
}

}  // namespace kvsim
