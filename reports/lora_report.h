// The LoRA section of a replay summary (sim/stats/lora_summary.h): JSON key "lora" and a few console
// lines.
#ifndef KVSIM_REPORTS_LORA_REPORT_H_
#define KVSIM_REPORTS_LORA_REPORT_H_

#include <string>

#include <nlohmann/json.hpp>

#include "sim/stats/lora_summary.h"

namespace kvsim {

nlohmann::json LoraToJson(const LoraSummary& lora);
std::string RenderLoraText(const LoraSummary& lora);

}  // namespace kvsim

#endif  // KVSIM_REPORTS_LORA_REPORT_H_
