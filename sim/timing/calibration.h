// A calibration: kernel efficiencies (kernel_efficiency.h) fitted to one GPU's measurements by
// `kvsim calibrate`, with how well they fit. Stored as a small JSON file:
//   {"kvsim_calibration": 1, "gpu": "a100-80gb", "sources": [...],
//    "efficiency": {"gemm_compute": 0.76, ...}, "fit": [{"class": "gemm", ...}, ...]}
// Fields missing from "efficiency" keep their defaults.
#ifndef KVSIM_SIM_CALIBRATION_H_
#define KVSIM_SIM_CALIBRATION_H_

#include <string>
#include <vector>

#include "sim/timing/kernel_efficiency.h"

namespace kvsim {

// How well the fitted model reproduces one class of measurements.
struct CalibrationFit {
  std::string kind;          // "gemm", "elementwise", "serving"
  std::string source;        // the measurements' file
  int64_t points = 0;
  double median_ratio = 0;   // predicted / measured
  double p90_abs_log_error = 0;
  double within_20_percent = 0;  // share of points with ratio in [0.8, 1.25]
};

struct Calibration {
  std::string gpu_id;
  KernelEfficiency efficiency;
  std::vector<std::string> sources;
  std::vector<CalibrationFit> fits;
};

// Throws kvsim::Error naming the file and field for a missing file, malformed JSON, an unknown
// field or a value outside (0, 10^6).
Calibration LoadCalibration(const std::string& path);

}  // namespace kvsim

#endif  // KVSIM_SIM_CALIBRATION_H_
