// The recurrent state a hybrid model's state-only layers (Mamba-2, gated DeltaNet linear attention)
// move in every step: each scheduled request's conv state and SSM / temporal state, read from its
// state page and written back once per layer.
//
// Why once per request and layer, whatever the tokens: vLLM's decode kernels load the state at the
// request's state_batch_indices slot, update it in registers and store it in place
// (vllm/model_executor/layers/mamba/ops/mamba_ssm.py _selective_scan_update_kernel: one tl.load of
// the (head_dim x d_state) tile per head, one tl.store to dst_state_batch_indices; causal_conv1d.py
// causal_conv1d_update shifts the conv window in place; the gated DeltaNet's
// vllm/model_executor/layers/fla/ops/fused_recurrent.py loads h0 at ssm_state_indices and stores the
// new state there). A prefill chunk's kernels (mamba_chunk_scan_combined, causal_conv1d_fn,
// chunk_gated_delta_rule) take the request's state as the chunk's initial state and write its final
// state: again one read and one write per request. mamba_ssm.py read at vLLM commit 007ad21.
//
// Not modelled: a first chunk reads no initial state (has_initial_states false), so its read is
// counted though vLLM skips it; a speculative verify step stores the SSM state once per draft token
// (IS_SPEC_DECODING) and is counted as one write.
#ifndef KVSIM_SIM_TIMING_RECURRENT_STATE_H_
#define KVSIM_SIM_TIMING_RECURRENT_STATE_H_

#include <cstdint>

#include "kvcache/budget/capacity_result.h"
#include "kvcache/model/model_spec.h"

namespace kvsim {

struct RecurrentStateTraffic {
  double layers = 0;            // state-only layers on this GPU, over its pipeline stages
  double bytes_per_layer = 0;   // one request's conv + temporal state in one such layer, this TP rank
  // Bytes a step moves per scheduled request: every state layer's state read once and written once.
  double BytesPerSequence() const { return 2.0 * layers * bytes_per_layer; }
  // Kernels per step: the conv-state update and the SSM / recurrence update in each state layer.
  double Kernels() const { return 2.0 * layers; }
};

// The state each request keeps, as the memory budget sized it: KvCacheLayout::state_page_bytes
// (vLLM's MambaSpec page before padding, in the --mamba-cache-dtype / --mamba-ssm-cache-dtype the
// plan resolved) times the stage's state-only layers. Empty when the plan holds no state pages (no
// state layers, shapes kvsim does not know, or a single-group KV cache that leaves them out).
RecurrentStateTraffic RecurrentStateOf(const ModelSpec& spec, const CapacityResult& capacity);

}  // namespace kvsim

#endif  // KVSIM_SIM_TIMING_RECURRENT_STATE_H_
