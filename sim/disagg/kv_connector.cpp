#include "sim/disagg/kv_connector.h"

#include <algorithm>
#include <cmath>

#include "kvcache/base/error.h"

namespace kvsim {
namespace {

// vllm#50913 (v0.14.0 baseline, decode side, transfer-count-weighted over the run): a mean post
// duration of 6.7 ms for a mean of 1,785 descriptors per transfer.
constexpr double kMeasuredPostNs = 6.7e6;
constexpr double kMeasuredDescriptors = 1785;

}  // namespace

KvConnectorKind ParseKvConnector(const std::string& text) {
  if (text == "nixl") return KvConnectorKind::kNixl;
  if (text == "push") return KvConnectorKind::kPush;
  throw Error("--kv-connector: '" + text + "' is not nixl or push");
}

const char* KvConnectorName(KvConnectorKind kind) {
  switch (kind) {
    case KvConnectorKind::kNixl: return "nixl";
    case KvConnectorKind::kPush: return "push";
  }
  return "?";
}

NixlReadShape NixlReadShapeOf(const ModelSpec& model, const EffectiveSettings& prefill, const EffectiveSettings& decode) {
  NixlReadShape s;
  s.block_size = std::max<int64_t>(1, decode.block_size);
  // Each rank registers the KV tensors of its pipeline stage's layers; a layer that reads another
  // layer's KV (cross-layer sharing) has no tensor of its own.
  const int64_t pp = std::max(1, decode.pipeline_parallel_size);
  const int64_t layers = (model.kv_layers() + pp - 1) / pp;
  s.regions = layers * (model.has_mla ? 1 : 2);
  // _read_blocks_for_req: one read per remote rank the local rank's heads come from; MLA reads the
  // first only (every rank holds the whole latent).
  const int tp_p = std::max(1, prefill.tensor_parallel_size), tp_d = std::max(1, decode.tensor_parallel_size);
  s.reads_per_rank = (tp_p > tp_d && !model.has_mla) ? tp_p / tp_d : 1;
  return s;
}

int64_t NixlDescriptors(const NixlReadShape& shape, int64_t tokens) {
  if (tokens <= 0) return 0;
  const int64_t blocks = (tokens + shape.block_size - 1) / shape.block_size;
  return blocks * shape.regions * shape.reads_per_rank;
}

int64_t NixlPostNs(int64_t descriptors) {
  return static_cast<int64_t>(std::llround(static_cast<double>(descriptors) * kMeasuredPostNs / kMeasuredDescriptors));
}

}  // namespace kvsim
