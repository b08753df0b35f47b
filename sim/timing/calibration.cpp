#include "sim/timing/calibration.h"

#include <cmath>
#include <utility>

#include <nlohmann/json.hpp>

#include "kvcache/base/error.h"
#include "kvcache/base/json_file.h"
#include "kvcache/base/text_format.h"

namespace kvsim {

Calibration LoadCalibration(const std::string& path) {
  const nlohmann::json j = ReadJsonFile(path, "the calibration file");
  if (!j.is_object() || !j.contains("kvsim_calibration")) throw Error(path + ": not a kvsim calibration file");
  // The format reports/calibration_report.cpp writes; another number is a file this kvsim cannot read.
  if (const auto& format = j["kvsim_calibration"]; !format.is_number_integer() || format.get<int64_t>() != 1)
    throw Error(path + ": kvsim_calibration: format " + format.dump() + "; this kvsim reads format 1");
  Calibration c;
  if (!j.contains("gpu") || !j["gpu"].is_string()) throw Error(path + ": gpu: expected the GPU id it was fitted on");
  c.gpu_id = j["gpu"].get<std::string>();
  const auto& e = j.value("efficiency", nlohmann::json::object());
  if (!e.is_object()) throw Error(path + ": efficiency: expected an object");
  size_t known = 0;
  ForEachEfficiency(c.efficiency, [&](const char* name, double& value) {
    auto it = e.find(name);
    if (it == e.end()) return;
    ++known;
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0 || it->get<double>() > 1e6)
      throw Error(path + ": efficiency." + name + ": expected a number in [0, 10^6], got " + it->dump());
    value = it->get<double>();
  });
  if (known != e.size()) throw Error(path + ": efficiency: has fields kvsim does not know (a newer file?)");
  // Shares of a datasheet peak: 0 would make a kernel take forever (NaN step times, or the attention
  // model's own check failing), above 1 faster than the hardware.
  for (const auto& [name, share] : {std::pair<const char*, double>{"gemm_compute", c.efficiency.gemm_compute},
                                    {"gemm_memory", c.efficiency.gemm_memory},
                                    {"attention_compute", c.efficiency.attention_compute},
                                    {"attention_memory", c.efficiency.attention_memory},
                                    {"elementwise_memory", c.efficiency.elementwise_memory}})
    if (!(share > 0 && share <= 1))
      throw Error(path + ": efficiency." + name + ": " + Format("%g", share) + " is not a share of the GPU's peak in (0, 1]");
  // The bound --step-overhead-ms has: a step's host time past a second is no server's.
  if (c.efficiency.step_overhead_ms > 1000)
    throw Error(path + ": efficiency.step_overhead_ms: " + Format("%g", c.efficiency.step_overhead_ms) +
                " is outside [0, 1000] ms (as --step-overhead-ms)");
  for (const auto& s : j.value("sources", nlohmann::json::array()))
    if (s.is_string()) c.sources.push_back(s.get<std::string>());
  return c;
}

}  // namespace kvsim
