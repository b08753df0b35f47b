// A deployment's settings: the text a command line or a log row gives (DeploymentOptions) and the
// typed values it resolves to (DeploymentConfig, with the model and GPU in Deployment).
#ifndef KVSIM_KVCACHE_BUDGET_DEPLOYMENT_SETTINGS_H_
#define KVSIM_KVCACHE_BUDGET_DEPLOYMENT_SETTINGS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "kvcache/budget/all2all_backend.h"
#include "kvcache/budget/cuda_graph_memory.h"
#include "kvcache/budget/kv_cache_layout.h"
#include "kvcache/budget/model_runner.h"
#include "kvcache/budget/serving_engine.h"
#include "kvcache/model/gpu_catalog.h"
#include "kvcache/model/model_spec.h"

namespace kvsim {

inline constexpr const char* kDefaultModel = "meta-llama/Llama-3.1-8B-Instruct";
inline constexpr const char* kDefaultGpu = "a100-80gb";

// --speculative-config: {"method": ..., "model": ..., "num_speculative_tokens": N}. A draft model
// (method "draft_model", "eagle", "eagle3", "medusa", or a "model" given) brings its weights and,
// for attention drafts, its own KV layers into the same pool; "ngram" needs neither; "mtp"/
// "deepseek_mtp" reuse the target's next-token layers (num_nextn_predict_layers).
struct SpeculativeSettings {
  std::string method;            // empty: no speculative decoding
  std::string draft_model;       // preset id or config.json path; empty for ngram / mtp
  int64_t num_speculative_tokens = 0;
  int draft_tensor_parallel_size = 0;  // 1 or the target's TP; 0: the target's (vLLM's default)
  std::string quantization;      // the drafter's weights, as --quantization spells it; empty: its checkpoint's
  bool enforce_eager = false;    // "enforce_eager": the drafter's passes without CUDA graphs
  std::shared_ptr<const ModelSpec> draft;  // resolved draft config, when there is one
};

// --enable-lora and the LoRAConfig flags (vllm/config/lora.py, v0.11). Only `enabled` turns the
// rest on; vLLM's defaults otherwise.
struct LoraSettings {
  bool enabled = false;
  int64_t max_loras = 1;              // adapter slots on the GPU (stacked buffers)
  int64_t max_lora_rank = 16;         // every slot is allocated at this rank
  std::optional<int64_t> max_cpu_loras;  // CPU LRU cache of adapters; default max_loras
  std::string lora_dtype = "auto";    // auto: the model dtype
  bool fully_sharded = false;         // --fully-sharded-loras: A of column-, B of row-parallel layers split too
  int64_t extra_vocab_size = 256;     // --lora-extra-vocab-size (v0.11; removed in later releases)
  int64_t cpu_loras() const { return max_cpu_loras.value_or(max_loras); }
};

// What vLLM's multimodal profile run may feed the encoder.
struct MultimodalSettings {
  std::map<std::string, int64_t> limit_per_prompt;  // --limit-mm-per-prompt {"image": 2, "video": 0}
  std::optional<int64_t> max_pixels;                // --mm-processor-kwargs {"max_pixels": ...}
  bool skip_profiling = false;                      // --skip-mm-profiling
};

// Server settings, typed. Unset optionals take the engine's defaults.
struct DeploymentConfig {
  std::string dtype = "auto";            // --dtype
  std::string quantization;              // --quantization; empty: what the checkpoint declares
  std::string kv_cache_dtype = "auto";   // --kv-cache-dtype
  std::string mamba_cache_dtype = "auto";      // --mamba-cache-dtype: linear-attention / SSM states
  std::string mamba_ssm_cache_dtype = "auto";  // --mamba-ssm-cache-dtype: the SSM / temporal state alone
  int tensor_parallel_size = 1;          // --tensor-parallel-size / -tp
  int pipeline_parallel_size = 1;        // --pipeline-parallel-size / -pp
  std::vector<int64_t> pp_layer_partition;  // VLLM_PP_LAYER_PARTITION: layers per stage; empty: vLLM's split
  std::optional<double> gpu_memory_utilization;  // vLLM 0.9; SGLang: mem_fraction_static
  std::optional<int64_t> max_model_len;
  std::optional<int64_t> max_num_seqs;
  std::optional<int64_t> max_num_batched_tokens;
  std::optional<int64_t> block_size;
  std::optional<double> kv_cache_memory_bytes;   // --kv-cache-memory
  bool enable_prefix_caching = true;
  bool enable_chunked_prefill = true;            // --no-enable-chunked-prefill: whole prompts, a larger token budget
  bool enforce_eager = false;                    // --enforce-eager: no CUDA graphs
  bool allow_long_max_model_len = false;         // VLLM_ALLOW_LONG_MAX_MODEL_LEN=1: past the model's limit, with a warning
  KvGrouping kv_grouping = KvGrouping::kHybrid;
  std::optional<double> gpu_memory_gib;          // overrides the GPU preset's CUDA total
  std::string vllm_version = kDefaultVllmVersion;
  Engine engine = Engine::kVllm;
  // The rest of vLLM's serve flags that change memory.
  bool max_model_len_auto = false;               // --max-model-len auto / -1: the largest that fits
  std::optional<int64_t> num_gpu_blocks_override;
  double cpu_offload_bytes = 0;                  // --cpu-offload-gb, per GPU
  int data_parallel_size = 1;                    // -dp: replicas, each with its own KV cache
  int decode_context_parallel_size = 1;          // -dcp: each request's KV spread over that many TP ranks
  bool enable_expert_parallel = false;           // whole experts per rank (without: a slice of each); both over TP x DP
  All2AllBackend all2all_backend = All2AllBackend::kAllgatherReducescatter;  // --all2all-backend, resolved per release
  bool disable_sliding_window = false;           // every layer keeps the full context
  SpeculativeSettings speculative;               // --speculative-config
  LoraSettings lora;                             // --enable-lora, --max-loras, ...
  MultimodalSettings multimodal;                 // --limit-mm-per-prompt, --mm-processor-kwargs, --skip-mm-profiling
  CudaGraphSettings cuda_graphs;                 // --compilation-config, capture sizes, the profiler's estimate
  std::optional<ModelRunner> model_runner;       // --model-runner (VLLM_USE_V2_MODEL_RUNNER); unset: the release's choice
};

struct Deployment {
  ModelSpec model;
  GpuSpec gpu;
  DeploymentConfig config;
};

// The settings as text, as a command line or a log row gives them. Empty strings: not given.
struct DeploymentOptions {
  std::string model = kDefaultModel;
  std::string gpu = kDefaultGpu;
  std::string dtype = "auto";
  std::string quantization;
  std::string kv_cache_dtype = "auto";
  std::string mamba_cache_dtype = "auto";
  std::string mamba_ssm_cache_dtype = "auto";
  int tensor_parallel_size = 1;
  int pipeline_parallel_size = 1;
  std::string pp_layer_partition;      // layers per stage as VLLM_PP_LAYER_PARTITION gives them (10,11,11)
  std::string gpu_memory_utilization;  // empty: engine default
  std::string max_model_len;           // accepts 32768, 32k (x1000), 32K (x1024)
  std::string max_num_seqs;
  std::string max_num_batched_tokens;
  std::string block_size;
  std::string kv_cache_memory;         // bytes; accepts 8GiB, 8G (x2^30), 8GB (x10^9)
  std::string gpu_memory_gib;
  std::string gpu_file;                // more GPU rows (data/gpus.csv's columns), looked up first
  std::string gpu_tflops;              // overrides the 16-bit dense tensor peak, TFLOPS (10^12 FLOP/s)
  std::string gpu_bandwidth;           // overrides the memory bandwidth: GB/s (10^9 B/s), or with a TB/s suffix
  std::string interconnect = "auto";   // auto: the GPU table's (or guessed from the GPU's name)
  bool enable_prefix_caching = true;
  bool enable_chunked_prefill = true;
  bool enforce_eager = false;
  bool allow_long_max_model_len = false;
  bool disable_hybrid_kv_cache_manager = false;
  std::string vllm_version = kDefaultVllmVersion;
  std::string engine = "vllm";
  // The rest of vLLM's serve flags that change memory.
  std::string num_gpu_blocks_override;
  std::string cpu_offload_gb;
  int data_parallel_size = 1;
  int decode_context_parallel_size = 1;
  bool enable_expert_parallel = false;
  std::string all2all_backend;      // empty: the release's default
  bool disable_sliding_window = false;
  std::string speculative_config;   // JSON
  bool enable_lora = false;
  std::string max_loras;            // empty: vLLM's default
  std::string max_lora_rank;
  std::string max_cpu_loras;
  std::string lora_dtype = "auto";
  bool fully_sharded_loras = false;
  std::string lora_extra_vocab_size;
  std::string limit_mm_per_prompt;  // JSON
  std::string mm_processor_kwargs;  // JSON
  std::string hf_overrides;         // JSON merged into the model config (vLLM's --hf-overrides)
  std::string rope_scaling;         // JSON: the config's rope_scaling (older vLLM's --rope-scaling)
  bool skip_mm_profiling = false;
  std::string compilation_config;          // JSON (cudagraph_mode, cudagraph_capture_sizes, ...) or a level 0-3
  std::string optimization_level;          // vLLM >= 0.12 -O0..-O3: 0 no graphs, 1 piecewise graphs, 2-3 the default
  std::string cudagraph_capture_sizes;     // 1,2,4,8
  std::string max_cudagraph_capture_size;
  std::string cuda_graph_estimate = "auto";  // on | off | auto (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS)
  std::string model_runner = "auto";         // auto | v1 | v2 (VLLM_USE_V2_MODEL_RUNNER)
  std::string cuda_graph_memory;           // per GPU, e.g. 0.9GiB: the figure a start-up log gave
};

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_DEPLOYMENT_SETTINGS_H_
