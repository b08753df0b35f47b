// The connector that pulls a prompt's KV onto a decode instance, and the host time its per-request
// control path takes there.
//
// NixlConnector (vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py, read at vLLM
// commit 002a105; the path is the same in v0.11 and v0.14): the decode scheduler allocates the
// prompt's blocks and lists the request in the step's connector metadata; in that step's worker,
// start_load_kv -> _read_blocks_for_req -> _read_blocks builds one descriptor per KV region per block
// (_get_block_descs_ids: a K and a V region per layer, one region per layer with MLA) and posts the
// READ (nixl_wrapper.make_prepped_xfer + transfer) on the host, synchronously. Until vLLM PR #53333
// (2026-08) start_load_kv ran in pre_forward, before the model forward was launched, so the decode
// step that admits a request is longer by the time its read takes to post, and the read starts only
// when it is posted. Each TP rank posts its own reads in its own worker process, in parallel: the
// step waits for one rank's descriptors. A decode rank reads from TP_p/TP_d prefill ranks when the
// prefill pool is split finer (one read per remote rank; MLA reads once, its cache is replicated).
//
// The post time is proportional to the descriptors: vllm#50913 measured a mean post duration of
// 6.7 ms for transfers of 1,785 descriptors on vLLM v0.14.0 (the connector's "avg post duration"
// and "avg descriptors per transfer" metrics, decode side), 3.75 us per descriptor.
//
// Connectors that push instead (the prefill side sends or writes the KV: P2pNcclConnector's PUT_ASYNC
// from its send thread, PR #18242; Dynamo's vLLM patch, whose prefill worker writes into the decode
// worker's blocks) leave nothing for the decode worker to post per request: only the link is timed.
#ifndef KVSIM_SIM_DISAGG_KV_CONNECTOR_H_
#define KVSIM_SIM_DISAGG_KV_CONNECTOR_H_

#include <cstdint>
#include <string>

#include "kvcache/budget/capacity_result.h"
#include "kvcache/model/model_spec.h"

namespace kvsim {

enum class KvConnectorKind { kNixl, kPush };

// "nixl" or "push"; throws kvsim::Error naming --kv-connector.
KvConnectorKind ParseKvConnector(const std::string& text);
const char* KvConnectorName(KvConnectorKind kind);

// What one decode rank's READ of a prompt is made of.
struct NixlReadShape {
  int64_t block_size = 16;      // tokens per block (the decode pool's)
  int64_t regions = 0;          // KV regions per rank: 2 per layer with own KV (K, V), 1 with MLA, over PP
  int64_t reads_per_rank = 1;   // prefill ranks each decode rank reads from
};

NixlReadShape NixlReadShapeOf(const ModelSpec& model, const EffectiveSettings& prefill, const EffectiveSettings& decode);

// Descriptors one decode rank posts to read `tokens` prompt tokens: blocks x regions x reads.
int64_t NixlDescriptors(const NixlReadShape& shape, int64_t tokens);

// Host time to post that many descriptors (vllm#50913: 6.7 ms per 1,785).
int64_t NixlPostNs(int64_t descriptors);

}  // namespace kvsim

#endif  // KVSIM_SIM_DISAGG_KV_CONNECTOR_H_
