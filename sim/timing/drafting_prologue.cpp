#include "sim/timing/drafting_prologue.h"

#include "kvcache/base/check.h"

namespace kvsim {

double DraftingPrologue::Seconds(const KernelEfficiency& e, double triton_launch_s) const {
  KVSIM_CHECK(triton_launch_s >= 0, "a Triton launch takes a non-negative time");
  return static_cast<double>(torch_ops) * e.launch_us * 1e-6 + static_cast<double>(triton_launches) * triton_launch_s +
         static_cast<double>(host_syncs) * e.kernel_floor_us * 1e-6;
}

DraftingPrologue EagleDraftingPrologue(bool auxiliary_hidden_states) {
  DraftingPrologue p;
  // Model runner: next_token_ids (1), num_rejected_tokens pinned and copied (2), token ids,
  // positions and slot mapping gathered (3), the hidden states gathered (1) or, for EAGLE-3, the
  // three auxiliary ones gathered and concatenated (4).
  const int64_t runner = 1 + 2 + 3 + (auxiliary_hidden_states ? 4 : 1);
  // prepare_inputs: two subtractions, zeros_like, cumsum, empty.
  const int64_t prepare = 5;
  // propose() up to the forward: last_token_indices (1), EAGLE-3's fc (1), the input-id shift and
  // the next tokens (2), seq_lens (3), the two .item() reads (2 + 3), the buffer copies (2).
  const int64_t propose = 1 + (auxiliary_hidden_states ? 1 : 0) + 2 + 3 + 2 + 3 + 2;
  p.torch_ops = runner + prepare + propose;
  p.triton_launches = 1;  // prepare_eagle_input_kernel
  p.host_syncs = 2;       // seq_lens.max().item(), max query length .item()
  return p;
}

}  // namespace kvsim
