// RemoteKv: where a decode instance's prompt KV comes from in prefill/decode disaggregation
// (sim/disagg/): vLLM's NixlConnector on the decode side (get_num_new_matched_tokens returns the
// prompt's tokens as remote; the scheduler allocates their blocks, the transfer is pulled, the
// request waits in WAITING_FOR_REMOTE_KVS, then computes the last prompt token and samples).
#ifndef KVSIM_SIM_ENGINE_REMOTE_KV_H_
#define KVSIM_SIM_ENGINE_REMOTE_KV_H_

#include <cstdint>

#include "kvcache/kv_allocator.h"

namespace kvsim {

class RemoteKv {
 public:
  virtual ~RemoteKv() = default;
  // The transfer of `tokens` prompt tokens of request `id` starts at `now_ns` (its blocks are
  // reserved): returns when they are on this instance's GPUs.
  virtual int64_t StartTransfer(RequestId id, int64_t tokens, int64_t now_ns) = 0;
  // Host time the transfers started since the last call took to set up in this instance's worker
  // before the step's forward (a connector's per-request control path); the step is that much longer.
  virtual int64_t TakeStepHostNs() { return 0; }
};

}  // namespace kvsim

#endif  // KVSIM_SIM_ENGINE_REMOTE_KV_H_
