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
#include "sim/timing/speculative_step.h"
#include "sim/timing/step_model.h"

namespace kvsim {

// Whether the deployment speculates: a method and num_speculative_tokens > 0.
bool Speculating(const SpeculativeSettings& speculative);

// The per-position acceptance rates for the deployment's k drafts, from --spec-acceptance ("0.8" or
// "0.8,0.6,0.4"); empty without speculation. `command` names who needs them in the error ("replay").
// Throws kvsim::Error for rates without a --speculative-config, speculation without rates, or bad rates.
std::vector<double> ResolveAcceptanceRates(const SpeculativeSettings& speculative, const std::string& spec_acceptance,
                                           const std::string& command);

// The capacity plan a drafter pass is timed against: one stage (the target's last) whose KV is the
// drafter's own layers' (StageCapacity::draft_kv_bytes_per_token) and whose weights are stored as the
// drafter's are. REQUIRES: cap has a stage.
CapacityResult DrafterCapacity(const SpeculativeSettings& speculative, const CapacityResult& cap);

// What one drafter pass launches besides its forward's kernels, as vLLM v1 runs EAGLE, EAGLE-3, MTP
// and draft-model proposers (vllm/v1/spec_decode/eagle.py EagleProposer.propose, read at main
// commit 008603a; llama_eagle3.py compute_logits at 00bd149): the loop over the drafts after the
// first updates positions, sequence lengths and the slot mapping and copies the next inputs into the
// graph's buffers with small eager kernels, rebuilds the attention metadata on the host, replays the
// drafter's forward as a PIECEWISE CUDA graph (attention launched between the pieces), and computes
// the logits and their argmax eagerly.
struct DrafterPassLaunches {
  int64_t input_updates = 0;  // small eager kernels around the forward (GPU: a kernel floor each)
  int64_t host_kernels = 0;   // every kernel launched outside the graph pieces
  int64_t graph_pieces = 0;   // graph replays: one more than the drafter's attention layers
};
DrafterPassLaunches DrafterPassLaunchesFor(const SpeculativeSettings& speculative, int64_t drafter_layers);

// The drafter's GEMMs outside the decoder layers ProposerModel describes, run on every pass:
// EAGLE's fc [h, 2h] joining the token embedding and the target's hidden state (llama_eagle.py
// forward), MTP's eh_proj [h, 2h] (deepseek_mtp.py), and the embedding half of EAGLE-3's first-layer
// q/k/v, which reads 2h features (llama_eagle3.py: qkv_input_size = 2 x hidden_size for layer 0).
// EAGLE-3's fc [h, 3h] over the target's three hidden states (combine_hidden_states) runs once per
// step before the first pass and is not a per-pass cost. REQUIRES: tp >= 1.
std::vector<ExtraGemm> DrafterExtraGemms(const ModelSpec& target, const ModelSpec& drafter,
                                         const SpeculativeSettings& speculative, int tp);

// The drafting's timer (DraftingTimer: a first pass over 1 + k tokens per decoding request, k - 1
// passes of one, one pass's host preparation exposed) around the drafter's step model: its own
// model (ProposerModel) on DrafterCapacity, the target's GPU, TP
// and options, with no scheduling or input-preparation overhead of its own (it runs inside the
// target's step, where those are counted once); a pass's host time is its launches
// (DrafterPassLaunches at launch_us and graph_launch_us), overlapping its GPU work, and its input
// updates add a kernel floor each; the step's drafting prologue (EagleDraftingPrologue) is host time
// with the GPU idle. Null when there is no GPU drafter (n-gram), it is not timed
// (medusa), or the target's step time is fixed.
std::unique_ptr<DraftingTimer> MakeProposerTimer(const Deployment& deployment, const CapacityResult& capacity,
                                             const StepModelOptions& target_options);

// Why a speculating deployment's drafting adds no time ("" when it is timed or there is none).
std::string UntimedProposerNote(const SpeculativeSettings& speculative);

}  // namespace kvsim

#endif  // KVSIM_SIM_RUN_SPECULATION_SETUP_H_
