// The host work a speculative step runs with the GPU idle between reading back the target's sampled
// tokens and launching the drafter's first pass, as vLLM v1's model runner and EagleProposer run it
// for EAGLE, EAGLE-3, MTP and draft-model proposers (the v0.9 - v0.10 line, the releases the
// published EAGLE measurements ran: vllm/v1/worker/gpu_model_runner.py execute_model's EAGLE branch,
// vllm/v1/spec_decode/eagle.py prepare_inputs and propose up to the first forward).
//
// Why it is exposed: the rejection sampler's parse_output reads the accepted tokens back to the host
// (`.tolist()`), so the GPU has drained before the model runner builds the drafter's inputs; and
// propose() reads two scalars back (`seq_lens.max().item()`, the longest query's `.max().item()`,
// "FIXME(woosuk): The below two ops cause synchronization") before it can launch the first pass, so
// none of this work overlaps a kernel. The plain step has the first read-back too, but none of the rest.
//
// The ops, per step with drafts (spec_decode_metadata set), counting each PyTorch call that launches a
// kernel or allocates (views and slices are not counted):
//   model runner: next_token_ids to the device (1); num_rejected_tokens as a pinned tensor and its
//     copy (2); the target's token ids, positions and slot mapping gathered at token_indices (3) and
//     its hidden states (1; EAGLE-3: the three auxiliary hidden states gathered and concatenated, 4);
//   prepare_inputs: query lengths, less the rejected, zeros_like, cumsum, empty (5) and one Triton
//     launch (prepare_eagle_input_kernel);
//   propose: last_token_indices (1); EAGLE-3's combine_hidden_states fc (1); the shifted input ids
//     and the next tokens written into the input buffer (2); seq_lens = (positions + 1).int() (3);
//     seq_lens.max().item() (2) and the longest query's (cu[1:] - cu[:-1]).max().item() (3); the
//     positions and hidden states copied into the graph's buffers (2).
// EAGLE: 25 ops, EAGLE-3: 29; one Triton launch; two host syncs.
//
// Costs: a PyTorch op from Python is KernelEfficiency::launch_us (4 µs; pytorch/pytorch#41383
// measures 2-7 µs for the Python-side dispatch of one small op before the CUDA launch); a Triton
// launch from Python is LoraHostCosts::triton_launch_s (lora_host.h cites it); each sync adds the
// read-back copy's own latency on an idle GPU, one kernel floor (KernelEfficiency::kernel_floor_us).
// The per-request Python loops (next_token_ids, num_rejected_tokens) are a few hundred nanoseconds
// per request and are not counted.
#ifndef KVSIM_SIM_TIMING_DRAFTING_PROLOGUE_H_
#define KVSIM_SIM_TIMING_DRAFTING_PROLOGUE_H_

#include <cstdint>

#include "sim/timing/kernel_efficiency.h"

namespace kvsim {

struct DraftingPrologue {
  int64_t torch_ops = 0;        // PyTorch calls from Python, launch_us each
  int64_t triton_launches = 0;  // Triton kernels launched from Python
  int64_t host_syncs = 0;       // scalar read-backs the host waits for

  // Host seconds with the GPU idle. REQUIRES: triton_launch_s >= 0.
  double Seconds(const KernelEfficiency& e, double triton_launch_s) const;
};

// The prologue of an EAGLE-family proposer; `auxiliary_hidden_states` for EAGLE-3, whose drafter
// reads three of the target's hidden states per token, joined by its fc.
DraftingPrologue EagleDraftingPrologue(bool auxiliary_hidden_states);

}  // namespace kvsim

#endif  // KVSIM_SIM_TIMING_DRAFTING_PROLOGUE_H_
