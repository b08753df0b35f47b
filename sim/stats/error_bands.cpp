#include "sim/stats/error_bands.h"

namespace kvsim {

LoadRegime ClassifyLoad(double utilization) {
  if (utilization < 0.5) return LoadRegime::kLight;
  if (utilization < 0.9) return LoadRegime::kModerate;
  return LoadRegime::kSaturated;
}

ErrorBands ErrorBands::Read(const std::string& path) {
  (void)path;
  return ErrorBands();
}

ErrorBand ErrorBands::For(ErrorMetric metric, const ErrorRegime& regime) const {
  (void)metric;
  (void)regime;
  return ErrorBand{1, 1, 0, "no validation data"};
}

ErrorBand ErrorBands::Memory() const { return ErrorBand{1, 1, 0, "no validation data"}; }

}  // namespace kvsim
