// A disaggregated replay: P prefill instances and D decode instances, each pool with its own
// deployment, behind a router per pool, as vLLM's P/D setups run them (NixlConnector, with the
// proxy of examples/online_serving/disaggregated_serving, llm-d, Dynamo):
//   1. an arrival goes to a prefill instance as a request for one token (the proxy sets
//      max_tokens=1), which queues and prefills there like any request;
//   2. when it finishes, the request goes to a decode instance; the decode scheduler admits it,
//      reserving blocks for the prompt (that memory counts against the decode pool) and starting the
//      KV transfer over the link (sim/disagg/kv_link.h) once the connector has posted it: NIXL's
//      decode worker posts each read on the host before that step's forward, which lengthens the
//      step (sim/disagg/kv_connector.h); the request waits for the transfer;
//   3. then the decode instance computes the last prompt token, samples the first output token and
//      decodes the rest.
// TTFT = prefill queueing + prefill + decode queueing + posting the read (NIXL) + transfer + the first
// decode step. The summary's
// request figures are the end-to-end ones (arrival at the prefill pool); its step and KV figures are
// the decode pool's.
//
// The other features run in both pools as deployments combine them. llm-d's tiered prefix-cache guide
// runs NixlConnector and OffloadingConnector together under vLLM's MultiConnector
// (vllm/distributed/kv_transfer/kv_connector/v1/multi_connector.py: a request loads from the first
// connector, in the configured order, that reports tokens for it; every connector stores), NIXL first:
//   - KV tiers (--kv-offload) on every instance of both pools: a prefill instance's tier serves prompt
//     prefix hits before its prefill (NIXL reports nothing for a request it produces); a decode
//     instance's prompt comes over the link (NIXL reports it first) and its tier stores what arrives,
//     so a request preempted there reloads its prompt from host memory instead of recomputing it;
//   - LoRA (--enable-lora, --adapters): both pools load and run the request's adapter (the KV a prefill
//     instance computes under an adapter is only valid under it), each with its own slots and host cache;
//   - speculative decoding (MTP, EAGLE): both pools carry the drafter; a prefill instance samples one
//     token and never verifies, so drafting happens on the decode pool.
// Each pool's tiers and adapters are reported in its section of the summary.
#ifndef KVSIM_SIM_DISAGG_DISAGG_RUNNER_H_
#define KVSIM_SIM_DISAGG_DISAGG_RUNNER_H_

#include "kvcache/budget/deployment.h"
#include "sim/disagg/kv_connector.h"
#include "sim/disagg/kv_link.h"
#include "sim/run/replay_runner.h"

namespace kvsim {

struct DisaggDeployment {
  Deployment prefill, decode;
  int64_t prefill_replicas = 1, decode_replicas = 1;
  KvLinkSpec link;
  KvConnectorKind connector = KvConnectorKind::kNixl;  // the decode side's per-request control path
};

// Throws kvsim::Error for bad settings (a pool that does not fit, a model that differs between pools).
ReplayResult RunDisaggregatedReplay(const DisaggDeployment& deployment, const ReplayOptions& options,
                                    const ReplayHooks& hooks = {});

}  // namespace kvsim

#endif  // KVSIM_SIM_DISAGG_DISAGG_RUNNER_H_
