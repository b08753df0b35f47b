#include "kvcache/budget/runtime_overhead.h"

#include <algorithm>

#include "kvcache/base/units.h"

namespace kvsim {
namespace {

constexpr int64_t kFusedMoeChunkTokens = 32768;  // VLLM_FUSED_MOE_CHUNK_SIZE default

double ForwardElementsPerToken(const ModelSpec& spec, int tp, int64_t tokens, int64_t* moe_tokens) {
  const double h = static_cast<double>(spec.hidden_size);
  const double dense_inter = static_cast<double>(spec.is_moe() ? spec.moe.dense_intermediate_size : spec.intermediate_size);
  const double dense = 3.0 * dense_inter / tp + 3.0 * h;
  double widest = 0.0;
  bool any_dense = !spec.is_moe();
  *moe_tokens = 0;
  if (spec.is_moe()) {
    const MoeSpec& m = spec.moe;
    for (bool is_moe : m.layer_is_moe) any_dense |= !is_moe;
    // fused_moe's caches per routed token: the expert's up output (gated: both halves) and activation,
    // and its down output, at the width the experts write (a LatentMoE's latent width).
    const double expert_out = m.latent_size > 0 ? static_cast<double>(m.latent_size) : h;
    const double experts = static_cast<double>(m.experts_per_token) *
                           (3.0 * static_cast<double>(m.expert_intermediate_size) / tp + expert_out);
    const double shared = 3.0 * static_cast<double>(m.shared_intermediate_size) / tp;
    *moe_tokens = std::min(tokens, kFusedMoeChunkTokens);
    // Expert workspaces only span one fused-MoE chunk; scale them to per-token of the whole batch.
    widest = experts * static_cast<double>(*moe_tokens) / static_cast<double>(tokens) + shared + 3.0 * h;
  }
  if (any_dense) widest = std::max(widest, dense);
  return widest;
}

// What TP > 1 adds outside PyTorch. The era figures were measured on H100 SXM (NVSwitch, where
// NCCL also allocates NVLink SHARP buffers); PCIe-only GPUs log no increment (RTX 4090 TP 2 under
// V0: 0.25 GiB in all; RTX PRO 6000 TP 2 under 0.28: the KV budget matches with none), and NVLink
// without NVLS (A100/V100 SXM) keeps NCCL's ring buffers only, estimated at 0.4 GiB.
double TensorParallelGiB(const ProfileSettings& s, double on_nvls, double on_xgmi) {
  if (s.tp <= 1) return 0.0;
  switch (s.interconnect) {
    case Interconnect::kNvls: return on_nvls;
    case Interconnect::kNvlink: return std::min(on_nvls, 0.4);
    case Interconnect::kPcie: return 0.0;
    case Interconnect::kXgmi: return on_xgmi;
  }
  return on_nvls;
}

double NonTorchBytes(const ProfileSettings& s) {
  const bool rocm = s.interconnect == Interconnect::kXgmi;
  double gib = 0;
  switch (s.version.era()) {
    case VllmEra::kV0:
      // ROCm: RCCL over xGMI keeps buffers per peer, so the increment grows with TP.
      gib = (rocm ? 1.9 : 0.35) + TensorParallelGiB(s, 2.0, 0.8 * (s.tp - 1));
      break;
    case VllmEra::kV1Sort:
      gib = (s.pp > 1 && s.tp == 1 ? 0.07 : 0.13) + TensorParallelGiB(s, 0.6, 0.6);
      break;
    case VllmEra::kV1:
      gib = (s.pp > 1 && s.tp == 1 ? 0.07 : 0.25) + TensorParallelGiB(s, 1.85, 1.85);
      break;
  }
  return GiBToBytes(gib);
}

// DeepSeek-V3.2's profile-run reservations, from vLLM's sparse_attn_indexer.py (the dummy-run branch),
// indexer.py get_max_prefill_buffer_size (40 × max_model_len), flashmla_sparse.py
// get_prefill_workspace_size (5 × max_model_len) and v1/worker/workspace.py (one shared buffer,
// grown to the largest request): read at vllm-project/vllm main as mirrored in
// doublewordai/vllm-upstream @ 6ca5851e, the code the 0.28 record X003 ran.
constexpr double kIndexerGatherRowsPerToken = 40;
constexpr double kSparseMlaWorkspaceRowsPerToken = 5;
constexpr double kIndexerTopkScratchBytes = 1 << 20;
constexpr double kIndexerLogitsPlaceholderBytes = 512.0 * (1 << 20);

// Returns the shared workspace; *logits the transient placeholder allocated inside the forward.
double SparseIndexerWorkspaceBytes(const ModelSpec& spec, int64_t max_model_len, double* logits) {
  *logits = 0;
  if (spec.mla.indexer_heads <= 0 || max_model_len <= 0) return 0;
  const double len = static_cast<double>(max_model_len);
  const double gather = kIndexerGatherRowsPerToken * len * static_cast<double>(spec.mla.indexer_head_dim + 4) +
                        kIndexerTopkScratchBytes;
  const double sparse_mla =
      kSparseMlaWorkspaceRowsPerToken * len * static_cast<double>(spec.mla.kv_lora_rank + spec.mla.qk_rope_head_dim) * 2;
  *logits = kIndexerLogitsPlaceholderBytes;
  return std::max(gather, sparse_mla);
}

}  // namespace

RuntimeOverhead EstimateRuntimeOverhead(const ModelSpec& spec, const ProfileSettings& s) {
  RuntimeOverhead o;
  const double act_bytes = BytesPerElement(s.activation_dtype);
  const int64_t tokens = std::max<int64_t>(1, s.max_num_batched_tokens);
  int64_t moe_tokens = 0;
  o.forward_peak_bytes = static_cast<double>(tokens) * ForwardElementsPerToken(spec, s.tp, tokens, &moe_tokens) * act_bytes;
  if (s.last_stage) {
    const bool v0 = s.version.era() == VllmEra::kV0;
    const int64_t rows = v0 ? s.max_num_seqs : std::min(s.max_num_seqs, tokens);
    const double vocab = static_cast<double>(CeilDiv(spec.vocab_size, 64) * 64);
    o.sampler_peak_bytes = static_cast<double>(rows) * vocab * SamplerBytesPerLogit(s.runner, s.version) +
                           static_cast<double>(tokens) * static_cast<double>(spec.hidden_size) * act_bytes;
    o.sampler_state_bytes = static_cast<double>(s.max_num_seqs) * static_cast<double>(spec.vocab_size) *
                            SamplerStateBytesPerLogit(s.runner);
  }
  o.activation_peak_bytes = std::max(o.forward_peak_bytes, o.sampler_peak_bytes) + o.sampler_state_bytes;
  if (s.version.era() != VllmEra::kV0) {  // V3.2 arrived with the V1 engine
    double logits = 0;
    const double workspace = SparseIndexerWorkspaceBytes(spec, s.max_model_len, &logits);
    if (workspace > 0)
      o.sparse_indexer_bytes = workspace + std::max(o.forward_peak_bytes + logits, o.sampler_peak_bytes) -
                               (o.activation_peak_bytes - o.sampler_state_bytes);
  }
  o.non_torch_bytes = NonTorchBytes(s);
  return o;
}

}  // namespace kvsim
