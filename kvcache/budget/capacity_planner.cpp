#include "kvcache/budget/capacity_planner.h"

#include <algorithm>
#include <cmath>

#include "kvcache/base/check.h"
#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "kvcache/base/units.h"
#include "kvcache/budget/budget_rules.h"
#include "kvcache/budget/capacity_notes.h"
#include "kvcache/budget/setting_ranges.h"
#include "kvcache/budget/encoder_budget.h"
#include "kvcache/budget/lora_memory.h"
#include "kvcache/budget/model_runner.h"
#include "kvcache/budget/quantization_support.h"
#include "kvcache/budget/release_rules.h"
#include "kvcache/budget/speculative_memory.h"
#include "kvcache/budget/startup_rules.h"
#include "kvcache/model/gpu_catalog.h"
#include "kvcache/model/weight_tensors.h"

namespace kvsim {
namespace {

std::string Gib(double bytes) { return Format("%.2f GiB", BytesToGiB(bytes)); }

NumericFormat ResolveDtype(const std::string& flag, const ModelSpec& spec) {
  if (flag == "auto") {
    // vLLM: "auto" runs fp32 checkpoints in fp16, others in their own dtype.
    return spec.dtype == NumericFormat::kFloat32 ? NumericFormat::kFloat16 : spec.dtype;
  }
  auto fmt = ParseNumericFormat(flag);
  if (!fmt || (*fmt != NumericFormat::kFloat32 && *fmt != NumericFormat::kFloat16 && *fmt != NumericFormat::kBFloat16))
    throw Error("--dtype: '" + flag + "' is not known (auto, float16, bfloat16, float32)");
  return *fmt;
}

// The formats a run resolves from its flags and the checkpoint.
struct Formats {
  VllmVersion version;
  NumericFormat dtype;
  QuantizationSpec quant;
  KvCacheFormat kv;
};

// --kv-cache-dtype as vLLM resolves it: "auto" takes the checkpoint's calibrated KV format where the
// release reads it (ReleaseRule::kCheckpointKvCacheDtype), else the model dtype.
std::string CacheDtype(const ModelSpec& spec, const DeploymentConfig& c, const VllmVersion& version) {
  const bool auto_dtype = c.kv_cache_dtype.empty() || c.kv_cache_dtype == "auto";
  if (auto_dtype && c.engine == Engine::kVllm && !spec.checkpoint_quantization.kv_cache_dtype.empty() &&
      HasRule(version, ReleaseRule::kCheckpointKvCacheDtype))
    return spec.checkpoint_quantization.kv_cache_dtype;
  return c.kv_cache_dtype;
}

Formats ResolveFormats(const ModelSpec& spec, const DeploymentConfig& c) {
  Formats f{ParseVllmVersion(c.vllm_version), ResolveDtype(c.dtype, spec), {}, {}};
  f.quant = c.quantization.empty() ? spec.checkpoint_quantization
                                   : ParseQuantizationFlag(c.quantization, spec.checkpoint_quantization);
  // A pre-quantized checkpoint is loaded in its own format: vLLM refuses a --quantization of another
  // method (vllm/config/model.py, ModelConfig._verify_quantization: "Quantization method specified in
  // the model config (...) does not match the quantization method specified in the `quantization`
  // argument (...)"), so its weights are never re-quantized the way the flag would size them.
  const QuantizationSpec& checkpoint = spec.checkpoint_quantization;
  if (c.engine == Engine::kVllm && checkpoint.method != QuantMethod::kNone && f.quant.method != QuantMethod::kNone &&
      f.quant.method != checkpoint.method)
    throw Error("--quantization " + c.quantization + ": the checkpoint is already quantized (" + checkpoint.name +
                ", its quantization_config) and vLLM refuses another method for it; leave --quantization out");
  f.kv = ParseKvCacheFormat(CacheDtype(spec, c, f.version), spec, f.dtype);
  const bool ssm_auto = c.mamba_ssm_cache_dtype.empty() || c.mamba_ssm_cache_dtype == "auto";
  ApplyStateDtypes(c.mamba_cache_dtype, ssm_auto && !spec.checkpoint_state_ssm_dtype.empty()
                                            ? spec.checkpoint_state_ssm_dtype : c.mamba_ssm_cache_dtype, f.kv);
  return f;
}

EffectiveSettings ResolveSettings(const ModelSpec& spec, const GpuSpec& gpu, const DeploymentConfig& c,
                                  const Formats& f, const BudgetRule& rule) {
  EffectiveSettings s;
  s.model = spec.name;
  s.architecture = spec.architecture;
  s.engine = c.engine;
  s.vllm_version = f.version.text;
  s.vllm_era = f.version.era();
  s.gpu_id = gpu.id;
  s.gpu_name = gpu.name;
  s.interconnect = gpu.interconnect;
  s.gpu_total_gib = c.gpu_memory_gib.value_or(gpu.cuda_total_gib);
  s.dtype = std::string(FormatName(f.dtype));
  s.quantization = f.quant.name;
  s.kv_cache_dtype = f.kv.fp8_ds_mla ? "fp8_ds_mla" : f.kv.name;
  s.tensor_parallel_size = c.tensor_parallel_size;
  s.pipeline_parallel_size = c.pipeline_parallel_size;
  s.enable_prefix_caching = c.enable_prefix_caching;
  s.data_parallel_size = c.data_parallel_size;
  s.decode_context_parallel_size = c.decode_context_parallel_size;
  s.enable_expert_parallel = c.enable_expert_parallel;
  s.all2all_backend = c.all2all_backend;
  if (c.kv_cache_memory_bytes) s.kv_cache_memory_gib = BytesToGiB(*c.kv_cache_memory_bytes);
  s.max_model_len = c.max_model_len.value_or(spec.derived_max_model_len);
  // vLLM's _get_and_verify_max_len: past the derived limit is an error unless
  // VLLM_ALLOW_LONG_MAX_MODEL_LEN is set, then a warning (PlanCapacity notes it).
  if (s.max_model_len > spec.derived_max_model_len && !c.allow_long_max_model_len)
    throw Error("--max-model-len: " + std::to_string(s.max_model_len) + " exceeds the model's limit of " +
                std::to_string(spec.derived_max_model_len) + " tokens (max_position_embeddings" +
                (spec.derived_max_model_len != spec.max_position_embeddings ? " × rope scaling" : "") + ")");
  CheckQuantizationRuns(f.quant, f.dtype, gpu, c);  // what vLLM refuses before loading anything
  const EngineDefaults d = rule.Defaults(gpu, s.gpu_total_gib, c, s.max_model_len);
  s.max_num_seqs = d.max_num_seqs;
  s.max_num_batched_tokens = d.max_num_batched_tokens;
  s.block_size = d.block_size;
  s.gpu_memory_utilization = d.gpu_memory_utilization;
  s.kv_grouping = d.kv_grouping;
  // DeepSeek-V3.2's sparse attention runs on 64-token blocks only (the indexer backend's and
  // FlashMLA-sparse's get_supported_kernel_block_sizes), so vLLM picks 64 unless told otherwise.
  if (c.engine == Engine::kVllm && !c.block_size && spec.has_mla && spec.mla.indexer_heads > 0) s.block_size = 64;
  // Without the hybrid manager vLLM V1 must give every layer one kind of KV page; sliding windows
  // convert to full attention, Mamba / linear-attention state cannot, and the engine stops at start-up
  // (vllm/v1/core/kv_cache_utils.py unify_hybrid_kv_cache_specs: "Hybrid KV cache manager is disabled
  // but failed to convert the KV cache specs to one unified type").
  if (c.engine == Engine::kVllm && f.version.era() != VllmEra::kV0 && s.kv_grouping == KvGrouping::kSingleGroup &&
      std::any_of(spec.layers.begin(), spec.layers.end(), [](const LayerAttention& l) { return l.kind == AttentionKind::kStateOnly; }))
    throw Error("--disable-hybrid-kv-cache-manager: the model's Mamba / linear-attention state layers cannot share one "
                "KV page type with its attention layers; vLLM refuses to start (\"failed to convert the KV cache specs to "
                "one unified type\"): keep the hybrid KV cache manager");
  // With linear-attention / SSM layers vLLM V1 raises the block size until one attention
  // page holds a layer's state (kv_cache_layout.h HybridStateBlockSize), a --block-size too included.
  if (c.engine == Engine::kVllm && f.version.era() != VllmEra::kV0 && s.kv_grouping == KvGrouping::kHybrid)
    s.block_size = std::max(s.block_size, HybridStateBlockSize(spec, f.kv, c.tensor_parallel_size));
  return s;
}

// Speculative decoding: vLLM v1 loads the drafter on the last pipeline stage, with the target's
// TP, and registers its attention layers in the same KV pool.
void AddSpeculativeDraft(const ModelSpec& spec, const std::vector<WeightTensor>& tensors, const DeploymentConfig& c,
                         const Formats& f, const EffectiveSettings& s, int stage, StageCapacity& st) {
  if (stage != s.pipeline_parallel_size - 1) return;
  const DraftWeights d = DraftWeightsOnGpu(spec, tensors, c.speculative, f.quant, f.dtype, s.tensor_parallel_size);
  // Its RoPE cos/sin cache is the target's (get_rope caches by its arguments).
  st.weights.draft_bytes = d.memory.quantized_bytes + d.memory.full_width_bytes;
  st.draft_what = d.what;
}

// LoRA slots: allocated while the model loads (LoRAModelManager), before the profile run.
void AddLoraBuffers(const ModelSpec& spec, const std::vector<WeightTensor>& tensors, const DeploymentConfig& c,
                    const Formats& f, const EffectiveSettings& s, StageCapacity& st) {
  if (!c.lora.enabled || c.engine != Engine::kVllm) return;
  LoraPlacement where;
  where.tp = s.tensor_parallel_size;
  where.first_layer = st.first_layer;
  where.end_layer = st.end_layer;
  where.first_stage = st.stage == 0;
  where.last_stage = st.stage == s.pipeline_parallel_size - 1;
  // vLLM 0.12 dropped LoRA extra vocabulary (lora_extra_vocab_size and the embeddings_tensors).
  LoraSettings lora = c.lora;
  if (HasRule(f.version, ReleaseRule::kNoLoraExtraVocab)) lora.extra_vocab_size = 0;
  st.lora = LoraBuffersOnGpu(spec, tensors, lora, f.dtype, where);
  st.weights.lora_bytes = st.lora.gpu_bytes();
}

void AddDraftKv(const DeploymentConfig& c, const Formats& f, const EffectiveSettings& s,
                StageCapacity& st) {
  if (c.speculative.method.empty() || c.speculative.method == "ngram") return;
  KvCacheLayout draft;
  if (c.speculative.draft) {
    const ModelSpec& d = *c.speculative.draft;
    if (d.kv_layers() == 0) return;
    draft = BuildKvCacheLayout(d, ParseKvCacheFormat(f.kv.name, d, f.dtype), s.tensor_parallel_size, 0,
                               d.num_layers, s.block_size, KvGrouping::kSingleGroup);
  } else {
    draft = st.layout;  // MTP: one more layer of the target's own shape
    draft.num_attention_layers = 1;
    draft.bytes_per_token = st.layout.bytes_per_token_per_layer;
  }
  // A drafter of another page size next to a hybrid target is left out (AddDraftKvLayers returns false).
  st.draft_kv_bytes_per_token = draft.bytes_per_token;
  st.layout_holds_draft_kv = AddDraftKvLayers(st.layout, draft);
}

StageCapacity PlanStage(const ModelSpec& spec, const std::vector<WeightTensor>& tensors, const GpuSpec& gpu,
                        const DeploymentConfig& c, const Formats& f, const EffectiveSettings& s,
                        const BudgetRule& rule, int stage, std::pair<int64_t, int64_t> layers) {
  const int tp = s.tensor_parallel_size, pp = s.pipeline_parallel_size;
  StageCapacity st;
  st.stage = stage;
  st.first_layer = layers.first;
  st.end_layer = layers.second;
  st.weights = WeightsOnGpu(spec, tensors, f.quant, f.dtype, tp, pp, stage, ExpertShards(c), c.cpu_offload_bytes,
                            c.pp_layer_partition);
  // Qwen3-VL allocates one [max_num_batched_tokens, hidden] buffer per deepstack level at load
  // (Qwen3VLForConditionalGeneration.__init__), counted in vLLM's "Model loading took".
  if (stage == 0 && c.engine == Engine::kVllm)
    st.weights.init_buffer_bytes = static_cast<double>(spec.vision.deepstack_levels * s.max_num_batched_tokens) *
                                   static_cast<double>(spec.hidden_size) * BytesPerElement(f.dtype);
  AddSpeculativeDraft(spec, tensors, c, f, s, stage, st);
  AddLoraBuffers(spec, tensors, c, f, s, st);
  ProfileSettings profile;
  profile.max_num_batched_tokens = s.max_num_batched_tokens;
  profile.max_num_seqs = s.max_num_seqs;
  profile.max_model_len = s.max_model_len;
  profile.tp = tp;
  profile.pp = pp;
  profile.last_stage = stage == pp - 1;
  profile.activation_dtype = f.dtype;
  profile.version = f.version;
  profile.interconnect = gpu.interconnect;
  if (c.engine == Engine::kVllm)
    profile.runner = c.model_runner ? *c.model_runner : SelectModelRunner(f.version, spec, c.speculative.method);
  st.overhead = EstimateRuntimeOverhead(spec, profile);
  if (stage == 0 && c.engine == Engine::kVllm)  // the encoder runs on the first stage
    st.overhead.encoder_profile_bytes =
        EstimateEncoderProfile(spec, c.multimodal,
                               {s.max_num_batched_tokens, s.max_num_seqs, s.max_model_len, BytesPerElement(f.dtype), tp,
                                f.version},
                               st.overhead.activation_peak_bytes)
            .extra_bytes;
  st.layout = BuildKvCacheLayout(spec, f.kv, tp, st.first_layer, st.end_layer, s.block_size, s.kv_grouping);
  st.layout.context_parallel = s.decode_context_parallel_size;
  if (stage == pp - 1) AddDraftKv(c, f, s, st);
  if (c.engine == Engine::kVllm) {
    CudaGraphShape graphs;
    graphs.max_num_seqs = s.max_num_seqs;
    graphs.max_num_batched_tokens = s.max_num_batched_tokens;
    graphs.layers_on_gpu = st.end_layer - st.first_layer;
    graphs.speculative_tokens = c.speculative.num_speculative_tokens;
    graphs.enforce_eager = c.enforce_eager;
    graphs.profile_measures_graphs = RunnerProfilesCudaGraphs(profile.runner, f.version);
    st.cuda_graphs = EstimateCudaGraphMemory(c.cuda_graphs, graphs, f.version);
    if (st.cuda_graphs.charged_to_kv) st.overhead.cuda_graph_bytes = st.cuda_graphs.bytes;
  }
  st.kv_cache_bytes = rule.KvCacheBytes(c, GiBToBytes(s.gpu_total_gib), s.gpu_memory_utilization,
                                        st.weights.total_bytes(), st.overhead);
  return st;
}

std::string StageDoesNotFit(const GpuSpec& gpu, const CapacityResult& r, const StageCapacity& st) {
  const double weights = st.weights.total_bytes();
  const double act = st.overhead.activation_peak_bytes + st.overhead.encoder_profile_bytes + st.overhead.sparse_indexer_bytes;
  const double non_torch = st.overhead.non_torch_bytes;
  const double graphs = st.overhead.cuda_graph_bytes;
  const EffectiveSettings& s = r.settings;
  return "does not fit: on GPU " + gpu.id + " (" + Gib(GiBToBytes(s.gpu_total_gib)) + ", utilization " +
         std::to_string(s.gpu_memory_utilization).substr(0, 4) + " -> " + Gib(r.reserved_bytes) + ") stage " +
         std::to_string(st.stage) + " needs weights " + Gib(weights) + " + activation " + Gib(act) + " + runtime " +
         Gib(non_torch) + (graphs > 0 ? " + CUDA graphs " + Gib(graphs) : std::string()) + " = " +
         Gib(weights + act + non_torch + graphs) + ", short by " + Gib(-st.kv_cache_bytes) +
         " before any KV cache; add GPUs (--tensor-parallel-size) or quantize";
}

// The per-GPU totals: the largest weights/overhead over stages; KV from the bottleneck stage, as
// vLLM takes the minimum over workers.
void Summarize(const ModelSpec& spec, const DeploymentConfig& c, const BudgetRule& rule, CapacityResult& r) {
  const EffectiveSettings& s = r.settings;
  const StageCapacity& b = r.stages[r.bottleneck_stage];
  r.kv_cache_bytes = b.kv_cache_bytes;
  r.kv_bytes_per_token = b.layout.bytes_per_token;
  r.num_gpu_blocks = b.num_blocks;
  r.usable_gpu_blocks = std::max<int64_t>(0, b.num_blocks - rule.NullBlocks(spec));
  r.spec_decode_slots = c.engine == Engine::kVllm ? SpeculativeDecodeSlots(c.speculative, s.vllm_era) : 0;
  r.spec_lookahead_bytes = static_cast<double>(r.spec_decode_slots * s.max_num_seqs) * r.kv_bytes_per_token;
  r.pages_per_max_len_request = b.layout.PagesPerRequest(s.max_model_len, s.max_num_batched_tokens);
  r.max_concurrency = rule.MaxConcurrency(r.num_gpu_blocks, r.pages_per_max_len_request, b.layout, s.max_model_len);
  r.gpu_kv_cache_tokens = rule.ReportedTokens(r.num_gpu_blocks, b.layout, r.max_concurrency, s.max_model_len);
  for (const int64_t tokens : {int64_t{1024}, int64_t{4096}, int64_t{16384}})
    if (tokens < s.max_model_len) r.concurrency_at.emplace_back(tokens, ConcurrencyAt(r, tokens));

  // Baselines: the rule of thumb and article 003's formula, per GPU.
  const int gpus = s.tensor_parallel_size * s.pipeline_parallel_size;
  r.baseline_1_2x_bytes = 1.2 * r.weights_bytes;
  r.baseline_article003_bytes =
      (2.4 * static_cast<double>(r.params) + 4.0 * static_cast<double>(s.max_model_len) * static_cast<double>(spec.num_layers) *
                                                 static_cast<double>(spec.num_attention_heads * spec.head_dim)) / gpus;
  const double one_request_kv = static_cast<double>(r.pages_per_max_len_request) * static_cast<double>(b.layout.block_bytes);
  r.modelled_one_request_bytes = r.weights_bytes + r.activation_peak_bytes + r.non_torch_bytes + one_request_kv +
                                 r.encoder_profile_bytes + r.sparse_indexer_bytes + r.cuda_graph_bytes;
}

// vLLM's start-up check compares bytes, so a pool of exactly one request's blocks passes; the null
// block then leaves one block short and that request never gets scheduled.
void NoteNullBlockShortfall(CapacityResult& r) {
  if (!r.does_not_fit.empty() || r.usable_gpu_blocks >= r.pages_per_max_len_request ||
      r.num_gpu_blocks < r.pages_per_max_len_request)
    return;
  r.notes.push_back("vLLM starts, but a request of --max-model-len " + std::to_string(r.settings.max_model_len) +
                    " needs " + std::to_string(r.pages_per_max_len_request) + " blocks and only " +
                    std::to_string(r.usable_gpu_blocks) + " are usable (block 0 is the null block): it would wait forever");
}

void CheckOneFullRequestFits(const ModelSpec& spec, const DeploymentConfig& c, const BudgetRule& rule, CapacityResult& r) {
  // --max-model-len auto fits the length to the whole pool and skips that check (PR #48724, open, would
  // leave the null block out there too), so an auto length can still need every block.
  const bool without_null = rule.ChecksWithoutNullBlock() && !c.max_model_len_auto;
  if (!without_null) NoteNullBlockShortfall(r);
  const bool short_of_one = r.max_concurrency < 1.0 || (without_null && r.usable_gpu_blocks < r.pages_per_max_len_request);
  if (!rule.RequiresOneFullRequest(c) || !short_of_one || !r.does_not_fit.empty()) return;
  const StageCapacity& b = r.stages[r.bottleneck_stage];
  // As vLLM's error does (check_enough_kv_cache_memory), name the longest request the pool holds.
  const int64_t checked_blocks = without_null ? std::max<int64_t>(b.num_blocks - 1, 0) : b.num_blocks;
  const int64_t fits = EstimateMaxModelLen(b.layout, checked_blocks, r.settings.max_num_batched_tokens, spec.derived_max_model_len);
  const double one_request_kv = static_cast<double>(r.pages_per_max_len_request) * static_cast<double>(b.layout.block_bytes);
  r.does_not_fit = "does not fit: the KV cache (" + Gib(r.kv_cache_bytes) + ", " + std::to_string(r.num_gpu_blocks) +
                   " blocks) cannot hold one request of --max-model-len " + std::to_string(r.settings.max_model_len) +
                   (without_null ? " beside the null block" : "") + " (needs " +
                   std::to_string(r.pages_per_max_len_request) + " blocks, short by " +
                   Gib(one_request_kv - static_cast<double>(checked_blocks) * static_cast<double>(b.layout.block_bytes)) +
                   "); vLLM refuses to start: the largest --max-model-len that fits is " + std::to_string(fits) +
                   " (or add memory)";
}

// --max-model-len auto, vLLM's estimate_max_model_len over the bottleneck stage's pool.
void ChooseMaxModelLen(const ModelSpec& spec, CapacityResult& r) {
  const StageCapacity& b = r.stages[r.bottleneck_stage];
  const int64_t len = EstimateMaxModelLen(b.layout, b.num_blocks, r.settings.max_num_batched_tokens, spec.derived_max_model_len);
  r.settings.max_model_len = std::max<int64_t>(len, 1);
  r.notes.push_back("--max-model-len auto: " + std::to_string(len) +
                    " tokens, the longest request the KV cache holds (vLLM's estimate_max_model_len)");
}

}  // namespace

CapacityResult PlanCapacity(const ModelSpec& model, const GpuSpec& gpu, const DeploymentConfig& c) {
  const ModelSpec spec = ApplyServeModelOverrides(model, c);  // --disable-sliding-window
  CheckSettingRanges(spec, c);
  const Formats formats = ResolveFormats(spec, c);
  const std::unique_ptr<BudgetRule> rule = MakeBudgetRule(c.engine, formats.version);
  CapacityResult r;
  r.settings = ResolveSettings(spec, gpu, c, formats, *rule);
  if (r.settings.max_model_len > spec.derived_max_model_len)
    r.notes.push_back("max-model-len " + std::to_string(r.settings.max_model_len) + " exceeds the model's limit of " +
                      std::to_string(spec.derived_max_model_len) +
                      " tokens: planned as asked (VLLM_ALLOW_LONG_MAX_MODEL_LEN); outputs past the limit may be wrong");
  r.compute_dtype = formats.dtype;
  r.weight_quantization = formats.quant;
  const auto tensors = EnumerateWeights(spec);
  r.params = CountParameters(spec);
  r.active_params = CountActiveParameters(spec);
  r.reserved_bytes = GiBToBytes(r.settings.gpu_total_gib) * r.settings.gpu_memory_utilization;

  const int pp = c.pipeline_parallel_size;
  const auto ranges = PipelineStageLayers(spec.num_layers, pp, c.pp_layer_partition);
  int64_t min_blocks = INT64_MAX;
  for (int stage = 0; stage < pp; ++stage) {
    StageCapacity st = PlanStage(spec, tensors, gpu, c, formats, r.settings, *rule, stage, ranges[stage]);
    if (st.kv_cache_bytes <= 0 && r.does_not_fit.empty()) r.does_not_fit = StageDoesNotFit(gpu, r, st);
    st.kv_cache_bytes = std::max(st.kv_cache_bytes, 0.0);
    st.num_blocks = rule->Blocks(st.kv_cache_bytes, st.layout);
    if (c.num_gpu_blocks_override && c.engine == Engine::kVllm) {  // kv_cache_utils.get_num_blocks
      st.num_blocks = *c.num_gpu_blocks_override;
      st.kv_cache_bytes = static_cast<double>(st.num_blocks) * static_cast<double>(st.layout.block_bytes);
      // The override skips the budget but not the allocation: past what the weights leave of the GPU,
      // vLLM's KV tensors fail to allocate at start-up (as --kv-cache-memory does).
      const double room = GiBToBytes(r.settings.gpu_total_gib) - st.weights.total_bytes() - st.overhead.non_torch_bytes;
      if (st.kv_cache_bytes > room)
        throw Error(Format("--num-gpu-blocks-override: %lld blocks of %.2f MiB are %.2f GiB, more than a GPU of %.2f GiB holds "
                           "beside %.2f GiB of weights and %.2f GiB outside PyTorch (at most %lld blocks): vLLM's allocation "
                           "would fail",
                           static_cast<long long>(st.num_blocks), static_cast<double>(st.layout.block_bytes) / (1 << 20),
                           BytesToGiB(st.kv_cache_bytes), r.settings.gpu_total_gib, BytesToGiB(st.weights.total_bytes()),
                           BytesToGiB(st.overhead.non_torch_bytes),
                           static_cast<long long>(std::max(0.0, std::floor(room / static_cast<double>(st.layout.block_bytes))))));
    }
    if (st.num_blocks < min_blocks) {
      min_blocks = st.num_blocks;
      r.bottleneck_stage = stage;
    }
    r.weights_bytes = std::max(r.weights_bytes, st.weights.total_bytes());
    r.activation_peak_bytes = std::max(r.activation_peak_bytes, st.overhead.activation_peak_bytes);
    r.non_torch_bytes = std::max(r.non_torch_bytes, st.overhead.non_torch_bytes);
    r.encoder_profile_bytes = std::max(r.encoder_profile_bytes, st.overhead.encoder_profile_bytes);
    r.sparse_indexer_bytes = std::max(r.sparse_indexer_bytes, st.overhead.sparse_indexer_bytes);
    if (st.overhead.cuda_graph_bytes > r.cuda_graph_bytes) {
      r.cuda_graph_bytes = st.overhead.cuda_graph_bytes;
      r.cuda_graphs_captured = st.cuda_graphs.piecewise_graphs + st.cuda_graphs.full_graphs;
    }
    if (st.weights.draft_bytes > r.draft_weights_bytes) {
      r.draft_weights_bytes = st.weights.draft_bytes;
      r.draft_what = st.draft_what;
    }
    if (st.lora.gpu_bytes() > r.lora.gpu_bytes()) r.lora = st.lora;
    r.stages.push_back(std::move(st));
  }
  NoteSpeculativeAndLora(c, r);
  if (c.max_model_len_auto) ChooseMaxModelLen(spec, r);
  Summarize(spec, c, *rule, r);
  CheckOneFullRequestFits(spec, c, *rule, r);

  r.notes.insert(r.notes.begin(), spec.notes.begin(), spec.notes.end());
  NoteSettings(c, r);
  if (!rule->Note().empty()) r.notes.push_back(rule->Note());
  if (c.engine == Engine::kVllm && !formats.version.newer_than_modelled.empty())
    r.notes.push_back("--vllm-version " + formats.version.newer_than_modelled + " is newer than the newest release kvsim models; " +
                      "its budget is computed as vLLM " + formats.version.text + " computes it (kvsim releases lists the rules)");
  return r;
}

double ConcurrencyAt(const CapacityResult& r, int64_t tokens) {
  KVSIM_CHECK(!r.stages.empty(), "ConcurrencyAt needs a planned result");
  const StageCapacity& b = r.stages[r.bottleneck_stage];
  const int64_t held = std::min(std::max<int64_t>(tokens, 1) + r.spec_decode_slots, r.settings.max_model_len);
  const int64_t pages = b.layout.PagesPerRequest(held, r.settings.max_num_batched_tokens);
  return pages > 0 ? static_cast<double>(r.usable_gpu_blocks) / static_cast<double>(pages) : 0.0;
}

}  // namespace kvsim
