// The speculative-decoding pieces built from the deployment and --spec-acceptance, one way for every
// command that times them (`kvsim replay` through its engine options, `kvsim step` for one step):
// the per-position acceptance rates, the drafter's step model and the note for a proposer whose
// time is not on the GPU model.
#ifndef KVSIM_SIM_RUN_SPECULATION_SETUP_H_
#define KVSIM_SIM_RUN_SPECULATION_SETUP_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/deployment.h"
#include "sim/timing/step_model.h"

namespace kvsim {

// Whether the deployment speculates: a method and num_speculative_tokens > 0.
bool Speculating(const SpeculativeSettings& speculative);

// The per-position acceptance rates for the deployment's k drafts, from --spec-acceptance ("0.8" or
// "0.8,0.6,0.4"); empty without speculation. `command` names who needs them in the error ("replay").
// Throws kvsim::Error for rates without a --speculative-config, speculation without rates, or bad rates.
std::vector<double> ResolveAcceptanceRates(const SpeculativeSettings& speculative, const std::string& spec_acceptance,
                                           const std::string& command);

// The drafter's step model: its own model (ProposerModel) on the target's GPU, TP and options, with
// no step overhead of its own (it runs inside the target's step, whose scheduling and input handling
// are counted once). Null when there is no GPU drafter (n-gram), it is not timed (medusa), or the
// target's step time is fixed.
std::unique_ptr<StepModel> MakeProposerTimer(const Deployment& deployment, const CapacityResult& capacity,
                                             const StepModelOptions& target_options);

// Why a speculating deployment's drafting adds no time ("" when it is timed or there is none).
std::string UntimedProposerNote(const SpeculativeSettings& speculative);

}  // namespace kvsim

#endif  // KVSIM_SIM_RUN_SPECULATION_SETUP_H_
