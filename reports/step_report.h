// Renders one engine step's predicted time (`kvsim step`): a console table of the components and
// operators (milliseconds), and JSON with `seconds` {linear, attention, other, lm_head,
// communication, overhead, total} and the operators with their FLOPs and bytes. With speculative
// decoding the plain step stays as it is and a `speculative` section follows: the verify pass and
// the drafter's passes the same way, the expected tokens per step and the time per output token
// with and without speculation.
#ifndef KVSIM_REPORTS_STEP_REPORT_H_
#define KVSIM_REPORTS_STEP_REPORT_H_

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvcache/budget/capacity_planner.h"
#include "sim/timing/speculative_step.h"
#include "sim/timing/step_model.h"

namespace kvsim {

// The batch as the user described it.
struct StepBatch {
  int64_t decode_seqs = 0, decode_context = 0;
  int64_t prefill_seqs = 0, prefill_tokens = 0, prefill_context = 0;
};

struct SpeculativeStepReport {
  std::string method;     // --speculative-config's
  std::string proposer;   // what drafts, in words; empty when its time is not modelled
  std::string note;       // why drafting adds no time when it is not modelled ("" otherwise)
  SpeculativeStep step;
};

struct StepReport {
  EffectiveSettings settings;    // model, GPU, dtype, quantization, KV dtype, TP/PP
  std::string step_time_model;   // StepModel::Describe()
  StepBatch batch;
  StepWork work;
  StepBreakdown seconds;
  std::vector<OperatorCost> operators;
  std::optional<SpeculativeStepReport> speculative;  // with --speculative-config
  std::optional<MoeLayout> moe;                      // StepModel::Moe()
  std::string quantized_kernel;                      // the quantized GEMMs' kernel; empty when unquantized
  std::vector<std::string> notes;                    // what the answer does not say by its figures
};

std::string RenderStepText(const StepReport& report);
nlohmann::json StepToJson(const StepReport& report);

}  // namespace kvsim

#endif  // KVSIM_REPORTS_STEP_REPORT_H_
