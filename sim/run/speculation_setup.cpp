#include "sim/run/speculation_setup.h"

#include <algorithm>

#include "kvcache/base/error.h"
#include "kvcache/base/quantity_parse.h"
#include "kvcache/budget/speculative_memory.h"
#include "sim/engine/speculation.h"

namespace kvsim {

bool Speculating(const SpeculativeSettings& sp) { return !sp.method.empty() && sp.num_speculative_tokens > 0; }

std::vector<double> ResolveAcceptanceRates(const SpeculativeSettings& sp, const std::string& text, const std::string& command) {
  if (!Speculating(sp)) {
    if (!text.empty()) throw Error("--spec-acceptance: needs a --speculative-config with num_speculative_tokens > 0");
    return {};
  }
  if (text.empty())
    throw Error("--speculative-config: " + command +
                " needs --spec-acceptance (how often drafts are accepted depends on the "
                "drafter and the text; vLLM logs it as the per-position acceptance rate)");
  std::vector<double> given;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    given.push_back(ParseFiniteNumber(text.substr(start, comma - start), "--spec-acceptance"));
    start = comma + 1;
  }
  return AcceptanceRates(given, sp.num_speculative_tokens);
}

std::unique_ptr<StepModel> MakeProposerTimer(const Deployment& d, const CapacityResult& cap, const StepModelOptions& target) {
  const std::optional<ModelSpec> model = ProposerModel(d.model, d.config.speculative);
  if (!model || target.fixed_step_ms > 0) return nullptr;
  StepModelOptions options = target;
  options.efficiency.step_overhead_ms = 0;
  return std::make_unique<StepModel>(*model, cap, d.gpu, options);
}

std::string UntimedProposerNote(const SpeculativeSettings& sp) {
  if (!Speculating(sp) || ProposerPasses(sp) > 0) return "";
  return "--speculative-config: the " + sp.method + " proposer's own time is not modelled" +
         (ClassifyProposer(sp) == ProposerKind::kNgram ? " (n-gram matching runs on the CPU)" : "");
}

}  // namespace kvsim
