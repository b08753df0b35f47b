#include "kvcache/budget/deployment.h"

#include <cmath>

#include <filesystem>

#include "kvcache/base/error.h"
#include "kvcache/base/quantity_parse.h"
#include "kvcache/base/text_format.h"
#include "kvcache/budget/serve_settings.h"
#include "kvcache/budget/speculative_config.h"
#include "kvcache/budget/weight_memory.h"
#include "kvcache/model/gpu_catalog.h"
#include "kvcache/model/model_catalog.h"

namespace kvsim {
namespace {

std::optional<int64_t> OptionalCount(const std::string& text, const std::string& option) {
  if (text.empty()) return std::nullopt;
  return ParseTokenCount(text, option);
}

std::optional<double> OptionalNumber(const std::string& text, const std::string& option) {
  if (text.empty()) return std::nullopt;
  return ParseFiniteNumber(text, option);
}

DeploymentConfig ConfigFromOptions(const DeploymentOptions& o) {
  DeploymentConfig c;
  c.dtype = o.dtype;
  c.quantization = o.quantization;
  c.kv_cache_dtype = o.kv_cache_dtype;
  c.mamba_cache_dtype = o.mamba_cache_dtype;
  c.mamba_ssm_cache_dtype = o.mamba_ssm_cache_dtype;
  c.tensor_parallel_size = o.tensor_parallel_size;
  c.pipeline_parallel_size = o.pipeline_parallel_size;
  c.pp_layer_partition = ParsePipelineLayerPartition(o.pp_layer_partition);
  c.gpu_memory_utilization = OptionalNumber(o.gpu_memory_utilization, "--gpu-memory-utilization");
  c.max_model_len = IsAutoMaxModelLen(o.max_model_len) ? std::nullopt : OptionalCount(o.max_model_len, "--max-model-len");
  c.max_num_seqs = OptionalCount(o.max_num_seqs, "--max-num-seqs");
  c.max_num_batched_tokens = OptionalCount(o.max_num_batched_tokens, "--max-num-batched-tokens");
  c.block_size = OptionalCount(o.block_size, "--block-size");
  if (!o.kv_cache_memory.empty()) c.kv_cache_memory_bytes = ParseByteAmount(o.kv_cache_memory, "--kv-cache-memory");
  c.gpu_memory_gib = OptionalNumber(o.gpu_memory_gib, "--gpu-memory-gib");
  c.enable_prefix_caching = o.enable_prefix_caching;
  c.enable_chunked_prefill = o.enable_chunked_prefill;
  c.enforce_eager = o.enforce_eager;
  c.allow_long_max_model_len = o.allow_long_max_model_len;
  c.kv_grouping = o.disable_hybrid_kv_cache_manager ? KvGrouping::kSingleGroup : KvGrouping::kHybrid;
  c.vllm_version = o.vllm_version;
  ParseVllmVersion(o.vllm_version);  // validate early, with the option's name
  c.engine = ParseEnum<Engine>(o.engine, "--engine");
  ReadServeSettings(o, c);
  return c;
}

// "2039", "2039GB/s" (10^9 B/s) or "2.039TB/s".
double ParseBandwidth(const std::string& text) {
  std::string number = text;
  double scale = 1e9;
  for (const auto& [suffix, factor] : {std::pair<const char*, double>{"TB/s", 1e12}, {"GB/s", 1e9}}) {
    const std::string s = suffix;
    if (number.size() > s.size() && number.compare(number.size() - s.size(), s.size(), s) == 0) {
      number = number.substr(0, number.size() - s.size());
      scale = factor;
      break;
    }
  }
  const double v = ParseFiniteNumber(number, "--gpu-bandwidth");
  if (!(v > 0 && v * scale < kMaxGpuBandwidthBytesPerS))
    throw Error("--gpu-bandwidth: '" + text + "' must be above 0 and below " + Format("%g", kMaxGpuBandwidthBytesPerS / 1e9) +
                " GB/s (GB/s, or with a TB/s suffix)");
  return v * scale;
}

GpuSpec ResolveGpu(const DeploymentOptions& o, const DeploymentConfig& c, const GpuCatalog& catalog) {
  GpuSpec gpu;
  if (const GpuSpec* found = catalog.TryFind(o.gpu)) {
    gpu = *found;
    // The memory is the user's, the rest the table's: the name must not claim the table's part.
    if (c.gpu_memory_gib && std::abs(*c.gpu_memory_gib - found->cuda_total_gib) > 0.005)
      gpu.name += Format(" figures with %.2f GiB (--gpu-memory-gib)", *c.gpu_memory_gib);
  } else if (c.gpu_memory_gib) {
    gpu.id = o.gpu;
    gpu.name = o.gpu + " (custom)";
    gpu.interconnect = GuessInterconnect(o.gpu);
  } else {
    gpu = catalog.Find(o.gpu);  // throws with close matches
  }
  if (o.interconnect != "auto") {
    const Interconnect given = ParseEnum<Interconnect>(o.interconnect, "--interconnect");
    // NVLink and NVLS are NVIDIA's, Infinity Fabric (xgmi) AMD's: the other vendor's link on a GPU the
    // table names would time TP all-reduces over a link that GPU cannot have.
    const bool amd_link = given == Interconnect::kXgmi;
    const bool nvidia_link = given == Interconnect::kNvlink || given == Interconnect::kNvls;
    const bool amd_gpu = gpu.name.rfind("AMD ", 0) == 0, nvidia_gpu = gpu.name.rfind("NVIDIA ", 0) == 0;
    if ((amd_link && nvidia_gpu) || (nvidia_link && amd_gpu))
      throw Error("--interconnect " + o.interconnect + ": " + gpu.name + " has no such link (" +
                  (amd_gpu ? "AMD GPUs join by Infinity Fabric: xgmi, or pcie" : "xgmi is AMD's Infinity Fabric") + ")");
    gpu.interconnect = given;
  }
  if (!o.gpu_tflops.empty()) {
    const double tflops = ParseFiniteNumber(o.gpu_tflops, "--gpu-tflops");
    if (!(tflops > 0 && tflops < 1e6))
      throw Error("--gpu-tflops: '" + o.gpu_tflops + "' must be above 0 and below 1e+06 TFLOPS");
    gpu.bf16_dense_tflops = gpu.fp16_dense_tflops = tflops;
  }
  if (!o.gpu_bandwidth.empty()) gpu.mem_bandwidth_bytes_per_s = ParseBandwidth(o.gpu_bandwidth);
  return gpu;
}

}  // namespace

Deployment ResolveDeployment(const DeploymentOptions& o, const std::string& data_dir, ResolveCache* cache) {
  DeploymentConfig c = ConfigFromOptions(o);
  ResolveDraftModel(c, data_dir);
  ResolveCache local;
  ResolveCache& store = cache ? *cache : local;
  if (!store.gpus) {
    store.gpus = GpuCatalog::Load((std::filesystem::path(data_dir) / "gpus.csv").string());
    if (!o.gpu_file.empty()) store.gpus->Prepend(GpuCatalog::Load(o.gpu_file));
  }
  const GpuSpec gpu = ResolveGpu(o, c, *store.gpus);
  // --hf-overrides / --rope-scaling edit the config before anything is derived from it, as vLLM does.
  const nlohmann::json overrides = ConfigOverrides(o);
  const std::string key = overrides.empty() ? o.model : o.model + "\n" + overrides.dump();
  auto model = store.models.find(key);
  if (model == store.models.end())
    model = store.models.emplace(key, ResolveModel(o.model, data_dir, "--model", "--model ./config.json", overrides)).first;
  CheckSpeculativeAgainstTarget(c.speculative, model->second, c.tensor_parallel_size);
  return {model->second, gpu, c};
}

}  // namespace kvsim
