#include "reports/calibration_report.h"

#include <cmath>

#include "kvcache/base/text_format.h"
#include "reports/text_table.h"

namespace kvsim {
namespace {

double Round6(double v) { return std::round(v * 1e6) / 1e6; }

}  // namespace

nlohmann::json CalibrationToJson(const Calibration& c) {
  nlohmann::json j;
  j["kvsim_calibration"] = 1;
  j["kvsim_version"] = KVSIM_VERSION;
  j["gpu"] = c.gpu_id;
  j["sources"] = c.sources;
  nlohmann::json e = nlohmann::json::object();
  KernelEfficiency copy = c.efficiency;
  ForEachEfficiency(copy, [&](const char* name, double& value) { e[name] = Round6(value); });
  j["efficiency"] = e;
  j["fit"] = nlohmann::json::array();
  for (const CalibrationFit& f : c.fits)
    j["fit"].push_back({{"kind", f.kind}, {"source", f.source}, {"points", f.points},
                        {"median_ratio", Round6(f.median_ratio)}, {"p90_abs_log_error", Round6(f.p90_abs_log_error)},
                        {"within_20_percent", Round6(f.within_20_percent)}});
  return j;
}

std::string RenderCalibrationText(const Calibration& c, const std::vector<CalibrationFit>& before) {
  std::string out = "Calibration for GPU '" + c.gpu_id + "' from " + Join(c.sources, ", ") + "\n\n";
  TextTable params({"efficiency", "default", "fitted"});
  KernelEfficiency fitted = c.efficiency, defaults;
  std::vector<double> defaults_list;
  ForEachEfficiency(defaults, [&](const char*, double& v) { defaults_list.push_back(v); });
  size_t i = 0;
  ForEachEfficiency(fitted, [&](const char* name, double& v) {
    params.AddRow({name, Format("%.4g", defaults_list[i++]), Format("%.4g", v)});
  });
  out += params.Render();
  out += "\nFit (predicted / measured kernel time; 1 is exact):\n";
  TextTable fits({"kind", "source", "points", "median before", "median after", "within 0.8-1.25 after"});
  for (size_t k = 0; k < c.fits.size(); ++k) {
    const CalibrationFit& f = c.fits[k];
    const std::string was = k < before.size() ? Format("%.3f", before[k].median_ratio) : "-";
    fits.AddRow({f.kind, f.source, std::to_string(f.points), was, Format("%.3f", f.median_ratio),
                 Format("%.1f%%", 100 * f.within_20_percent)});
  }
  out += fits.Render();
  return out;
}

}  // namespace kvsim
