#include "sim/timing/step_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "kvcache/base/units.h"
#include "kvcache/budget/release_rules.h"
#include "kvcache/model/quantization.h"
#include "sim/timing/link_rates.h"

namespace kvsim {
namespace {

constexpr double kNotComputed = std::numeric_limits<double>::quiet_NaN();
constexpr int64_t kMaxMemoKey = 1 << 17;     // token counts memoised per step component

}  // namespace

StepModel::StepModel(const ModelSpec& spec, const CapacityResult& cap, const GpuSpec& gpu, const StepModelOptions& o)
    : calibration_(o.calibration), eff_(o.efficiency), eager_(o.enforce_eager), overlap_host_(o.overlap_host),
      input_update_kernels_(static_cast<double>(o.input_update_kernels)) {
  if (o.fixed_step_ms > 0) {
    fixed_ns_ = std::max<int64_t>(1, static_cast<int64_t>(std::llround(o.fixed_step_ms * 1e6)));
    return;
  }
  if (!o.calibration_gpu.empty() && o.calibration_gpu != gpu.id)
    throw Error("--calibration: " + o.calibration + " was fitted on GPU '" + o.calibration_gpu + "', not on '" + gpu.id +
                "': kernel efficiencies do not carry across GPUs");
  peak16_ = DensePeakFlops(gpu, cap.compute_dtype == NumericFormat::kFloat32 ? NumericFormat::kFloat16 : cap.compute_dtype);
  hbm_ = gpu.mem_bandwidth_bytes_per_s;
  const std::string what = "GPU '" + gpu.id + "'";
  if (!(peak16_ > 0))
    throw Error(what + " has no dense " + std::string(FormatName(cap.compute_dtype)) +
                " tensor peak: give --gpu-tflops, a --gpu-file row with it, or --step-time-ms for a fixed step time");
  if (!(hbm_ > 0))
    throw Error(what + " has no memory bandwidth: give --gpu-bandwidth, a --gpu-file row with it, or --step-time-ms");
  gemm_ = {peak16_, hbm_, gpu.sm_count, eff_.gemm_compute, eff_.gemm_memory, eff_.gemm_floor_us * 1e-6};
  tp_ = cap.settings.tensor_parallel_size;
  pp_ = cap.settings.pipeline_parallel_size;
  dcp_ = std::max(1, cap.settings.decode_context_parallel_size);
  act_bytes_ = BytesPerElement(cap.compute_dtype);
  link_ = o.link_bytes_per_s > 0 ? o.link_bytes_per_s : LinkBytesPerSecond(gpu.interconnect);
  allreduce_latency_s_ = AllReduceLatencySeconds(gpu.interconnect);
  if (spec.qk_norm_span == QkNormSpan::kAllHeadsGathered && tp_ > 1)
    qk_norm_gathered_bytes_per_token_ = static_cast<double>((spec.num_attention_heads + spec.num_kv_heads) * spec.head_dim) * act_bytes_;
  if (spec.qk_norm_span == QkNormSpan::kAllHeadsReduced && tp_ > 1) {
    // SGLang normalizes q and k with one all-reduce (its qk_norm); vLLM does from the release rule.
    const bool joint = cap.settings.engine != Engine::kVllm ||
                       HasRule(ParseVllmVersion(cap.settings.vllm_version), ReleaseRule::kJointQkNormAllReduce);
    qk_norm_all_reduces_ = joint ? 1 : 2;
  }
  BuildAttentionGemms(spec, cap);
  BuildMlpGemms(spec, cap);
  for (const ExtraGemm& g : o.extra_gemms) AddGemm(g.name.c_str(), g.n, g.k, false, 1.0, cap);
  lowbit_ = ChooseLowBitGemm(cap.weight_quantization.method, gpu);
  gemmq_ = gemm_;
  if (lowbit_.peak_flops > 0) gemmq_.peak_flops = lowbit_.peak_flops;
  lowbit_attention_ = ChooseLowBitGemm(AttentionFormat(cap.weight_quantization).method, gpu);
  gemmq_attention_ = gemm_;
  if (lowbit_attention_.peak_flops > 0) gemmq_attention_.peak_flops = lowbit_attention_.peak_flops;
  BuildExperts(spec, cap, gpu, o);

  hidden_ = static_cast<double>(spec.hidden_size);
  layers_ = static_cast<double>(spec.num_layers);
  // Layers sharing another's KV (num_kv_shared_layers) attend like the others: they read its KV.
  kv_layers_ = static_cast<double>(spec.attention_layers());
  own_kv_layers_ = static_cast<double>(spec.kv_layers());
  gated_ = spec.mlp_kind == MlpKind::kGated ? 1.0 : 0.0;
  const int64_t kv_heads = std::max<int64_t>(1, spec.num_kv_heads / tp_);
  const double heads = static_cast<double>(spec.num_attention_heads) / tp_;
  if (spec.has_mla) {
    q_width_ = heads * static_cast<double>(spec.mla.qk_nope_head_dim + spec.mla.qk_rope_head_dim);
    v_width_ = heads * static_cast<double>(spec.mla.v_head_dim);
    kv_width_ = static_cast<double>(spec.mla.qk_rope_head_dim);
    absorbed_width_ = heads * static_cast<double>(2 * spec.mla.kv_lora_rank + spec.mla.qk_rope_head_dim);
  } else {
    q_width_ = heads * static_cast<double>(spec.head_dim);
    v_width_ = q_width_;
    kv_width_ = static_cast<double>(kv_heads * spec.head_dim);
  }
  for (const StageCapacity& st : cap.stages) {
    // The model's own layers: a speculative drafter's KV shares the pool but only its passes read it.
    kv_bytes_per_token_ += st.layout_holds_draft_kv ? st.layout.bytes_per_token - st.draft_kv_bytes_per_token
                                                    : st.layout.bytes_per_token;
    for (const KvCacheGroup& g : st.layout.groups)
      if (g.kind == AttentionKind::kSlidingWindow || g.kind == AttentionKind::kChunkedLocal) {  // states read no KV
        window_layers_ += static_cast<double>(g.num_layers);
        window_tokens_ = static_cast<double>(g.window_tokens);
      }
  }
  // FlashAttention-2 takes a 16-bit KV cache only (vLLM picks another backend for an fp8 one): K and V
  // of kv_width_ each, 2 bytes an element, per layer.
  const bool fa2_kv = own_kv_layers_ > 0 && kv_bytes_per_token_ / own_kv_layers_ == 2.0 * kv_width_ * 2.0;
  if (VllmRunsFlashAttention2(gpu) && gpu.sm_count > 0 && !spec.has_mla && q_width_ > kv_width_ && fa2_kv &&
      spec.num_attention_heads / tp_ > 0 && spec.head_dim > 0)
    fa2_verify_.emplace(spec.num_attention_heads / tp_, spec.head_dim, gpu.sm_count, peak16_ * eff_.attention_compute,
                        hbm_ * eff_.attention_memory, kv_bytes_per_token_ / own_kv_layers_, eff_.kernel_floor_us * 1e-6);
  double layer_bytes = 0;
  for (const StageCapacity& st : cap.stages) {
    offloaded_bytes_ += st.weights.cpu_offloaded_bytes;
    layer_bytes += st.weights.layer_bytes;
  }
  if (offloaded_bytes_ > 0) {
    if (!(gpu.host_link_bytes_per_s > 0))
      throw Error("--cpu-offload-gb: the GPU table has no host link figure for " + gpu.id +
                  " (host_link_GB_per_s), which offloaded weights cross in every forward; give a --gpu-file row with it");
    offload_seconds_ = offloaded_bytes_ / gpu.host_link_bytes_per_s;
    offloaded_share_ = layer_bytes > 0 ? offloaded_bytes_ / layer_bytes : 0.0;
  }
  recurrent_state_ = RecurrentStateOf(spec, cap);
  vocab_per_gpu_ = static_cast<double>(CeilDiv(spec.vocab_size, 64) * 64) / tp_;
  lm_head_bytes_ = vocab_per_gpu_ * hidden_ * act_bytes_;
  if (cap.weight_quantization.lm_head_quantized && cap.weight_quantization.method != QuantMethod::kNone)
    lm_head_bytes_ = LinearWeightBytes(cap.weight_quantization, CeilDiv(spec.vocab_size, 64) * 64 / tp_, spec.hidden_size, act_bytes_);
}

GemmShape StepModel::Shape(const Gemm& g, int64_t m) const {
  GemmShape s{m, g.n, g.k, g.weight_bytes, act_bytes_, 1.0};
  if (!g.quantized) return s;
  const LowBitGemm& lowbit = g.attention ? lowbit_attention_ : lowbit_;
  if (lowbit.activation_bytes > 0) s.activation_bytes = lowbit.activation_bytes;
  s.dequant_factor = lowbit.dequant_factor * KernelRowShare(lowbit, m);
  return s;
}

double StepModel::MemoMiss(std::vector<double>& memo, int64_t key, AddFn add) const {
  if (key < 0) key = 0;
  if (key > kMaxMemoKey) {  // beyond any batch a server schedules (a one-off `kvsim step`): no table
    double v = 0;
    (this->*add)(key, nullptr, &v);
    return v;
  }
  if (static_cast<size_t>(key) >= memo.size()) memo.resize(static_cast<size_t>(key) * 2 + 64, kNotComputed);
  double& v = memo[static_cast<size_t>(key)];
  if (std::isnan(v)) {
    v = 0;
    (this->*add)(key, nullptr, &v);
  }
  return v;
}

void StepModel::AddLinear(int64_t tokens, std::vector<OperatorCost>* out, double* seconds) const {
  if (tokens <= 0) return;
  auto add = [&](const Gemm& g, const GemmShape& s, double groups, double layers) {
    const double t = GroupedGemmSeconds(s, groups, !g.quantized ? gemm_ : g.attention ? gemmq_attention_ : gemmq_) * layers;
    const std::string& name = g.name;
    *seconds += t;
    if (out) out->push_back({name, "linear", static_cast<int64_t>(layers), GemmFlops(s) * groups * layers, GemmBytes(s) * groups * layers, t});
  };
  const double before = *seconds;
  for (const Gemm& g : gemms_) add(g, Shape(g, tokens), 1.0, g.layers);
  if (moe_) moe_->AddExperts(tokens, out, seconds);
  if (offload_seconds_ > 0) {
    // Offloaded parameters are read from pinned host memory through UVA (maybe_offload_to_cpu's
    // get_cuda_view_from_cpu_tensor; before UVA, copied in by each forward): once per forward over
    // the host link, instead of from HBM. Their GEMMs take the longer of their share of the layers'
    // time and that read; the difference is the term.
    const double extra = std::max(0.0, offload_seconds_ - offloaded_share_ * (*seconds - before));
    *seconds += extra;
    if (out) out->push_back({"cpu_offloaded_weights", "linear", 0, 0.0, offloaded_bytes_, extra});
  }
}

StepModel::AttentionTerms StepModel::AttentionTermsFor(int64_t new_tokens, int64_t sequences) const {
  AttentionTerms a;
  a.t = static_cast<double>(new_tokens);
  a.per_layer_kv = own_kv_layers_ > 0 ? kv_bytes_per_token_ / own_kv_layers_ : 0.0;
  a.query_bytes = a.t * (q_width_ + v_width_) * act_bytes_;
  // Decode context parallelism: a rank attends the gathered queries of the DCP group's heads (dcp times
  // its own) over the 1/dcp of the context it holds, the same pairs per rank and 1/dcp of the KV reads.
  a.per_layer_kv /= dcp_;
  a.query_bytes *= dcp_;
  // MLA decodes in the latent space (the up-projections absorbed into q and the output): a pair
  // costs q·[latent, rope] plus p·latent per head. Prefill expands K and V and attends per head.
  const bool decode_only = new_tokens == sequences;
  a.flops_per_pair = 2.0 * (absorbed_width_ > 0 && decode_only ? absorbed_width_ : q_width_ + v_width_);
  a.compute_rate = peak16_ * eff_.attention_compute;
  a.memory_rate = hbm_ * eff_.attention_memory;
  const bool grouped = q_width_ > kv_width_ || absorbed_width_ > 0;
  a.seq_tokens = static_cast<double>(sequences) *
                 (grouped ? eff_.attention_seq_tokens_grouped : eff_.attention_seq_tokens);
  a.floor_s = eff_.kernel_floor_us * 1e-6;
  a.full_layers = kv_layers_ - window_layers_;
  a.window_layers = window_layers_;
  // A window layer attends to at most W keys per query and reads at most W per sequence.
  a.window_attended = a.t * window_tokens_;
  a.window_context = static_cast<double>(std::max<int64_t>(1, sequences)) * window_tokens_;
  return a;
}

void StepModel::AddAttention(const StepWork& w, std::vector<OperatorCost>* out, double* seconds) const {
  if (w.new_tokens <= 0 || kv_layers_ <= 0) return;
  const AttentionTerms a = AttentionTermsFor(w.new_tokens, w.sequences);
  auto layer = [&](double attended, double context, double count, const char* name) {
    if (count <= 0) return;
    double flops = 0, bytes = 0;
    const double s = a.LayerSeconds(attended, context, count, &flops, &bytes);
    *seconds += s;
    if (out) out->push_back({name, "attention", static_cast<int64_t>(count), flops * count, bytes * count, s});
  };
  const double attended = static_cast<double>(w.attended), context = static_cast<double>(w.context_tokens);
  layer(attended, context, a.full_layers, "attention");
  // A verify step on FlashAttention-2 runs whole tiles per query head (fa2_multi_query_attention.h):
  // the excess over the grouped decode above, when the queries per sequence fit one row block.
  if (fa2_verify_ && w.draft_tokens > 0 && a.full_layers > 0 &&
      a.t <= static_cast<double>(Fa2MultiQueryAttention::kBlockM * w.sequences)) {
    const double seqs = static_cast<double>(w.sequences);
    const Fa2LayerTime v = fa2_verify_->Layer(w.sequences, a.t / seqs, context / seqs);
    double flops = 0, bytes = 0;
    const double grouped = a.LayerSeconds(attended, context, 1.0, &flops, &bytes);
    if (v.seconds > grouped) {
      const double s = (v.seconds - grouped) * a.full_layers;
      *seconds += s;
      if (out)
        out->push_back({"attention_fa2_tiles", "attention", static_cast<int64_t>(a.full_layers),
                        std::max(0.0, v.flops - flops) * a.full_layers, 0.0, s});
    }
  }
  layer(std::min(attended, a.window_attended), std::min(context, a.window_context), a.window_layers, "attention_window");
}

// Memory-bound like the elementwise kernels: one pass over each request's state, loaded and stored in
// tiles (no reuse), whatever the tokens the request computes (recurrent_state.h).
void StepModel::AddRecurrentState(int64_t sequences, std::vector<OperatorCost>* out, double* seconds) const {
  if (sequences <= 0 || recurrent_state_.layers <= 0) return;
  const double bytes = static_cast<double>(sequences) * recurrent_state_.BytesPerSequence();
  const double s = bytes / (hbm_ * eff_.elementwise_memory) + eff_.kernel_floor_us * 1e-6 * recurrent_state_.Kernels();
  *seconds += s;
  if (out) out->push_back({"ssm_state", "attention", static_cast<int64_t>(recurrent_state_.Kernels()), 0.0, bytes, s});
}

void StepModel::AddOther(int64_t tokens, std::vector<OperatorCost>* out, double* seconds) const {
  if (tokens <= 0) return;
  const double t = static_cast<double>(tokens), floor = eff_.kernel_floor_us * 1e-6, bw = hbm_ * eff_.elementwise_memory;
  auto add = [&](const char* name, double bytes, double kernels) {
    const double s = bytes / bw + floor * kernels;
    *seconds += s;
    if (out) out->push_back({name, "other", static_cast<int64_t>(kernels), 0.0, bytes, s});
  };
  // Fused residual-add + RMSNorm reads x and the residual and writes both: 4·h per token.
  add("norms", t * 4 * hidden_ * act_bytes_ * (2 * layers_ + 1), 2 * layers_ + 1);
  add("rope", t * 2 * (q_width_ + kv_width_) * act_bytes_ * kv_layers_, kv_layers_);
  double inter = 0;
  for (const Gemm& g : gemms_)
    if (g.name == "mlp_down_proj") inter = static_cast<double>(g.k);
  add("activation", t * (2 + gated_) * inter * act_bytes_ * layers_, layers_);
  add("embedding", t * 2 * hidden_ * act_bytes_, 1);
  if (input_update_kernels_ > 0) add("input_updates", 0.0, input_update_kernels_);
}

void StepModel::AddLmHead(int64_t rows, std::vector<OperatorCost>* out, double* seconds) const {
  if (rows <= 0) return;
  const GemmShape s{rows, static_cast<int64_t>(vocab_per_gpu_), static_cast<int64_t>(hidden_), lm_head_bytes_, act_bytes_, 1.0};
  const double gemm = GemmSeconds(s, gemm_);
  *seconds += gemm;
  if (out) out->push_back({"lm_head", "lm_head", 1, GemmFlops(s), GemmBytes(s), gemm});
  // Sampling over the gathered fp32 logits: softmax, top-k/top-p and the draw read them ~3 times.
  const double bytes = static_cast<double>(rows) * vocab_per_gpu_ * tp_ * 4 * 3;
  const double sample = bytes / (hbm_ * eff_.elementwise_memory) + 4 * eff_.kernel_floor_us * 1e-6;
  *seconds += sample;
  if (out) out->push_back({"sampler", "lm_head", 4, 0.0, bytes, sample});
}

void StepModel::AddCommunication(int64_t tokens, std::vector<OperatorCost>* out, double* seconds) const {
  if (tokens <= 0) return;
  const double message = static_cast<double>(tokens) * hidden_ * act_bytes_;
  if (tp_ > 1) {
    const double calls = 2 * layers_;
    const double s = calls * (allreduce_latency_s_ + 2.0 * (tp_ - 1) / tp_ * message / link_);
    *seconds += s;
    if (out) out->push_back({"tp_all_reduce", "communication", static_cast<int64_t>(calls), 0.0, message * calls, s});
  }
  if (qk_norm_all_reduces_ > 0) {
    // Each rank holds its heads' share of q and k: the norm over all heads needs every rank's sum of
    // squares, an fp32 per token for q and one for k, in one all-reduce or one each. At these sizes
    // the call's latency is all of it.
    const double calls = qk_norm_all_reduces_ * kv_layers_;
    const double bytes = static_cast<double>(tokens) * 4 * 2 / qk_norm_all_reduces_;
    const double s = calls * (allreduce_latency_s_ + 2.0 * (tp_ - 1) / tp_ * bytes / link_);
    *seconds += s;
    if (out) out->push_back({"qk_norm_all_reduce", "communication", static_cast<int64_t>(calls), 0.0, bytes * calls, s});
  }
  if (qk_norm_gathered_bytes_per_token_ > 0) {
    // q and k gathered whole on every rank, one all-gather each: a ring moves (TP - 1) / TP of the
    // gathered bytes over each link.
    const double calls = 2 * kv_layers_;
    const double bytes = static_cast<double>(tokens) * qk_norm_gathered_bytes_per_token_ * kv_layers_;
    const double s = calls * allreduce_latency_s_ + (tp_ - 1.0) / tp_ * bytes / link_;
    *seconds += s;
    if (out) out->push_back({"qk_norm_all_gather", "communication", static_cast<int64_t>(calls), 0.0, bytes, s});
  }
  if (dcp_ > 1 && kv_layers_ > 0) {
    // Each attention layer: an all-gather of the queries over the DCP group, then the partial outputs
    // merged by their log-sum-exps, an all-gather of the LSEs and a reduce-scatter of the outputs back to
    // each rank's heads (vLLM's cp_lse_ag_out_rs; the vLLM blog's "AllGather Q -> Compute -> AllGather +
    // ReduceScatter"). A ring moves (dcp - 1) of the rank's own shares over its link.
    const double calls = 3 * kv_layers_;
    const double bytes = static_cast<double>(tokens) * (dcp_ - 1) * (q_width_ + v_width_) * act_bytes_ * kv_layers_;
    const double s = calls * allreduce_latency_s_ + bytes / link_;
    *seconds += s;
    if (out) out->push_back({"dcp_gather_scatter", "communication", static_cast<int64_t>(calls), 0.0, bytes, s});
  }
  if (pp_ > 1) {
    const double s = (pp_ - 1) * (allreduce_latency_s_ + message / link_);
    *seconds += s;
    if (out) out->push_back({"pp_send", "communication", pp_ - 1, 0.0, message * (pp_ - 1), s});
  }
  if (moe_) moe_->AddAllToAll(tokens, out, seconds);
}

int64_t StepModel::KernelsPerStep() const {
  double kernels = 2 * layers_ + 1 + 2 * kv_layers_ + layers_ + 1 + 5;  // norms, rope, attention, activation, embedding, lm_head + sampler
  for (const Gemm& g : gemms_) kernels += g.layers;
  if (moe_) kernels += static_cast<double>(moe_->KernelsPerStep());
  kernels += recurrent_state_.Kernels();
  if (tp_ > 1) kernels += 2 * layers_ + qk_norm_all_reduces_ * kv_layers_;
  if (qk_norm_gathered_bytes_per_token_ > 0) kernels += 2 * kv_layers_;
  if (dcp_ > 1) kernels += 3 * kv_layers_;
  return static_cast<int64_t>(kernels);
}

// The host: the scheduler's per-step work, then kernel launches. Decode-only batches that fit a
// captured graph replay it; mixed batches replay graph pieces with attention launched between them;
// without graphs every kernel is launched, which costs time only when the CPU falls behind the GPU.
double StepModel::Overhead(const StepWork& w, double gpu_seconds) const {
  if (overlap_host_) return std::max(0.0, SequentialOverhead(w, gpu_seconds) - gpu_seconds);
  return SequentialOverhead(w, gpu_seconds);
}

double StepModel::SequentialOverhead(const StepWork& w, double gpu_seconds) const {
  const double host = eff_.step_overhead_ms * 1e-3;
  const double launch = eff_.launch_us * 1e-6, graph = eff_.graph_launch_us * 1e-6;
  if (eager_) return host + std::max(0.0, static_cast<double>(KernelsPerStep()) * launch - gpu_seconds);
  const bool decode_only = w.new_tokens == w.sequences && w.sequences <= kMaxGraphSequences;
  if (decode_only) return host + graph;
  return host + graph + std::max(0.0, kv_layers_ * launch - 0.5 * gpu_seconds);
}

StepBreakdown StepModel::Breakdown(const StepWork& w) const {
  StepBreakdown b;
  if (fixed_ns_ > 0) {
    b.overhead = static_cast<double>(fixed_ns_) * 1e-9;
    return b;
  }
  b.linear = Memo(linear_memo_, w.new_tokens, &StepModel::AddLinear);
  AddAttention(w, nullptr, &b.attention);
  AddRecurrentState(w.sequences, nullptr, &b.attention);
  b.other = Memo(other_memo_, w.new_tokens, &StepModel::AddOther);
  b.lm_head = Memo(lm_head_memo_, w.logits_rows(), &StepModel::AddLmHead);
  b.communication = Memo(comm_memo_, w.new_tokens, &StepModel::AddCommunication);
  b.overhead = Overhead(w, b.linear + b.attention + b.other + b.lm_head + b.communication);
  return b;
}

int64_t StepModel::StepNs(const StepWork& w) const {
  if (fixed_ns_ > 0) return fixed_ns_;
  return RoundNs(Breakdown(w).total() * 1e9);
}

std::vector<OperatorCost> StepModel::Operators(const StepWork& w) const {
  std::vector<OperatorCost> out;
  if (fixed_ns_ > 0) return out;
  double ignored = 0;
  AddLinear(w.new_tokens, &out, &ignored);
  AddAttention(w, &out, &ignored);
  AddRecurrentState(w.sequences, &out, &ignored);
  AddOther(w.new_tokens, &out, &ignored);
  AddLmHead(w.logits_rows(), &out, &ignored);
  AddCommunication(w.new_tokens, &out, &ignored);
  const double gpu = ignored;
  out.push_back({"host", "overhead", 0, 0.0, 0.0, Overhead(w, gpu)});
  return out;
}

std::unique_ptr<DecodeRunTimer> StepModel::DecodeRun(int64_t sequences) const {
  return std::make_unique<DecodeSteps>(*this, sequences);
}

std::string StepModel::Describe() const {
  if (fixed_ns_ > 0) return Format("fixed %g ms", static_cast<double>(fixed_ns_) / 1e6);
  return calibration_.empty() ? "per-operator (default efficiencies)" : "per-operator (calibration: " + calibration_ + ")";
}

}  // namespace kvsim
