// Writes a calibration (sim/timing/calibration.h) as the JSON file `--calibration` reads, and renders the
// fit for the console: each fitted efficiency beside its default, and per source how close the
// fitted model comes (median predicted/measured, share of points within 0.8-1.25).
#ifndef KVSIM_REPORTS_CALIBRATION_REPORT_H_
#define KVSIM_REPORTS_CALIBRATION_REPORT_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/timing/calibration.h"

namespace kvsim {

nlohmann::json CalibrationToJson(const Calibration& calibration);

// `before`: the same measurements under the default efficiencies, for comparison (may be empty).
std::string RenderCalibrationText(const Calibration& calibration, const std::vector<CalibrationFit>& before);

}  // namespace kvsim

#endif  // KVSIM_REPORTS_CALIBRATION_REPORT_H_
