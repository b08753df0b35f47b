// The model / GPU / server options every kvsim command shares, declared once. Names follow vLLM's
// flags so users can paste their server command line (--model, --dtype, --quantization,
// --kv-cache-dtype, --tensor-parallel-size/-tp, --pipeline-parallel-size/-pp,
// --gpu-memory-utilization, --max-model-len, --max-num-seqs, --max-num-batched-tokens,
// --block-size, --kv-cache-memory, --enable-prefix-caching), plus kvsim's own --gpu,
// --gpu-memory-gib, --interconnect, --vllm-version and --engine.
#ifndef KVSIM_SIM_CLI_DEPLOYMENT_OPTIONS_H_
#define KVSIM_SIM_CLI_DEPLOYMENT_OPTIONS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "kvcache/capacity_planner.h"
#include "kvcache/gpu_catalog.h"
#include "kvcache/model_spec.h"

namespace kvsim {

inline constexpr const char* kDefaultModel = "meta-llama/Llama-3.1-8B-Instruct";
inline constexpr const char* kDefaultGpu = "a100-80gb";

// Raw option values as typed; Resolve() turns them into a model, a GPU and a DeploymentConfig.
struct DeploymentOptions {
  std::string model = kDefaultModel;
  std::string gpu = kDefaultGpu;
  std::string dtype = "auto";
  std::string quantization;
  std::string kv_cache_dtype = "auto";
  int tensor_parallel_size = 1;
  int pipeline_parallel_size = 1;
  std::string gpu_memory_utilization;  // empty: engine default
  std::string max_model_len;           // accepts 32768, 32k (x1000), 32K (x1024)
  std::string max_num_seqs;
  std::string max_num_batched_tokens;
  std::string block_size;
  std::string kv_cache_memory;         // bytes; accepts 8GiB, 8G (x2^30), 8GB (x10^9)
  std::string gpu_memory_gib;
  std::string interconnect = "auto";   // auto: the GPU table's (or guessed from the GPU's name)
  bool enable_prefix_caching = true;
  bool disable_hybrid_kv_cache_manager = false;
  std::string vllm_version = kDefaultVllmVersion;
  std::string engine = "vllm";
};

void AddDeploymentOptions(boost::program_options::options_description& desc, DeploymentOptions& opts);

struct Deployment {
  ModelSpec model;
  GpuSpec gpu;
  DeploymentConfig config;
};

// What resolving options reads from disk (model configs, the GPU table), kept for reuse when many
// deployments are resolved in one run (sweeps, comparisons). Not thread-safe.
struct ResolveCache {
  std::map<std::string, ModelSpec> models;
  std::optional<GpuCatalog> gpus;
};

// Throws kvsim::Error naming the option for any value that does not parse. With `cache`, model
// specs and the GPU table are read once.
Deployment ResolveDeployment(const DeploymentOptions& opts, const std::string& data_dir, ResolveCache* cache = nullptr);

// vLLM's -tp / -pp spellings are not single-letter options; rewrite them to the long forms.
std::vector<std::string> ExpandShortParallelFlags(const std::vector<std::string>& args);

// Parses "32768", "32k" (x1000), "32K" (x1024), "1m"/"1M". Throws kvsim::Error naming `option`.
int64_t ParseTokenCount(const std::string& text, const std::string& option);
// Parses a byte amount: plain bytes, or with suffix k/m/g (10^3..), K/M/G or KiB/MiB/GiB (2^10..),
// KB/MB/GB (10^3..). Throws kvsim::Error naming `option`.
double ParseByteAmount(const std::string& text, const std::string& option);

}  // namespace kvsim

#endif  // KVSIM_SIM_CLI_DEPLOYMENT_OPTIONS_H_
