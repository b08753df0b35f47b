#include "kvcache/capacity_planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "kvcache/error.h"
#include "kvcache/units.h"
#include "kvcache/weight_tensors.h"

namespace kvsim {
namespace {

std::string Gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", BytesToGiB(bytes));
  return buf;
}

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

const char* EraName(VllmEra era) {
  switch (era) {
    case VllmEra::kV0: return "v0";
    case VllmEra::kV1Sort: return "v1-sort";
    case VllmEra::kV1: return "v1";
  }
  return "?";
}

void Validate(const ModelSpec& spec, const DeploymentConfig& c) {
  const int tp = c.tensor_parallel_size, pp = c.pipeline_parallel_size;
  if (tp < 1 || tp > 1024) throw Error("--tensor-parallel-size: " + std::to_string(tp) + " must be between 1 and 1024");
  if (pp < 1 || pp > spec.num_layers)
    throw Error("--pipeline-parallel-size: " + std::to_string(pp) + " must be between 1 and the model's " +
                std::to_string(spec.num_layers) + " layers");
  if (spec.num_attention_heads % tp != 0)
    throw Error("--tensor-parallel-size: " + std::to_string(tp) + " does not divide the model's " +
                std::to_string(spec.num_attention_heads) + " attention heads (vLLM refuses to start)");
  if (c.gpu_memory_utilization && !(*c.gpu_memory_utilization > 0.0 && *c.gpu_memory_utilization <= 1.0))
    {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", *c.gpu_memory_utilization);
    throw Error(std::string("--gpu-memory-utilization: ") + buf + " must be in (0, 1]");
  }
  if (c.max_model_len && *c.max_model_len < 1) throw Error("--max-model-len: must be at least 1");
  if (c.max_num_seqs && *c.max_num_seqs < 1) throw Error("--max-num-seqs: must be at least 1");
  if (c.max_num_batched_tokens && *c.max_num_batched_tokens < 1) throw Error("--max-num-batched-tokens: must be at least 1");
  if (c.block_size && (*c.block_size < 1 || *c.block_size > 32768))
    throw Error("--block-size: " + std::to_string(*c.block_size) + " must be between 1 and 32768");
  if (c.gpu_memory_gib && !(*c.gpu_memory_gib > 0.0 && *c.gpu_memory_gib < 100000.0))
    throw Error("--gpu-memory-gib: must be a positive number of GiB");
  if (c.kv_cache_memory_bytes && !(*c.kv_cache_memory_bytes > 0.0))
    throw Error("--kv-cache-memory: must be a positive number of bytes");
}

// vLLM's get_batch_defaults (API server column): big-memory GPUs other than A100 batch more.
void ResolveBatchDefaults(const GpuSpec& gpu, double total_gib, const VllmVersion& version, int64_t max_model_len,
                          EffectiveSettings& s, const DeploymentConfig& c) {
  const bool big_gpu = total_gib >= 70.0 && gpu.id.rfind("a100", 0) != 0;
  if (version.era() == VllmEra::kV0) {
    s.max_num_seqs = c.max_num_seqs.value_or(256);
    // V0 turned chunked prefill on by itself above 32K context, with a small token budget.
    const int64_t fallback = max_model_len > 32768 ? 512 : std::max<int64_t>(max_model_len, 2048);
    s.max_num_batched_tokens = c.max_num_batched_tokens.value_or(fallback);
  } else {
    s.max_num_seqs = c.max_num_seqs.value_or(big_gpu ? 1024 : 256);
    s.max_num_batched_tokens = c.max_num_batched_tokens.value_or(big_gpu ? 8192 : 2048);
  }
}

int64_t ReportedTokens(const VllmVersion& version, Engine engine, int64_t num_blocks, const KvCacheLayout& layout,
                       double max_concurrency, int64_t max_model_len) {
  if (engine != Engine::kVllm || version.era() == VllmEra::kV0 || version.minor < 9)
    return num_blocks * layout.block_size;
  if (version.minor >= 20) return static_cast<int64_t>(max_concurrency * static_cast<double>(max_model_len));
  return num_blocks / static_cast<int64_t>(layout.groups.size()) * layout.block_size;
}

}  // namespace

