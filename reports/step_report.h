// Renders one engine step's predicted time (`kvsim step`): a console table of the components and
// operators (milliseconds), and JSON with `seconds` {linear, attention, other, lm_head,
// communication, overhead, total} and the operators with their FLOPs and bytes.
#ifndef KVSIM_REPORTS_STEP_REPORT_H_
#define KVSIM_REPORTS_STEP_REPORT_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvcache/budget/capacity_planner.h"
#include "sim/timing/step_model.h"

namespace kvsim {

// The batch as the user described it.
struct StepBatch {
  int64_t decode_seqs = 0, decode_context = 0;
  int64_t prefill_seqs = 0, prefill_tokens = 0, prefill_context = 0;
};

struct StepReport {
  EffectiveSettings settings;    // model, GPU, dtype, quantization, KV dtype, TP/PP
  std::string step_time_model;   // StepModel::Describe()
  StepBatch batch;
  StepWork work;
  StepBreakdown seconds;
  std::vector<OperatorCost> operators;
};

std::string RenderStepText(const StepReport& report);
nlohmann::json StepToJson(const StepReport& report);

}  // namespace kvsim

#endif  // KVSIM_REPORTS_STEP_REPORT_H_
