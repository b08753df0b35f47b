#include "sim/timing/calibration.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "kvcache/base/error.h"
#include "kvcache/base/json_file.h"

namespace kvsim {

Calibration LoadCalibration(const std::string& path) {
  const nlohmann::json j = ReadJsonFile(path, "the calibration file");
  if (!j.is_object() || !j.contains("kvsim_calibration")) throw Error(path + ": not a kvsim calibration file");
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
  if (c.efficiency.gemm_compute <= 0 || c.efficiency.gemm_compute > 1 || c.efficiency.gemm_memory <= 0 ||
      c.efficiency.gemm_memory > 1)
    throw Error(path + ": efficiency.gemm_compute/gemm_memory: must be in (0, 1]");
  for (const auto& s : j.value("sources", nlohmann::json::array()))
    if (s.is_string()) c.sources.push_back(s.get<std::string>());
  return c;
}

}  // namespace kvsim
