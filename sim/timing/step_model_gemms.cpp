// StepModel's GEMM list: the projections, MLP and expert GEMMs of one layer as this rank runs them
// (shapes after tensor parallelism, the kernel each quantized format runs on), built once.
#include <algorithm>
#include <cmath>

#include "kvcache/base/error.h"
#include "kvcache/base/units.h"
#include "kvcache/model/quantization.h"
#include "sim/timing/step_model.h"

namespace kvsim {
namespace {

// The expert shapes the kernel multiplies. vLLM pads MXFP4 experts served by Marlin: its MoE kernel
// needs n % 256 == 0 and k % 128 == 0 in both GEMMs, so vllm/model_executor/layers/quantization/mxfp4.py
// (Mxfp4MoEMethod.create_weights for the Marlin backend; mxfp4_round_up_hidden_size_and_intermediate_size
// in later releases) rounds the hidden size up to 256 and each rank's expert width up to 128, and the
// layer pads its input to match. For gpt-oss (hidden 2880, width 2880) that is 3072 × 384 at TP 8
// instead of 2880 × 360: 14% more weight bytes and MMA work in every expert GEMM. Other formats run
// the checkpoint's shapes.
struct ExpertShape {
  int64_t hidden = 0, width = 0;  // width: one expert's intermediate size on this rank
};
ExpertShape KernelExpertShape(MoeKernel kernel, QuantMethod method, int64_t hidden, int64_t width) {
  if (kernel != MoeKernel::kMarlinMoe || method != QuantMethod::kMxfp4) return {hidden, width};
  return {CeilDiv(hidden, 256) * 256, CeilDiv(width, 128) * 128};
}

}  // namespace

double StepModel::WeightBytes(int64_t n, int64_t k, bool quantizable, const QuantizationSpec& format) const {
  if (quantizable && format.method != QuantMethod::kNone) return LinearWeightBytes(format, n, k, act_bytes_);
  return static_cast<double>(n) * static_cast<double>(k) * act_bytes_;
}

// Appends a GEMM run by `layers` layers; `quantizable` GEMMs are stored in the checkpoint's format,
// an `attention` projection in its AttentionFormat.
void StepModel::AddGemm(const char* name, int64_t n, int64_t k, bool quantizable, double layers,
                        const CapacityResult& cap, bool attention) {
  const QuantizationSpec format = attention ? AttentionFormat(cap.weight_quantization) : cap.weight_quantization;
  const bool quantized = quantizable && format.method != QuantMethod::kNone;
  gemms_.push_back({name, n, k, WeightBytes(n, k, quantizable, format), layers, quantized, attention});
}

// The attention projections of one TP rank: fused QKV and O, or MLA's down- and up-projections.
void StepModel::BuildAttentionGemms(const ModelSpec& spec, const CapacityResult& cap) {
  const bool quantized = !cap.weight_quantization.experts_only && !cap.weight_quantization.attention_unquantized;
  // Blocks with a token mixer (Nemotron-H's MLP and MoE blocks have none); linear-attention and SSM
  // mixers are costed as attention projections.
  double layers = spec.layers.empty() ? static_cast<double>(spec.num_layers) : 0.0;
  for (const LayerAttention& l : spec.layers) layers += l.has_mixer;
  const int64_t h = spec.hidden_size, heads = spec.num_attention_heads / tp_;
  const int64_t kv_heads = std::max<int64_t>(1, spec.num_kv_heads / tp_);
  if (!spec.has_mla) {
    AddGemm("qkv_proj", (heads + 2 * kv_heads) * spec.head_dim, h, quantized, layers, cap, true);
    AddGemm("o_proj", h, heads * spec.head_dim, quantized, layers, cap, true);
    return;
  }
  const MlaSpec& m = spec.mla;
  const int64_t qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
  if (m.q_lora_rank > 0) {
    AddGemm("q_a_proj", m.q_lora_rank, h, quantized, layers, cap, true);
    AddGemm("q_b_proj", heads * qk, m.q_lora_rank, quantized, layers, cap, true);
  } else {
    AddGemm("q_proj", heads * qk, h, quantized, layers, cap, true);
  }
  AddGemm("kv_a_proj", m.kv_lora_rank + m.qk_rope_head_dim, h, quantized, layers, cap, true);
  AddGemm("kv_b_proj", heads * (m.qk_nope_head_dim + m.v_head_dim), m.kv_lora_rank, quantized, layers, cap, true);
  AddGemm("o_proj", h, heads * m.v_head_dim, quantized, layers, cap, true);
}

// The MLPs of one TP rank: dense layers' up/down; MoE layers' router, shared experts and routed experts.
void StepModel::BuildMlpGemms(const ModelSpec& spec, const CapacityResult& cap) {
  const int64_t h = spec.hidden_size, up_factor = spec.mlp_kind == MlpKind::kGated ? 2 : 1;
  const bool dense_quantized = !cap.weight_quantization.experts_only;
  double moe_layers = 0;
  if (spec.is_moe())
    for (bool is_moe : spec.moe.layer_is_moe) moe_layers += is_moe;
  // Layers with a feed-forward (Nemotron-H's attention and Mamba blocks have none).
  double ffn_layers = static_cast<double>(spec.num_layers);
  if (!spec.moe.layer_has_mlp.empty()) {
    ffn_layers = 0;
    for (bool has : spec.moe.layer_has_mlp) ffn_layers += has;
  }
  const double dense_layers = ffn_layers - moe_layers;
  const int64_t dense_inter = (spec.is_moe() ? spec.moe.dense_intermediate_size : spec.intermediate_size) / tp_;
  if (dense_layers > 0 && dense_inter > 0) {
    AddGemm("mlp_up_proj", up_factor * dense_inter, h, dense_quantized, dense_layers, cap);
    AddGemm("mlp_down_proj", h, dense_inter, dense_quantized, dense_layers, cap);
  }
  if (moe_layers <= 0) return;
  const MoeSpec& m = spec.moe;
  AddGemm("router", m.num_experts, h, false, moe_layers, cap);
  if (m.latent_size > 0) {
    // LatentMoE (nemotron_h.py NemotronHMoE): every rank takes its tokens down to the latent width before
    // the routed experts and their sum back up after, with replicated fc1/fc2_latent_proj (BuildExperts
    // times the experts at the latent width).
    AddGemm("latent_down_proj", m.latent_size, h, dense_quantized, moe_layers, cap);
    AddGemm("latent_up_proj", h, m.latent_size, dense_quantized, moe_layers, cap);
  }
  if (m.shared_intermediate_size > 0) {
    const int64_t shared = m.shared_intermediate_size / tp_;
    AddGemm("shared_expert_up", up_factor * shared, h, dense_quantized, moe_layers, cap);
    AddGemm("shared_expert_down", h, shared, dense_quantized, moe_layers, cap);
  }
}

// The routed experts: sliced over TP × DP ranks, or whole experts spread over them under expert
// parallelism (moe_layer.h).
void StepModel::BuildExperts(const ModelSpec& spec, const CapacityResult& cap, const GpuSpec& gpu, const StepModelOptions& o) {
  if (!spec.is_moe()) return;
  MoeLayerShape s;
  for (bool is_moe : spec.moe.layer_is_moe) s.layers += is_moe;
  if (s.layers <= 0) return;
  const MoeSpec& m = spec.moe;
  const EffectiveSettings& d = cap.settings;
  s.num_experts = static_cast<double>(m.num_experts);
  s.top_k = static_cast<double>(m.experts_per_token);
  s.tp = tp_;
  s.dp = std::max(1, d.data_parallel_size);
  s.expert_parallel = d.enable_expert_parallel && tp_ * s.dp > 1;
  s.all2all = d.all2all_backend;
  const MoeKernel kernel = ChooseMoeKernel(lowbit_, gpu);
  // A LatentMoE's experts read and write the latent width (BuildMlpGemms adds its projections), and its
  // dispatch and combine move latent-width tokens.
  const int64_t expert_input = m.latent_size > 0 ? m.latent_size : spec.hidden_size;
  const ExpertShape shape = KernelExpertShape(kernel, cap.weight_quantization.method, expert_input,
                                              m.expert_intermediate_size / (s.expert_parallel ? 1 : tp_ * s.dp));
  s.hidden = shape.hidden;
  const int64_t up_factor = spec.mlp_kind == MlpKind::kGated ? 2 : 1;
  s.up_n = up_factor * shape.width;
  s.down_k = shape.width;
  s.up_weight_bytes = WeightBytes(s.up_n, s.hidden, true, cap.weight_quantization);
  s.down_weight_bytes = WeightBytes(s.hidden, s.down_k, true, cap.weight_quantization);
  s.activation_bytes = act_bytes_;
  s.quantized = cap.weight_quantization.method != QuantMethod::kNone;
  ExpertParallelLinks links = LinksOf(gpu, link_);
  if (o.link_bytes_per_s > 0) links.nvlink_bytes_per_s = o.link_bytes_per_s;
  moe_.emplace(s, lowbit_, gemm_, kernel, links);
}

}  // namespace kvsim
