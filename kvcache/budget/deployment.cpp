#include "kvcache/budget/deployment.h"

#include <filesystem>

#include "kvcache/base/error.h"
#include "kvcache/base/quantity_parse.h"
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
  c.tensor_parallel_size = o.tensor_parallel_size;
  c.pipeline_parallel_size = o.pipeline_parallel_size;
  c.gpu_memory_utilization = OptionalNumber(o.gpu_memory_utilization, "--gpu-memory-utilization");
  c.max_model_len = OptionalCount(o.max_model_len, "--max-model-len");
  c.max_num_seqs = OptionalCount(o.max_num_seqs, "--max-num-seqs");
  c.max_num_batched_tokens = OptionalCount(o.max_num_batched_tokens, "--max-num-batched-tokens");
  c.block_size = OptionalCount(o.block_size, "--block-size");
  if (!o.kv_cache_memory.empty()) c.kv_cache_memory_bytes = ParseByteAmount(o.kv_cache_memory, "--kv-cache-memory");
  c.gpu_memory_gib = OptionalNumber(o.gpu_memory_gib, "--gpu-memory-gib");
  c.enable_prefix_caching = o.enable_prefix_caching;
  c.kv_grouping = o.disable_hybrid_kv_cache_manager ? KvGrouping::kSingleGroup : KvGrouping::kHybrid;
  c.vllm_version = o.vllm_version;
  ParseVllmVersion(o.vllm_version);  // validate early, with the option's name
  c.engine = ParseEnum<Engine>(o.engine, "--engine");
  return c;
}

GpuSpec ResolveGpu(const DeploymentOptions& o, const DeploymentConfig& c, const GpuCatalog& catalog) {
  GpuSpec gpu;
  if (const GpuSpec* found = catalog.TryFind(o.gpu)) {
    gpu = *found;
  } else if (c.gpu_memory_gib) {
    gpu.id = o.gpu;
    gpu.name = o.gpu + " (custom)";
    gpu.interconnect = GuessInterconnect(o.gpu);
  } else {
    gpu = catalog.Find(o.gpu);  // throws with close matches
  }
  if (o.interconnect != "auto") gpu.interconnect = ParseEnum<Interconnect>(o.interconnect, "--interconnect");
  return gpu;
}

}  // namespace

Deployment ResolveDeployment(const DeploymentOptions& o, const std::string& data_dir, ResolveCache* cache) {
  const DeploymentConfig c = ConfigFromOptions(o);
  ResolveCache local;
  ResolveCache& store = cache ? *cache : local;
  if (!store.gpus) store.gpus = GpuCatalog::Load((std::filesystem::path(data_dir) / "gpus.csv").string());
  const GpuSpec gpu = ResolveGpu(o, c, *store.gpus);
  auto model = store.models.find(o.model);
  if (model == store.models.end()) model = store.models.emplace(o.model, ResolveModel(o.model, data_dir)).first;
  return {model->second, gpu, c};
}

}  // namespace kvsim
