#include "sim/cli/deployment_options.h"

#include <cmath>
#include <filesystem>

#include "kvcache/error.h"
#include "kvcache/model_catalog.h"

namespace kvsim {
namespace po = boost::program_options;
namespace {

double ParseNumberPrefix(const std::string& text, const std::string& option, size_t* used) {
  try {
    const double v = std::stod(text, used);
    if (std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw Error(option + ": '" + text + "' is not a number");
}

std::optional<int64_t> OptionalCount(const std::string& text, const std::string& option) {
  if (text.empty()) return std::nullopt;
  return ParseTokenCount(text, option);
}

}  // namespace

int64_t ParseTokenCount(const std::string& text, const std::string& option) {
  size_t used = 0;
  const double v = ParseNumberPrefix(text, option, &used);
  const std::string suffix = text.substr(used);
  double scale = 1;
  if (suffix == "k") scale = 1e3;
  else if (suffix == "K") scale = 1024;
  else if (suffix == "m") scale = 1e6;
  else if (suffix == "M") scale = 1024.0 * 1024.0;
  else if (!suffix.empty()) throw Error(option + ": '" + text + "' has an unknown suffix (use k=1000 or K=1024)");
  const double value = v * scale;
  if (value != std::floor(value) || value < -9e15 || value > 9e15)
    throw Error(option + ": '" + text + "' is not a whole number");
  return static_cast<int64_t>(value);
}

double ParseByteAmount(const std::string& text, const std::string& option) {
  size_t used = 0;
  const double v = ParseNumberPrefix(text, option, &used);
  const std::string suffix = text.substr(used);
  double scale = 1;
  if (suffix.empty() || suffix == "B") scale = 1;
  else if (suffix == "k" || suffix == "KB" || suffix == "kB") scale = 1e3;
  else if (suffix == "m" || suffix == "MB") scale = 1e6;
  else if (suffix == "g" || suffix == "GB") scale = 1e9;
  else if (suffix == "K" || suffix == "KiB") scale = 1024.0;
  else if (suffix == "M" || suffix == "MiB") scale = 1024.0 * 1024.0;
  else if (suffix == "G" || suffix == "GiB") scale = 1024.0 * 1024.0 * 1024.0;
  else throw Error(option + ": '" + text + "' has an unknown unit (bytes, GiB, GB, G, g, MiB, ...)");
  if (v <= 0) throw Error(option + ": '" + text + "' must be positive");
  return v * scale;
}

void AddDeploymentOptions(po::options_description& desc, DeploymentOptions& o) {
  desc.add_options()
      ("model,m", po::value(&o.model)->default_value(o.model),
       "config.json path, model directory, or preset id (kvsim models)")
      ("gpu", po::value(&o.gpu)->default_value(o.gpu),
       "GPU: short id (h100, a100-40gb, l4) or the name nvidia-smi/torch print (kvsim gpus)")
      ("gpu-memory-gib", po::value(&o.gpu_memory_gib), "override the GPU's memory as CUDA reports it, GiB")
      ("interconnect", po::value(&o.interconnect)->default_value(o.interconnect),
       "auto | nvls | nvlink | pcie | xgmi: how TP GPUs connect (sizes NCCL buffers; auto: the GPU's)")
      ("dtype", po::value(&o.dtype)->default_value(o.dtype), "auto | float16 | bfloat16 | float32")
      ("quantization,q", po::value(&o.quantization),
       "awq | gptq | fp8 | bitsandbytes | mxfp4 | compressed-tensors | int8 | int4 | none "
       "(default: what the checkpoint's quantization_config declares)")
      ("kv-cache-dtype", po::value(&o.kv_cache_dtype)->default_value(o.kv_cache_dtype),
       "auto | fp16 | bf16 | fp8 | fp8_e4m3 | fp8_e5m2 | int8 | int4 (int8/int4 are what-ifs)")
      ("tensor-parallel-size", po::value(&o.tensor_parallel_size)->default_value(1), "tensor-parallel GPUs (-tp)")
      ("pipeline-parallel-size", po::value(&o.pipeline_parallel_size)->default_value(1), "pipeline stages (-pp)")
      ("gpu-memory-utilization", po::value(&o.gpu_memory_utilization),
       "fraction of GPU memory the engine may use (vLLM default 0.9; SGLang: mem_fraction_static)")
      ("max-model-len", po::value(&o.max_model_len), "context length (default: the model's); 32k = 32000, 32K = 32768")
      ("max-num-seqs", po::value(&o.max_num_seqs), "max running requests (default by GPU, as vLLM)")
      ("max-num-batched-tokens", po::value(&o.max_num_batched_tokens), "token budget per step (default by GPU, as vLLM)")
      ("block-size", po::value(&o.block_size), "tokens per KV block (vLLM 16, TRT-LLM 32, SGLang 1)")
      ("kv-cache-memory", po::value(&o.kv_cache_memory), "fixed KV cache size in bytes (e.g. 20GiB); skips profiling")
      ("enable-prefix-caching", po::bool_switch(&o.enable_prefix_caching)->default_value(true), "prefix caching on (default)")
      ("no-enable-prefix-caching", "prefix caching off")
      ("disable-hybrid-kv-cache-manager", po::bool_switch(&o.disable_hybrid_kv_cache_manager),
       "allocate full-length KV for sliding-window layers")
      ("vllm-version", po::value(&o.vllm_version)->default_value(o.vllm_version),
       "vLLM release whose budgeting to reproduce: 0.19, 0.11, 0.6.4, or v0 (V0 engine)")
      ("engine", po::value(&o.engine)->default_value(o.engine), "vllm | sglang | trtllm");
}

std::vector<std::string> ExpandShortParallelFlags(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const auto& a : args) {
    if (a == "-tp") out.push_back("--tensor-parallel-size");
    else if (a == "-pp") out.push_back("--pipeline-parallel-size");
    else if (a.rfind("-tp=", 0) == 0) out.push_back("--tensor-parallel-size=" + a.substr(4));
    else if (a.rfind("-pp=", 0) == 0) out.push_back("--pipeline-parallel-size=" + a.substr(4));
    else out.push_back(a);
  }
  return out;
}

Deployment ResolveDeployment(const DeploymentOptions& o, const std::string& data_dir, ResolveCache* cache) {
  DeploymentConfig c;
  c.dtype = o.dtype;
  c.quantization = o.quantization;
  c.kv_cache_dtype = o.kv_cache_dtype;
  c.tensor_parallel_size = o.tensor_parallel_size;
  c.pipeline_parallel_size = o.pipeline_parallel_size;
  if (!o.gpu_memory_utilization.empty()) {
    size_t used = 0;
    c.gpu_memory_utilization = ParseNumberPrefix(o.gpu_memory_utilization, "--gpu-memory-utilization", &used);
    if (used != o.gpu_memory_utilization.size())
      throw Error("--gpu-memory-utilization: '" + o.gpu_memory_utilization + "' is not a number");
  }
  c.max_model_len = OptionalCount(o.max_model_len, "--max-model-len");
  c.max_num_seqs = OptionalCount(o.max_num_seqs, "--max-num-seqs");
  c.max_num_batched_tokens = OptionalCount(o.max_num_batched_tokens, "--max-num-batched-tokens");
  c.block_size = OptionalCount(o.block_size, "--block-size");
  if (!o.kv_cache_memory.empty()) c.kv_cache_memory_bytes = ParseByteAmount(o.kv_cache_memory, "--kv-cache-memory");
  if (!o.gpu_memory_gib.empty()) {
    size_t used = 0;
    c.gpu_memory_gib = ParseNumberPrefix(o.gpu_memory_gib, "--gpu-memory-gib", &used);
  }
  c.enable_prefix_caching = o.enable_prefix_caching;
  c.hybrid_kv_cache_manager = !o.disable_hybrid_kv_cache_manager;
  c.vllm_version = o.vllm_version;
  ParseVllmVersion(o.vllm_version);  // validate early, with the option's name
  c.engine = ParseEngine(o.engine);

  ResolveCache local;
  ResolveCache& store = cache ? *cache : local;
  if (!store.gpus) store.gpus = GpuCatalog::Load((std::filesystem::path(data_dir) / "gpus.csv").string());
  const GpuCatalog& catalog = *store.gpus;
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
  if (o.interconnect != "auto") gpu.interconnect = ParseInterconnect(o.interconnect, "--interconnect");
  auto model = store.models.find(o.model);
  if (model == store.models.end()) model = store.models.emplace(o.model, ResolveModel(o.model, data_dir)).first;
  return {model->second, gpu, c};
}

}  // namespace kvsim