CapacityResult PlanCapacity(const ModelSpec& spec, const GpuSpec& gpu, const DeploymentConfig& c) {
  Validate(spec, c);
  CapacityResult r;
  EffectiveSettings& s = r.settings;
  const VllmVersion version = ParseVllmVersion(c.vllm_version);
  const NumericFormat dtype = ResolveDtype(c.dtype, spec);
  const QuantizationSpec quant = c.quantization.empty() ? spec.checkpoint_quantization
                                                        : ParseQuantizationFlag(c.quantization, spec.checkpoint_quantization);
  const KvCacheFormat kv_format = ParseKvCacheFormat(c.kv_cache_dtype, spec, dtype);
  const int tp = c.tensor_parallel_size, pp = c.pipeline_parallel_size;

  s.model = spec.name;
  s.architecture = spec.architecture;
  s.engine = EngineName(c.engine);
  s.vllm_version = version.text;
  s.vllm_era = EraName(version.era());
  s.gpu_id = gpu.id;
  s.gpu_name = gpu.name;
  s.interconnect = InterconnectName(gpu.interconnect);
  s.gpu_total_gib = c.gpu_memory_gib.value_or(gpu.cuda_total_gib);
  s.dtype = std::string(FormatName(dtype));
  s.quantization = quant.name;
  s.kv_cache_dtype = kv_format.fp8_ds_mla ? "fp8_ds_mla" : kv_format.name;
  s.tensor_parallel_size = tp;
  s.pipeline_parallel_size = pp;
  s.enable_prefix_caching = c.enable_prefix_caching;
  s.hybrid_kv_cache_manager = c.hybrid_kv_cache_manager && version.era() != VllmEra::kV0 && c.engine == Engine::kVllm;
  if (c.kv_cache_memory_bytes) s.kv_cache_memory_gib = BytesToGiB(*c.kv_cache_memory_bytes);

  s.max_model_len = c.max_model_len.value_or(spec.derived_max_model_len);
  if (s.max_model_len > spec.derived_max_model_len)
    throw Error("--max-model-len: " + std::to_string(s.max_model_len) + " exceeds the model's limit of " +
                std::to_string(spec.derived_max_model_len) + " tokens (max_position_embeddings" +
                (spec.derived_max_model_len != spec.max_position_embeddings ? " × rope scaling" : "") + ")");
  ResolveBatchDefaults(gpu, s.gpu_total_gib, version, s.max_model_len, s, c);
  switch (c.engine) {
    case Engine::kVllm:
      s.block_size = c.block_size.value_or(16);
      s.gpu_memory_utilization = c.gpu_memory_utilization.value_or(0.9);
      break;
    case Engine::kSglang:
      s.block_size = c.block_size.value_or(1);  // token-granular radix cache
      s.gpu_memory_utilization = c.gpu_memory_utilization.value_or(tp >= 8 ? 0.81 : tp >= 4 ? 0.85 : tp >= 2 ? 0.87 : 0.88);
      break;
    case Engine::kTrtllm:
      s.block_size = c.block_size.value_or(32);  // tokens_per_block
      s.gpu_memory_utilization = c.gpu_memory_utilization.value_or(0.9);  // free_gpu_memory_fraction
      break;
  }

  const auto tensors = EnumerateWeights(spec);
  r.params = CountParameters(spec);
  r.active_params = CountActiveParameters(spec);
  const double total_bytes = GiBToBytes(s.gpu_total_gib);
  r.reserved_bytes = total_bytes * s.gpu_memory_utilization;

  const auto ranges = PipelineStageLayers(spec.num_layers, pp);
  int64_t min_blocks = INT64_MAX;
  for (int stage = 0; stage < pp; ++stage) {
    StageCapacity st;
    st.stage = stage;
    st.first_layer = ranges[stage].first;
    st.end_layer = ranges[stage].second;
    st.weights = WeightsOnGpu(spec, tensors, quant, dtype, tp, pp, stage);
    ProfileSettings profile;
    profile.max_num_batched_tokens = s.max_num_batched_tokens;
    profile.max_num_seqs = s.max_num_seqs;
    profile.tp = tp;
    profile.pp = pp;
    profile.last_stage = stage == pp - 1;
    profile.activation_dtype = dtype;
    profile.version = version;
    profile.interconnect = gpu.interconnect;
    st.overhead = EstimateRuntimeOverhead(spec, profile);
    st.layout = BuildKvCacheLayout(spec, kv_format, tp, st.first_layer, st.end_layer, s.block_size,
                                   s.hybrid_kv_cache_manager);
    const double weights = st.weights.total_bytes();
    const double act = st.overhead.activation_peak_bytes, non_torch = st.overhead.non_torch_bytes;
    switch (c.engine) {
      case Engine::kVllm:
        st.kv_cache_bytes = c.kv_cache_memory_bytes ? *c.kv_cache_memory_bytes : r.reserved_bytes - weights - act - non_torch;
        break;
      case Engine::kSglang: {
        // SGLang measures free memory after loading, so the CUDA context and NCCL are already gone.
        const double context = GiBToBytes(0.5 + (tp > 1 ? 1.0 : 0.0));
        st.kv_cache_bytes = (total_bytes - weights - context) - total_bytes * (1.0 - s.gpu_memory_utilization);
        st.overhead.non_torch_bytes = context;
        st.overhead.activation_peak_bytes = 0;  // SGLang keeps (1 - fraction) of memory for it instead
        break;
      }
      case Engine::kTrtllm:
        st.kv_cache_bytes = s.gpu_memory_utilization * (total_bytes - weights - act - non_torch);
        break;
    }
    if (st.kv_cache_bytes <= 0 && r.does_not_fit.empty()) {
      const double needed = weights + act + non_torch;
      r.does_not_fit = ("does not fit: on GPU " + gpu.id + " (" + Gib(total_bytes) + ", utilization " +
                  std::to_string(s.gpu_memory_utilization).substr(0, 4) + " -> " + Gib(r.reserved_bytes) +
                  ") stage " + std::to_string(stage) + " needs weights " + Gib(weights) + " + activation " + Gib(act) +
                  " + runtime " + Gib(non_torch) + " = " + Gib(needed) + ", short by " + Gib(-st.kv_cache_bytes) +
                  " before any KV cache; add GPUs (--tensor-parallel-size) or quantize");
    }
    st.kv_cache_bytes = std::max(st.kv_cache_bytes, 0.0);
    if (c.engine == Engine::kSglang) {
      const int64_t tokens = static_cast<int64_t>(st.kv_cache_bytes / st.layout.bytes_per_token);
      st.num_blocks = tokens / s.block_size;
    } else if (c.engine == Engine::kTrtllm) {
      st.num_blocks = static_cast<int64_t>(st.kv_cache_bytes / (st.layout.bytes_per_token * static_cast<double>(s.block_size)));
    } else {
      st.num_blocks = static_cast<int64_t>(std::floor(st.kv_cache_bytes / static_cast<double>(st.layout.page_bytes))) /
                      st.layout.group_size;
    }
    if (st.num_blocks < min_blocks) {
      min_blocks = st.num_blocks;
      r.bottleneck_stage = stage;
    }
    r.weights_bytes = std::max(r.weights_bytes, weights);
    r.activation_peak_bytes = std::max(r.activation_peak_bytes, st.overhead.activation_peak_bytes);
    r.non_torch_bytes = std::max(r.non_torch_bytes, st.overhead.non_torch_bytes);
    r.stages.push_back(std::move(st));
  }

  const StageCapacity& b = r.stages[r.bottleneck_stage];
  r.kv_cache_bytes = b.kv_cache_bytes;
  r.kv_bytes_per_token = b.layout.bytes_per_token;
  r.num_gpu_blocks = b.num_blocks;
  r.pages_per_max_len_request = b.layout.PagesPerRequest(s.max_model_len, s.max_num_batched_tokens);
  if (c.engine == Engine::kVllm && version.era() == VllmEra::kV0) {
    r.max_concurrency = static_cast<double>(r.num_gpu_blocks * s.block_size) / static_cast<double>(s.max_model_len);
  } else {
    r.max_concurrency = static_cast<double>(r.num_gpu_blocks) / static_cast<double>(r.pages_per_max_len_request);
  }
  r.gpu_kv_cache_tokens = ReportedTokens(version, c.engine, r.num_gpu_blocks, b.layout, r.max_concurrency, s.max_model_len);

  // Baselines: the rule of thumb and article 003's formula, per GPU.
  const int gpus = tp * pp;
  r.baseline_1_2x_bytes = 1.2 * r.weights_bytes;
  r.baseline_article003_bytes =
      (2.4 * static_cast<double>(r.params) + 4.0 * static_cast<double>(s.max_model_len) * static_cast<double>(spec.num_layers) *
                                                 static_cast<double>(spec.num_attention_heads * spec.head_dim)) / gpus;
  const double one_request_kv = static_cast<double>(r.pages_per_max_len_request) * static_cast<double>(b.layout.block_bytes);
  r.modelled_one_request_bytes = r.weights_bytes + r.activation_peak_bytes + r.non_torch_bytes + one_request_kv;

  if (c.engine == Engine::kVllm && !c.kv_cache_memory_bytes && r.max_concurrency < 1.0 && r.does_not_fit.empty()) {
    r.does_not_fit = ("does not fit: the KV cache (" + Gib(r.kv_cache_bytes) + ", " + std::to_string(r.num_gpu_blocks) +
                " blocks) cannot hold one request of --max-model-len " + std::to_string(s.max_model_len) + " (needs " +
                std::to_string(r.pages_per_max_len_request) + " blocks, short by " +
                Gib(one_request_kv - static_cast<double>(r.num_gpu_blocks) * static_cast<double>(b.layout.block_bytes)) +
                "); vLLM refuses to start: lower --max-model-len or add memory");
  }
  r.notes = spec.notes;
  if (b.layout.padding_layers > 0)
    r.notes.push_back("hybrid KV cache: " + std::to_string(b.layout.padding_layers) +
                      " padding layer(s) added to equalise groups, as vLLM does");
  if (c.engine != Engine::kVllm) r.notes.push_back(std::string(EngineName(c.engine)) + " budgeting rule (see docs/CAPACITY_MODEL.md)");
  return r;
}

}  // namespace kvsim
