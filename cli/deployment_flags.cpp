#include "cli/deployment_flags.h"

#include "kvcache/base/quantity_parse.h"
#include "kvcache/budget/serve_settings.h"
#include "cli/enum_option.h"
#include "cli/numeric_options.h"

namespace kvsim {
namespace po = boost::program_options;

void AddModelAndGpuOptions(po::options_description& desc, DeploymentOptions& o) {
  desc.add_options()
      ("model,m", po::value(&o.model)->default_value(o.model),
       "config.json path, model directory, or preset id (kvsim models)")
      ("gpu", po::value(&o.gpu)->default_value(o.gpu),
       "GPU: short id (h100, a100-40gb, l4) or the name nvidia-smi/torch print (kvsim gpus)")
      ("gpu-memory-gib", po::value(&o.gpu_memory_gib), "override the GPU's memory as CUDA reports it, GiB")
      ("gpu-file", po::value(&o.gpu_file), "CSV of more GPUs, same columns as data/gpus.csv (looked up first)");
}

void AddDeploymentOptions(po::options_description& desc, DeploymentOptions& o) {
  AddModelAndGpuOptions(desc, o);
  desc.add_options()
      ("gpu-tflops", po::value(&o.gpu_tflops), "override the GPU's dense 16-bit tensor peak, TFLOPS (10^12 FLOP/s)")
      ("gpu-bandwidth", po::value(&o.gpu_bandwidth), "override the GPU's memory bandwidth, GB/s (10^9 B/s; or e.g. 3.35TB/s)")
      ("interconnect", po::value(&o.interconnect)->default_value(o.interconnect),
       "auto | nvls | nvlink | pcie | xgmi: how TP GPUs connect (sizes NCCL buffers; auto: the GPU's)")
      ("dtype", po::value(&o.dtype)->default_value(o.dtype), "auto | float16 | bfloat16 | float32")
      ("quantization,q", po::value(&o.quantization),
       "awq | gptq | fp8 | bitsandbytes | mxfp4 | compressed-tensors | int8 | int4 | none "
       "(default: what the checkpoint's quantization_config declares)")
      ("kv-cache-dtype", po::value(&o.kv_cache_dtype)->default_value(o.kv_cache_dtype),
       "auto | fp16 | bf16 | fp8 | fp8_e4m3 | fp8_e5m2 | int8 | int4 (int8/int4 are what-ifs)")
      ("mamba-cache-dtype", po::value(&o.mamba_cache_dtype)->default_value(o.mamba_cache_dtype),
       "auto | float32 | float16 | bfloat16: linear-attention / SSM state pages (auto: the model dtype)")
      ("mamba-ssm-cache-dtype", po::value(&o.mamba_ssm_cache_dtype)->default_value(o.mamba_ssm_cache_dtype),
       "auto | float32 | float16 | bfloat16: their SSM (temporal) state alone (auto: as --mamba-cache-dtype)")
      ("tensor-parallel-size", po::value(&o.tensor_parallel_size)->default_value(1), "tensor-parallel GPUs (-tp)")
      ("pipeline-parallel-size", po::value(&o.pipeline_parallel_size)->default_value(1), "pipeline stages (-pp)")
      ("pp-layer-partition", po::value(&o.pp_layer_partition),
       "decoder layers per pipeline stage, e.g. 10,11,11 (vLLM's VLLM_PP_LAYER_PARTITION; default: equal shares, "
       "the remainder on the stages before the last)")
      ("gpu-memory-utilization", po::value(&o.gpu_memory_utilization),
       "fraction of GPU memory the engine may use (vLLM default 0.9; SGLang: mem_fraction_static)")
      ("max-model-len", po::value(&o.max_model_len),
       "context length (default: the model's); 32k = 32000, 32K = 32768; auto or -1: the largest that fits, as vLLM picks it")
      ("max-num-seqs", po::value(&o.max_num_seqs), "max running requests (default by GPU, as vLLM)")
      ("max-num-batched-tokens", po::value(&o.max_num_batched_tokens), "token budget per step (default by GPU, as vLLM)")
      ("block-size", po::value(&o.block_size), "tokens per KV block (vLLM 16, TRT-LLM 32, SGLang 1)")
      ("kv-cache-memory", po::value(&o.kv_cache_memory), "fixed KV cache size in bytes (e.g. 20GiB); skips profiling")
      ("enable-prefix-caching", po::bool_switch(&o.enable_prefix_caching)->default_value(true), "prefix caching on (default)")
      ("no-enable-prefix-caching", "prefix caching off")
      ("enable-chunked-prefill", "chunked prefill on (vLLM V1's default)")
      ("no-enable-chunked-prefill",
       "chunked prefill off: vLLM's token budget (and its profile run) grows to max(max-model-len, the default)")
      ("enforce-eager", po::bool_switch(&o.enforce_eager), "no CUDA graphs: every kernel launched from the CPU")
      ("hf-overrides", po::value(&o.hf_overrides),
       "JSON merged into the model config before it is read (vLLM's --hf-overrides), e.g. a rope_scaling for longer context")
      ("rope-scaling", po::value(&o.rope_scaling), "JSON: the config's rope_scaling (older vLLM's --rope-scaling)")
      ("allow-long-max-model-len", po::bool_switch(&o.allow_long_max_model_len),
       "a --max-model-len past the model's limit is planned, with a warning (vLLM: VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)")
      ("disable-hybrid-kv-cache-manager", po::bool_switch(&o.disable_hybrid_kv_cache_manager),
       "allocate full-length KV for sliding-window layers")
      ("vllm-version", po::value(&o.vllm_version)->default_value(o.vllm_version),
       "vLLM release whose budgeting to reproduce: a release such as 0.30, 0.19, 0.11 or 0.6.4, latest (the newest modelled), or v0 (the V0 engine); `kvsim releases` lists the rules by release")
      ("engine", po::value(&o.engine)->default_value(o.engine), Choices<Engine>().c_str());
  // The rest of vLLM's serve flags that change memory.
  desc.add_options()
      ("num-gpu-blocks-override", po::value(&o.num_gpu_blocks_override), "use this many KV blocks instead of the profiled number")
      ("cpu-offload-gb", po::value(&o.cpu_offload_gb), "GiB of each GPU's weights kept in CPU memory")
      ("data-parallel-size", po::value(&o.data_parallel_size)->default_value(1), "data-parallel replicas (-dp), each with its own KV cache")
      ("decode-context-parallel-size", po::value(&o.decode_context_parallel_size)->default_value(1),
       "decode context parallelism (-dcp): each request's KV cache spread over this many of the TP ranks, token by token")
      ("enable-expert-parallel", po::bool_switch(&o.enable_expert_parallel), "shard MoE experts over TP x DP ranks")
      ("all2all-backend", po::value(&o.all2all_backend),
       "how MoE layers move tokens at --data-parallel-size > 1, as vLLM: naive | allgather_reducescatter | pplx | "
       "deepep_high_throughput | deepep_low_latency | flashinfer_all2allv (default: the release's; allgather_reducescatter from 0.11)")
      ("disable-sliding-window", po::bool_switch(&o.disable_sliding_window), "sliding-window layers keep the full context")
      ("speculative-config", po::value(&o.speculative_config),
       "JSON, as vLLM: {\"method\": \"eagle\", \"model\": ID|PATH, \"num_speculative_tokens\": N}")
      ("enable-lora", po::bool_switch(&o.enable_lora), "LoRA adapters: stacked A/B buffers for --max-loras slots before the KV cache")
      ("max-loras", po::value(&o.max_loras), "LoRA slots on the GPU (adapters in one batch; vLLM default 1)")
      ("max-lora-rank", po::value(&o.max_lora_rank), "rank every slot is allocated at: 1, 8, 16, 32, 64, 128, 256, 320, 512 (default 16)")
      ("max-cpu-loras", po::value(&o.max_cpu_loras), "adapters kept in host memory (LRU; default --max-loras)")
      ("lora-dtype", po::value(&o.lora_dtype)->default_value(o.lora_dtype), "auto | float16 | bfloat16: the adapter buffers (auto: model dtype)")
      ("fully-sharded-loras", po::bool_switch(&o.fully_sharded_loras), "shard the LoRA A of column-parallel and B of row-parallel layers over TP too")
      ("lora-extra-vocab-size", po::value(&o.lora_extra_vocab_size), "256 | 512: tokens an adapter may add (vLLM 0.11; default 256)")
      ("limit-mm-per-prompt", po::value(&o.limit_mm_per_prompt), "JSON, as vLLM: {\"image\": 1, \"video\": 0}")
      ("mm-processor-kwargs", po::value(&o.mm_processor_kwargs), "JSON, as vLLM: {\"max_pixels\": N}")
      ("skip-mm-profiling", po::bool_switch(&o.skip_mm_profiling), "no encoder profile run (multimodal models)")
      ("compilation-config", po::value(&o.compilation_config),
       "JSON, as vLLM (-cc): cudagraph_mode, cudagraph_capture_sizes, max_cudagraph_capture_size; or a level 0-3 (0: no graphs)")
      ("optimization-level", po::value(&o.optimization_level),
       "0-3, as vLLM 0.12 on (-O): 0 no compilation and no CUDA graphs, 1 piecewise graphs, 2 and 3 the default "
       "(full and piecewise); a cudagraph_mode given in --compilation-config wins")
      ("cudagraph-capture-sizes", po::value(&o.cudagraph_capture_sizes), "batch sizes vLLM captures graphs for, e.g. 1,2,4,8")
      ("max-cudagraph-capture-size", po::value(&o.max_cudagraph_capture_size), "largest captured batch (vLLM: min(2 x max-num-seqs, 512))")
      ("cuda-graph-estimate", po::value(&o.cuda_graph_estimate)->default_value(o.cuda_graph_estimate),
       "on | off | auto: vLLM's start-up estimate of CUDA-graph memory taken out of the KV budget "
       "(VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS; auto: on from vLLM 0.21)")
      ("model-runner", po::value(&o.model_runner)->default_value(o.model_runner),
       "auto | v1 | v2: the GPU model runner whose profile run sizes the KV budget (VLLM_USE_V2_MODEL_RUNNER=0 or 1; "
       "auto: the release's choice, V2 for every model from vLLM 0.29)")
      ("cuda-graph-memory", po::value(&o.cuda_graph_memory),
       "CUDA-graph memory per GPU when a start-up log gave it (e.g. 0.91GiB), instead of kvsim's estimate");
}

std::vector<std::string> ExpandShortParallelFlags(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const auto& a : args) {
    if (a == "-tp") out.push_back("--tensor-parallel-size");
    else if (a == "-pp") out.push_back("--pipeline-parallel-size");
    else if (a == "-dp") out.push_back("--data-parallel-size");
    else if (a == "-dcp") out.push_back("--decode-context-parallel-size");
    else if (a.rfind("-tp=", 0) == 0) out.push_back("--tensor-parallel-size=" + a.substr(4));
    else if (a.rfind("-pp=", 0) == 0) out.push_back("--pipeline-parallel-size=" + a.substr(4));
    else out.push_back(a);
  }
  return out;
}

void ApplyDeploymentSwitches(const po::variables_map& vm, DeploymentOptions& options) {
  if (vm.count("no-enable-prefix-caching")) options.enable_prefix_caching = false;
  if (vm.count("no-enable-chunked-prefill")) options.enable_chunked_prefill = false;
  // These numbers arrive as text (32k, 8GiB): parse them here too, so the one range check applies.
  for (const char* name : {"max-model-len", "max-num-seqs", "max-num-batched-tokens", "block-size"})
    if (vm.count(name) && !(std::string(name) == "max-model-len" && IsAutoMaxModelLen(vm[name].as<std::string>())))
      CheckOptionValue(name, static_cast<double>(ParseTokenCount(vm[name].as<std::string>(), std::string("--") + name)));
  for (const char* name : {"gpu-memory-utilization", "gpu-memory-gib", "gpu-tflops"})
    if (vm.count(name)) CheckOptionValue(name, ParseFiniteNumber(vm[name].as<std::string>(), std::string("--") + name));
  if (vm.count("kv-cache-memory"))
    CheckOptionValue("kv-cache-memory", ParseByteAmount(vm["kv-cache-memory"].as<std::string>(), "--kv-cache-memory"));
}

}  // namespace kvsim
