// Renders a CapacityResult: a console table (GiB = 2^30 bytes, stated) and JSON.
#ifndef KVSIM_REPORTS_CAPACITY_REPORT_H_
#define KVSIM_REPORTS_CAPACITY_REPORT_H_

#include <string>

#include <nlohmann/json.hpp>

#include "kvcache/budget/capacity_planner.h"

namespace kvsim {

std::string RenderCapacityText(const CapacityResult& result);

// Top-level keys (per GPU): params, active_params, weights_gib, activation_peak_gib,
// non_torch_gib, kv_cache_gib, kv_bytes_per_token, num_gpu_blocks, gpu_kv_cache_tokens,
// max_concurrency, baseline_1_2x_gib, baseline_article003_gib, modelled_one_request_gib,
// reserved_gib, plus "settings" (effective configuration), "stages" and "notes".
nlohmann::json CapacityToJson(const CapacityResult& result);

nlohmann::json SettingsToJson(const EffectiveSettings& settings);

}  // namespace kvsim

#endif  // KVSIM_REPORTS_CAPACITY_REPORT_H_
