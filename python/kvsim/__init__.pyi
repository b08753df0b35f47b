"""Type stubs for kvsim: written by python/make_stubs.py from the commands' --help (do not edit)."""
from typing import Any, Callable, Iterator, Mapping, Sequence, Union
import os

_Value = Union[str, int, float, Mapping[str, Any], Sequence[Any]]
Progress = Callable[[float, float], object]  # (fraction of the trace in [0, 1] or < 0, simulated s)

class KvsimWarning(UserWarning): ...

class Record:
    def __getattr__(self, name: str) -> Any: ...
    def __getitem__(self, key: Any) -> Any: ...
    def __contains__(self, key: str) -> bool: ...
    def to_dict(self) -> Any: ...

class Result(Record): ...
class CapacityResult(Result): ...
class StepResult(Result): ...
class TrainResult(Result): ...
class ReplayResult(Result):
    request_rows: list[dict[str, Any]] | None
    timeseries_rows: list[dict[str, Any]] | None
    def to_pandas(self, table: str = 'requests') -> Any: ...
class SweepResult(Result):
    def to_pandas(self) -> Any: ...
class PlanResult(Result):
    def to_pandas(self) -> Any: ...
class ListResult(Result):
    def __iter__(self) -> Iterator[Any]: ...
    def __len__(self) -> int: ...
    def to_pandas(self) -> Any: ...
class CompareResult(ListResult): ...
class CatalogResult(ListResult):
    def ids(self) -> list[str]: ...

def models() -> CatalogResult:
    """kvsim models: the model presets."""
    ...

def gpus() -> CatalogResult:
    """kvsim gpus: the GPU presets --gpu accepts."""
    ...

def run_cli(*args: str, progress: Progress | None = None) -> tuple[int, str]:
    """Any kvsim command line, in-process: (exit code, stdout)."""
    ...

def capacity(
    *,
    trace: _Value | None = None,
    trace_format: str = 'auto',
    model: str = 'meta-llama/Llama-3.1-8B-Instruct',
    gpu: str = 'a100-80gb',
    gpu_memory_gib: _Value | None = None,
    gpu_file: _Value | None = None,
    gpu_tflops: _Value | None = None,
    gpu_bandwidth: _Value | None = None,
    interconnect: str = 'auto',
    dtype: str = 'auto',
    quantization: _Value | None = None,
    kv_cache_dtype: str = 'auto',
    mamba_cache_dtype: str = 'auto',
    mamba_ssm_cache_dtype: str = 'auto',
    tensor_parallel_size: int = 1,
    pipeline_parallel_size: int = 1,
    pp_layer_partition: _Value | None = None,
    gpu_memory_utilization: _Value | None = None,
    max_model_len: _Value | None = None,
    max_num_seqs: _Value | None = None,
    max_num_batched_tokens: _Value | None = None,
    block_size: _Value | None = None,
    kv_cache_memory: _Value | None = None,
    enable_prefix_caching: bool = True,
    enable_chunked_prefill: bool = False,
    enforce_eager: bool = False,
    hf_overrides: _Value | None = None,
    rope_scaling: _Value | None = None,
    allow_long_max_model_len: bool = False,
    disable_hybrid_kv_cache_manager: bool = False,
    vllm_version: str = '0.30',
    engine: str = 'vllm',
    num_gpu_blocks_override: _Value | None = None,
    cpu_offload_gb: _Value | None = None,
    data_parallel_size: int = 1,
    decode_context_parallel_size: int = 1,
    enable_expert_parallel: bool = False,
    all2all_backend: _Value | None = None,
    disable_sliding_window: bool = False,
    speculative_config: _Value | None = None,
    enable_lora: bool = False,
    max_loras: _Value | None = None,
    max_lora_rank: _Value | None = None,
    max_cpu_loras: _Value | None = None,
    lora_dtype: str = 'auto',
    fully_sharded_loras: bool = False,
    lora_extra_vocab_size: _Value | None = None,
    limit_mm_per_prompt: _Value | None = None,
    mm_processor_kwargs: _Value | None = None,
    skip_mm_profiling: bool = False,
    compilation_config: _Value | None = None,
    optimization_level: _Value | None = None,
    cudagraph_capture_sizes: _Value | None = None,
    max_cudagraph_capture_size: _Value | None = None,
    cuda_graph_estimate: str = 'auto',
    model_runner: str = 'auto',
    cuda_graph_memory: _Value | None = None,
    kv_offload: _Value | None = None,
    kv_offload_chunk_tokens: _Value | None = None,
    kv_host_link: _Value | None = None,
    kv_disk: _Value | None = None,
    kv_offloading_size: _Value | None = None,
    kv_offloading_backend: _Value | None = None,
    kv_transfer_config: _Value | None = None
) -> CapacityResult:
    """kvsim capacity: memory budget, KV cache and max concurrency.

    Args (the flags of `kvsim capacity --help`):
        trace: a request trace (any format replay reads): also the max concurrency at its mean
            request length (prompt + output, capped at max-model-len; longer prompts left out)
        trace_format: auto | azure | burstgpt | vidur | mooncake | csv | lengths
        model: config.json path, model directory, or preset id (kvsim models)
        gpu: GPU: short id (h100, a100-40gb, l4) or the name nvidia-smi/torch print (kvsim gpus)
        gpu_memory_gib: override the GPU's memory as CUDA reports it, GiB
        gpu_file: CSV of more GPUs, same columns as data/gpus.csv (looked up first)
        gpu_tflops: override the GPU's dense 16-bit tensor peak, TFLOPS (10^12 FLOP/s)
        gpu_bandwidth: override the GPU's memory bandwidth, GB/s (10^9 B/s; or e.g. 3.35TB/s)
        interconnect: auto | nvls | nvlink | pcie | xgmi: how TP GPUs connect (sizes NCCL buffers;
            auto: the GPU's)
        dtype: auto | float16 | bfloat16 | float32
        quantization: awq | gptq | fp8 | bitsandbytes | mxfp4 | compressed-tensors | int8 | int4 |
            none (default: what the checkpoint's quantization_config declares)
        kv_cache_dtype: auto | fp16 | bf16 | fp8 | fp8_e4m3 | fp8_e5m2 | int8 | int4 (int8/int4 are
            what-ifs)
        mamba_cache_dtype: auto | float32 | float16 | bfloat16: linear-attention / SSM state pages
            (auto: the model dtype)
        mamba_ssm_cache_dtype: auto | float32 | float16 | bfloat16: their SSM (temporal) state alone
            (auto: as --mamba-cache-dtype)
        tensor_parallel_size: tensor-parallel GPUs (-tp)
        pipeline_parallel_size: pipeline stages (-pp)
        pp_layer_partition: decoder layers per pipeline stage, e.g. 10,11,11 (vLLM's
            VLLM_PP_LAYER_PARTITION; default: equal shares, the remainder on the stages before the
            last)
        gpu_memory_utilization: fraction of GPU memory the engine may use (vLLM default 0.9; SGLang:
            mem_fraction_static)
        max_model_len: context length (default: the model's); 32k = 32000, 32K = 32768; auto or -1:
            the largest that fits, as vLLM picks it
        max_num_seqs: max running requests (default by GPU, as vLLM)
        max_num_batched_tokens: token budget per step (default by GPU, as vLLM)
        block_size: tokens per KV block (vLLM 16, TRT-LLM 32, SGLang 1)
        kv_cache_memory: fixed KV cache size in bytes (e.g. 20GiB); skips profiling
        enable_prefix_caching: prefix caching on (default)
        enable_chunked_prefill: chunked prefill on (vLLM V1's default)
        enforce_eager: no CUDA graphs: every kernel launched from the CPU
        hf_overrides: JSON merged into the model config before it is read (vLLM's --hf-overrides),
            e.g. a rope_scaling for longer context
        rope_scaling: JSON: the config's rope_scaling (older vLLM's --rope-scaling)
        allow_long_max_model_len: a --max-model-len past the model's limit is planned, with a
            warning (vLLM: VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)
        disable_hybrid_kv_cache_manager: allocate full-length KV for sliding-window layers
        vllm_version: vLLM release whose budgeting to reproduce: a release such as 0.30, 0.19, 0.11
            or 0.6.4, latest (the newest modelled), or v0 (the V0 engine); `kvsim releases` lists
            the rules by release
        engine: vllm | sglang | trtllm
        num_gpu_blocks_override: use this many KV blocks instead of the profiled number
        cpu_offload_gb: GiB of each GPU's weights kept in CPU memory
        data_parallel_size: data-parallel replicas (-dp), each with its own KV cache
        decode_context_parallel_size: decode context parallelism (-dcp): each request's KV cache
            spread over this many of the TP ranks, token by token
        enable_expert_parallel: shard MoE experts over TP x DP ranks
        all2all_backend: how MoE layers move tokens at --data-parallel-size > 1, as vLLM: naive |
            allgather_reducescatter | pplx | deepep_high_throughput | deepep_low_latency |
            flashinfer_all2allv (default: the release's; allgather_reducescatter from 0.11)
        disable_sliding_window: sliding-window layers keep the full context
        speculative_config: JSON, as vLLM: {"method": "eagle", "model": ID|PATH,
            "num_speculative_tokens": N}
        enable_lora: LoRA adapters: stacked A/B buffers for --max-loras slots before the KV cache
        max_loras: LoRA slots on the GPU (adapters in one batch; vLLM default 1)
        max_lora_rank: rank every slot is allocated at: 1, 8, 16, 32, 64, 128, 256, 320, 512
            (default 16)
        max_cpu_loras: adapters kept in host memory (LRU; default --max-loras)
        lora_dtype: auto | float16 | bfloat16: the adapter buffers (auto: model dtype)
        fully_sharded_loras: shard the LoRA A of column-parallel and B of row-parallel layers over
            TP too
        lora_extra_vocab_size: 256 | 512: tokens an adapter may add (vLLM 0.11; default 256)
        limit_mm_per_prompt: JSON, as vLLM: {"image": 1, "video": 0}
        mm_processor_kwargs: JSON, as vLLM: {"max_pixels": N}
        skip_mm_profiling: no encoder profile run (multimodal models)
        compilation_config: JSON, as vLLM (-cc): cudagraph_mode, cudagraph_capture_sizes,
            max_cudagraph_capture_size; or a level 0-3 (0: no graphs)
        optimization_level: 0-3, as vLLM 0.12 on (-O): 0 no compilation and no CUDA graphs, 1
            piecewise graphs, 2 and 3 the default (full and piecewise); a cudagraph_mode given in
            --compilation-config wins
        cudagraph_capture_sizes: batch sizes vLLM captures graphs for, e.g. 1,2,4,8
        max_cudagraph_capture_size: largest captured batch (vLLM: min(2 x max-num-seqs, 512))
        cuda_graph_estimate: on | off | auto: vLLM's start-up estimate of CUDA-graph memory taken
            out of the KV budget (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS; auto: on from vLLM 0.21)
        model_runner: auto | v1 | v2: the GPU model runner whose profile run sizes the KV budget
            (VLLM_USE_V2_MODEL_RUNNER=0 or 1; auto: the release's choice, V2 for every model from
            vLLM 0.29)
        cuda_graph_memory: CUDA-graph memory per GPU when a start-up log gave it (e.g. 0.91GiB),
            instead of kvsim's estimate
        kv_offload: KV tiers below the GPU, per replica (summed over its GPUs): cpu=SIZE[,disk=SIZE]
            (e.g. cpu=64GiB,disk=1TiB; GiB = 2^30 B). Prompt chunks are stored as computed, a prefix
            found there is loaded before the request runs
        kv_offload_chunk_tokens: tokens per offloaded chunk, a multiple of --block-size (default:
            the block size; vLLM's block_size extra config)
        kv_host_link: GB/s[,LATENCY_US]: one GPU's host link, each direction (default: the GPU
            table's host_link_GB_per_s, latency 0)
        kv_disk: READ_GB/s,WRITE_GB/s,LATENCY_US of the disk tier, per GPU (required with disk=;
            e.g. 7.45,6.9,80)
        kv_offloading_size: vLLM: host KV buffer in GiB (2^30 B), summed over the TP ranks (= --kv-
            offload cpu=SIZEGiB)
        kv_offloading_backend: vLLM: native (OffloadingConnector) | lmcache (LMCacheConnectorV1);
            with --kv-offloading-size
        kv_transfer_config: vLLM JSON: OffloadingConnector (kv_connector_extra_config:
            cpu_bytes_to_use or num_cpu_blocks, block_size) or LMCacheConnectorV1 (host tier from
            --kv-offload); other connectors are refused
    """
    ...

def capacity_from_command(
    command: str,
    *,
    trace: _Value | None = None,
    trace_format: str = 'auto',
    model: str = 'meta-llama/Llama-3.1-8B-Instruct',
    gpu: str = 'a100-80gb',
    gpu_memory_gib: _Value | None = None,
    gpu_file: _Value | None = None,
    gpu_tflops: _Value | None = None,
    gpu_bandwidth: _Value | None = None,
    interconnect: str = 'auto',
    dtype: str = 'auto',
    quantization: _Value | None = None,
    kv_cache_dtype: str = 'auto',
    mamba_cache_dtype: str = 'auto',
    mamba_ssm_cache_dtype: str = 'auto',
    tensor_parallel_size: int = 1,
    pipeline_parallel_size: int = 1,
    pp_layer_partition: _Value | None = None,
    gpu_memory_utilization: _Value | None = None,
    max_model_len: _Value | None = None,
    max_num_seqs: _Value | None = None,
    max_num_batched_tokens: _Value | None = None,
    block_size: _Value | None = None,
    kv_cache_memory: _Value | None = None,
    enable_prefix_caching: bool = True,
    enable_chunked_prefill: bool = False,
    enforce_eager: bool = False,
    hf_overrides: _Value | None = None,
    rope_scaling: _Value | None = None,
    allow_long_max_model_len: bool = False,
    disable_hybrid_kv_cache_manager: bool = False,
    vllm_version: str = '0.30',
    engine: str = 'vllm',
    num_gpu_blocks_override: _Value | None = None,
    cpu_offload_gb: _Value | None = None,
    data_parallel_size: int = 1,
    decode_context_parallel_size: int = 1,
    enable_expert_parallel: bool = False,
    all2all_backend: _Value | None = None,
    disable_sliding_window: bool = False,
    speculative_config: _Value | None = None,
    enable_lora: bool = False,
    max_loras: _Value | None = None,
    max_lora_rank: _Value | None = None,
    max_cpu_loras: _Value | None = None,
    lora_dtype: str = 'auto',
    fully_sharded_loras: bool = False,
    lora_extra_vocab_size: _Value | None = None,
    limit_mm_per_prompt: _Value | None = None,
    mm_processor_kwargs: _Value | None = None,
    skip_mm_profiling: bool = False,
    compilation_config: _Value | None = None,
    optimization_level: _Value | None = None,
    cudagraph_capture_sizes: _Value | None = None,
    max_cudagraph_capture_size: _Value | None = None,
    cuda_graph_estimate: str = 'auto',
    model_runner: str = 'auto',
    cuda_graph_memory: _Value | None = None,
    kv_offload: _Value | None = None,
    kv_offload_chunk_tokens: _Value | None = None,
    kv_host_link: _Value | None = None,
    kv_disk: _Value | None = None,
    kv_offloading_size: _Value | None = None,
    kv_offloading_backend: _Value | None = None,
    kv_transfer_config: _Value | None = None
) -> CapacityResult:
    """kvsim capacity for a pasted `vllm serve MODEL ...` line; keywords apply on top.

    Args (the flags of `kvsim capacity --help`):
        trace: a request trace (any format replay reads): also the max concurrency at its mean
            request length (prompt + output, capped at max-model-len; longer prompts left out)
        trace_format: auto | azure | burstgpt | vidur | mooncake | csv | lengths
        model: config.json path, model directory, or preset id (kvsim models)
        gpu: GPU: short id (h100, a100-40gb, l4) or the name nvidia-smi/torch print (kvsim gpus)
        gpu_memory_gib: override the GPU's memory as CUDA reports it, GiB
        gpu_file: CSV of more GPUs, same columns as data/gpus.csv (looked up first)
        gpu_tflops: override the GPU's dense 16-bit tensor peak, TFLOPS (10^12 FLOP/s)
        gpu_bandwidth: override the GPU's memory bandwidth, GB/s (10^9 B/s; or e.g. 3.35TB/s)
        interconnect: auto | nvls | nvlink | pcie | xgmi: how TP GPUs connect (sizes NCCL buffers;
            auto: the GPU's)
        dtype: auto | float16 | bfloat16 | float32
        quantization: awq | gptq | fp8 | bitsandbytes | mxfp4 | compressed-tensors | int8 | int4 |
            none (default: what the checkpoint's quantization_config declares)
        kv_cache_dtype: auto | fp16 | bf16 | fp8 | fp8_e4m3 | fp8_e5m2 | int8 | int4 (int8/int4 are
            what-ifs)
        mamba_cache_dtype: auto | float32 | float16 | bfloat16: linear-attention / SSM state pages
            (auto: the model dtype)
        mamba_ssm_cache_dtype: auto | float32 | float16 | bfloat16: their SSM (temporal) state alone
            (auto: as --mamba-cache-dtype)
        tensor_parallel_size: tensor-parallel GPUs (-tp)
        pipeline_parallel_size: pipeline stages (-pp)
        pp_layer_partition: decoder layers per pipeline stage, e.g. 10,11,11 (vLLM's
            VLLM_PP_LAYER_PARTITION; default: equal shares, the remainder on the stages before the
            last)
        gpu_memory_utilization: fraction of GPU memory the engine may use (vLLM default 0.9; SGLang:
            mem_fraction_static)
        max_model_len: context length (default: the model's); 32k = 32000, 32K = 32768; auto or -1:
            the largest that fits, as vLLM picks it
        max_num_seqs: max running requests (default by GPU, as vLLM)
        max_num_batched_tokens: token budget per step (default by GPU, as vLLM)
        block_size: tokens per KV block (vLLM 16, TRT-LLM 32, SGLang 1)
        kv_cache_memory: fixed KV cache size in bytes (e.g. 20GiB); skips profiling
        enable_prefix_caching: prefix caching on (default)
        enable_chunked_prefill: chunked prefill on (vLLM V1's default)
        enforce_eager: no CUDA graphs: every kernel launched from the CPU
        hf_overrides: JSON merged into the model config before it is read (vLLM's --hf-overrides),
            e.g. a rope_scaling for longer context
        rope_scaling: JSON: the config's rope_scaling (older vLLM's --rope-scaling)
        allow_long_max_model_len: a --max-model-len past the model's limit is planned, with a
            warning (vLLM: VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)
        disable_hybrid_kv_cache_manager: allocate full-length KV for sliding-window layers
        vllm_version: vLLM release whose budgeting to reproduce: a release such as 0.30, 0.19, 0.11
            or 0.6.4, latest (the newest modelled), or v0 (the V0 engine); `kvsim releases` lists
            the rules by release
        engine: vllm | sglang | trtllm
        num_gpu_blocks_override: use this many KV blocks instead of the profiled number
        cpu_offload_gb: GiB of each GPU's weights kept in CPU memory
        data_parallel_size: data-parallel replicas (-dp), each with its own KV cache
        decode_context_parallel_size: decode context parallelism (-dcp): each request's KV cache
            spread over this many of the TP ranks, token by token
        enable_expert_parallel: shard MoE experts over TP x DP ranks
        all2all_backend: how MoE layers move tokens at --data-parallel-size > 1, as vLLM: naive |
            allgather_reducescatter | pplx | deepep_high_throughput | deepep_low_latency |
            flashinfer_all2allv (default: the release's; allgather_reducescatter from 0.11)
        disable_sliding_window: sliding-window layers keep the full context
        speculative_config: JSON, as vLLM: {"method": "eagle", "model": ID|PATH,
            "num_speculative_tokens": N}
        enable_lora: LoRA adapters: stacked A/B buffers for --max-loras slots before the KV cache
        max_loras: LoRA slots on the GPU (adapters in one batch; vLLM default 1)
        max_lora_rank: rank every slot is allocated at: 1, 8, 16, 32, 64, 128, 256, 320, 512
            (default 16)
        max_cpu_loras: adapters kept in host memory (LRU; default --max-loras)
        lora_dtype: auto | float16 | bfloat16: the adapter buffers (auto: model dtype)
        fully_sharded_loras: shard the LoRA A of column-parallel and B of row-parallel layers over
            TP too
        lora_extra_vocab_size: 256 | 512: tokens an adapter may add (vLLM 0.11; default 256)
        limit_mm_per_prompt: JSON, as vLLM: {"image": 1, "video": 0}
        mm_processor_kwargs: JSON, as vLLM: {"max_pixels": N}
        skip_mm_profiling: no encoder profile run (multimodal models)
        compilation_config: JSON, as vLLM (-cc): cudagraph_mode, cudagraph_capture_sizes,
            max_cudagraph_capture_size; or a level 0-3 (0: no graphs)
        optimization_level: 0-3, as vLLM 0.12 on (-O): 0 no compilation and no CUDA graphs, 1
            piecewise graphs, 2 and 3 the default (full and piecewise); a cudagraph_mode given in
            --compilation-config wins
        cudagraph_capture_sizes: batch sizes vLLM captures graphs for, e.g. 1,2,4,8
        max_cudagraph_capture_size: largest captured batch (vLLM: min(2 x max-num-seqs, 512))
        cuda_graph_estimate: on | off | auto: vLLM's start-up estimate of CUDA-graph memory taken
            out of the KV budget (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS; auto: on from vLLM 0.21)
        model_runner: auto | v1 | v2: the GPU model runner whose profile run sizes the KV budget
            (VLLM_USE_V2_MODEL_RUNNER=0 or 1; auto: the release's choice, V2 for every model from
            vLLM 0.29)
        cuda_graph_memory: CUDA-graph memory per GPU when a start-up log gave it (e.g. 0.91GiB),
            instead of kvsim's estimate
        kv_offload: KV tiers below the GPU, per replica (summed over its GPUs): cpu=SIZE[,disk=SIZE]
            (e.g. cpu=64GiB,disk=1TiB; GiB = 2^30 B). Prompt chunks are stored as computed, a prefix
            found there is loaded before the request runs
        kv_offload_chunk_tokens: tokens per offloaded chunk, a multiple of --block-size (default:
            the block size; vLLM's block_size extra config)
        kv_host_link: GB/s[,LATENCY_US]: one GPU's host link, each direction (default: the GPU
            table's host_link_GB_per_s, latency 0)
        kv_disk: READ_GB/s,WRITE_GB/s,LATENCY_US of the disk tier, per GPU (required with disk=;
            e.g. 7.45,6.9,80)
        kv_offloading_size: vLLM: host KV buffer in GiB (2^30 B), summed over the TP ranks (= --kv-
            offload cpu=SIZEGiB)
        kv_offloading_backend: vLLM: native (OffloadingConnector) | lmcache (LMCacheConnectorV1);
            with --kv-offloading-size
        kv_transfer_config: vLLM JSON: OffloadingConnector (kv_connector_extra_config:
            cpu_bytes_to_use or num_cpu_blocks, block_size) or LMCacheConnectorV1 (host tier from
            --kv-offload); other connectors are refused
    """
    ...

def step(
    *,
    decode_seqs: int = 0,
    decode_context: int = 0,
    prefill_seqs: int = 0,
    prefill_tokens: int = 0,
    prefill_context: int = 0,
    spec_acceptance: _Value | None = None,
    model: str = 'meta-llama/Llama-3.1-8B-Instruct',
    gpu: str = 'a100-80gb',
    gpu_memory_gib: _Value | None = None,
    gpu_file: _Value | None = None,
    gpu_tflops: _Value | None = None,
    gpu_bandwidth: _Value | None = None,
    interconnect: str = 'auto',
    dtype: str = 'auto',
    quantization: _Value | None = None,
    kv_cache_dtype: str = 'auto',
    mamba_cache_dtype: str = 'auto',
    mamba_ssm_cache_dtype: str = 'auto',
    tensor_parallel_size: int = 1,
    pipeline_parallel_size: int = 1,
    pp_layer_partition: _Value | None = None,
    gpu_memory_utilization: _Value | None = None,
    max_model_len: _Value | None = None,
    max_num_seqs: _Value | None = None,
    max_num_batched_tokens: _Value | None = None,
    block_size: _Value | None = None,
    kv_cache_memory: _Value | None = None,
    enable_prefix_caching: bool = True,
    enable_chunked_prefill: bool = False,
    enforce_eager: bool = False,
    hf_overrides: _Value | None = None,
    rope_scaling: _Value | None = None,
    allow_long_max_model_len: bool = False,
    disable_hybrid_kv_cache_manager: bool = False,
    vllm_version: str = '0.30',
    engine: str = 'vllm',
    num_gpu_blocks_override: _Value | None = None,
    cpu_offload_gb: _Value | None = None,
    data_parallel_size: int = 1,
    decode_context_parallel_size: int = 1,
    enable_expert_parallel: bool = False,
    all2all_backend: _Value | None = None,
    disable_sliding_window: bool = False,
    speculative_config: _Value | None = None,
    enable_lora: bool = False,
    max_loras: _Value | None = None,
    max_lora_rank: _Value | None = None,
    max_cpu_loras: _Value | None = None,
    lora_dtype: str = 'auto',
    fully_sharded_loras: bool = False,
    lora_extra_vocab_size: _Value | None = None,
    limit_mm_per_prompt: _Value | None = None,
    mm_processor_kwargs: _Value | None = None,
    skip_mm_profiling: bool = False,
    compilation_config: _Value | None = None,
    optimization_level: _Value | None = None,
    cudagraph_capture_sizes: _Value | None = None,
    max_cudagraph_capture_size: _Value | None = None,
    cuda_graph_estimate: str = 'auto',
    model_runner: str = 'auto',
    cuda_graph_memory: _Value | None = None,
    calibration: _Value | None = None,
    compute_efficiency: _Value | None = None,
    memory_efficiency: _Value | None = None,
    step_overhead_ms: _Value | None = None
) -> StepResult:
    """kvsim step: one engine step's time, per operator.

    Args (the flags of `kvsim step --help`):
        decode_seqs: sequences decoding one token each
        decode_context: tokens already in each decoding sequence's KV cache
        prefill_seqs: sequences prefilling a chunk
        prefill_tokens: prompt tokens each prefill computes this step
        prefill_context: tokens each prefilling sequence already has cached (earlier chunks, prefix-
            cache hits)
        spec_acceptance: with --speculative-config: the probability each draft position is accepted,
            one rate (a -> a, a^2, ...) or one per position (0.8,0.6,0.4); replay draws from them
            per request and step (--seed), step takes the expected tokens per step, 1 + the sum of
            the rates
        model: config.json path, model directory, or preset id (kvsim models)
        gpu: GPU: short id (h100, a100-40gb, l4) or the name nvidia-smi/torch print (kvsim gpus)
        gpu_memory_gib: override the GPU's memory as CUDA reports it, GiB
        gpu_file: CSV of more GPUs, same columns as data/gpus.csv (looked up first)
        gpu_tflops: override the GPU's dense 16-bit tensor peak, TFLOPS (10^12 FLOP/s)
        gpu_bandwidth: override the GPU's memory bandwidth, GB/s (10^9 B/s; or e.g. 3.35TB/s)
        interconnect: auto | nvls | nvlink | pcie | xgmi: how TP GPUs connect (sizes NCCL buffers;
            auto: the GPU's)
        dtype: auto | float16 | bfloat16 | float32
        quantization: awq | gptq | fp8 | bitsandbytes | mxfp4 | compressed-tensors | int8 | int4 |
            none (default: what the checkpoint's quantization_config declares)
        kv_cache_dtype: auto | fp16 | bf16 | fp8 | fp8_e4m3 | fp8_e5m2 | int8 | int4 (int8/int4 are
            what-ifs)
        mamba_cache_dtype: auto | float32 | float16 | bfloat16: linear-attention / SSM state pages
            (auto: the model dtype)
        mamba_ssm_cache_dtype: auto | float32 | float16 | bfloat16: their SSM (temporal) state alone
            (auto: as --mamba-cache-dtype)
        tensor_parallel_size: tensor-parallel GPUs (-tp)
        pipeline_parallel_size: pipeline stages (-pp)
        pp_layer_partition: decoder layers per pipeline stage, e.g. 10,11,11 (vLLM's
            VLLM_PP_LAYER_PARTITION; default: equal shares, the remainder on the stages before the
            last)
        gpu_memory_utilization: fraction of GPU memory the engine may use (vLLM default 0.9; SGLang:
            mem_fraction_static)
        max_model_len: context length (default: the model's); 32k = 32000, 32K = 32768; auto or -1:
            the largest that fits, as vLLM picks it
        max_num_seqs: max running requests (default by GPU, as vLLM)
        max_num_batched_tokens: token budget per step (default by GPU, as vLLM)
        block_size: tokens per KV block (vLLM 16, TRT-LLM 32, SGLang 1)
        kv_cache_memory: fixed KV cache size in bytes (e.g. 20GiB); skips profiling
        enable_prefix_caching: prefix caching on (default)
        enable_chunked_prefill: chunked prefill on (vLLM V1's default)
        enforce_eager: no CUDA graphs: every kernel launched from the CPU
        hf_overrides: JSON merged into the model config before it is read (vLLM's --hf-overrides),
            e.g. a rope_scaling for longer context
        rope_scaling: JSON: the config's rope_scaling (older vLLM's --rope-scaling)
        allow_long_max_model_len: a --max-model-len past the model's limit is planned, with a
            warning (vLLM: VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)
        disable_hybrid_kv_cache_manager: allocate full-length KV for sliding-window layers
        vllm_version: vLLM release whose budgeting to reproduce: a release such as 0.30, 0.19, 0.11
            or 0.6.4, latest (the newest modelled), or v0 (the V0 engine); `kvsim releases` lists
            the rules by release
        engine: vllm | sglang | trtllm
        num_gpu_blocks_override: use this many KV blocks instead of the profiled number
        cpu_offload_gb: GiB of each GPU's weights kept in CPU memory
        data_parallel_size: data-parallel replicas (-dp), each with its own KV cache
        decode_context_parallel_size: decode context parallelism (-dcp): each request's KV cache
            spread over this many of the TP ranks, token by token
        enable_expert_parallel: shard MoE experts over TP x DP ranks
        all2all_backend: how MoE layers move tokens at --data-parallel-size > 1, as vLLM: naive |
            allgather_reducescatter | pplx | deepep_high_throughput | deepep_low_latency |
            flashinfer_all2allv (default: the release's; allgather_reducescatter from 0.11)
        disable_sliding_window: sliding-window layers keep the full context
        speculative_config: JSON, as vLLM: {"method": "eagle", "model": ID|PATH,
            "num_speculative_tokens": N}
        enable_lora: LoRA adapters: stacked A/B buffers for --max-loras slots before the KV cache
        max_loras: LoRA slots on the GPU (adapters in one batch; vLLM default 1)
        max_lora_rank: rank every slot is allocated at: 1, 8, 16, 32, 64, 128, 256, 320, 512
            (default 16)
        max_cpu_loras: adapters kept in host memory (LRU; default --max-loras)
        lora_dtype: auto | float16 | bfloat16: the adapter buffers (auto: model dtype)
        fully_sharded_loras: shard the LoRA A of column-parallel and B of row-parallel layers over
            TP too
        lora_extra_vocab_size: 256 | 512: tokens an adapter may add (vLLM 0.11; default 256)
        limit_mm_per_prompt: JSON, as vLLM: {"image": 1, "video": 0}
        mm_processor_kwargs: JSON, as vLLM: {"max_pixels": N}
        skip_mm_profiling: no encoder profile run (multimodal models)
        compilation_config: JSON, as vLLM (-cc): cudagraph_mode, cudagraph_capture_sizes,
            max_cudagraph_capture_size; or a level 0-3 (0: no graphs)
        optimization_level: 0-3, as vLLM 0.12 on (-O): 0 no compilation and no CUDA graphs, 1
            piecewise graphs, 2 and 3 the default (full and piecewise); a cudagraph_mode given in
            --compilation-config wins
        cudagraph_capture_sizes: batch sizes vLLM captures graphs for, e.g. 1,2,4,8
        max_cudagraph_capture_size: largest captured batch (vLLM: min(2 x max-num-seqs, 512))
        cuda_graph_estimate: on | off | auto: vLLM's start-up estimate of CUDA-graph memory taken
            out of the KV budget (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS; auto: on from vLLM 0.21)
        model_runner: auto | v1 | v2: the GPU model runner whose profile run sizes the KV budget
            (VLLM_USE_V2_MODEL_RUNNER=0 or 1; auto: the release's choice, V2 for every model from
            vLLM 0.29)
        cuda_graph_memory: CUDA-graph memory per GPU when a start-up log gave it (e.g. 0.91GiB),
            instead of kvsim's estimate
        calibration: kernel efficiencies fitted by `kvsim calibrate` (a JSON file)
        compute_efficiency: step model: share of the dense tensor peak a large GEMM sustains, (0, 1]
            (default 0.75)
        memory_efficiency: step model: share of HBM bandwidth a weight-streaming GEMM sustains, (0,
            1] (default 0.8)
        step_overhead_ms: step model: the server's CPU time per step, ms, [0, 1000] (default 0.3)
    """
    ...

def train(
    *,
    model: str = 'meta-llama/Llama-3.1-8B-Instruct',
    gpu: str = 'a100-80gb',
    gpu_memory_gib: _Value | None = None,
    gpu_file: _Value | None = None,
    params: _Value | None = None,
    micro_batch_size: int = 1,
    seq_len: int = 2048,
    precision: str = 'bf16-mixed',
    optimizer: str = 'adamw',
    recompute: str = 'none',
    flash_attention: bool = False,
    tensor_parallel_size: int = 1,
    sequence_parallel: bool = False,
    pipeline_parallel_size: int = 1,
    data_parallel_size: int = 1,
    zero: int = 0,
    offload_optimizer: bool = False,
    finetune: str = 'full',
    lora_rank: int = 16,
    lora_targets: str = 'all-linear',
    find: _Value | None = None,
    report: _Value | None = None
) -> TrainResult:
    """kvsim train: training memory per GPU.

    Args (the flags of `kvsim train --help`):
        model: config.json path, model directory, or preset id (kvsim models)
        gpu: GPU: short id (h100, a100-40gb, l4) or the name nvidia-smi/torch print (kvsim gpus)
        gpu_memory_gib: override the GPU's memory as CUDA reports it, GiB
        gpu_file: CSV of more GPUs, same columns as data/gpus.csv (looked up first)
        params: count only: N parameters (e.g. 7.5e9) instead of --model
        micro_batch_size: sequences per micro-batch (B)
        seq_len: tokens per sequence (S)
        precision: fp32 | bf16-mixed | fp16-mixed | bf16
        optimizer: adamw | adamw-8bit | adafactor | sgd | sgd-momentum
        recompute: none | selective (the s^2 attention tensors) | full (each layer's input only)
        flash_attention: FlashAttention: no s^2 score/softmax tensors
        tensor_parallel_size: tensor-parallel GPUs (T)
        sequence_parallel: Megatron sequence parallelism (needs T > 1)
        pipeline_parallel_size: pipeline stages (P), 1F1B schedule
        data_parallel_size: data-parallel GPUs (D), what ZeRO shards over
        zero: ZeRO stage 0 | 1 (optimizer) | 2 (+ gradients) | 3 (+ weights)
        offload_optimizer: optimizer states and step on the CPU
        finetune: full | lora | qlora
        lora_rank: LoRA rank r
        lora_targets: all-linear | attention
        find: micro-batch-size: the largest B that fits on --gpu
        report: write an HTML report (FILE.html) and the chart as FILE.svg
    """
    ...

def replay(
    *,
    trace: str | os.PathLike[str] | None = None,
    progress: Progress | None = None,
    requests: bool | str | os.PathLike[str] = False,
    timeseries: bool | str | os.PathLike[str] = False,
    bench_json: _Value | None = None,
    trace_format: str = 'auto',
    delimiter: str = 'auto',
    model_filter: _Value | None = None,
    skip_bad_rows: bool = False,
    arrival_column: str = 'arrival',
    prompt_column: str = 'prompt_tokens',
    output_column: str = 'output_tokens',
    time_unit: str = 's',
    synthetic: _Value | None = None,
    arrival: str = 'poisson',
    rate: _Value | None = None,
    max_concurrency: _Value | None = None,
    cv: int = 1,
    prompt_len: _Value | None = None,
    output_len: _Value | None = None,
    seed: int = 1,
    max_requests: _Value | None = None,
    start: _Value | None = None,
    duration: _Value | None = None,
    rate_scale: int = 1,
    repeat: int = 1,
    shared_prefix: _Value | None = None,
    conversations: _Value | None = None,
    adapter_column: _Value | None = None,
    adapters: _Value | None = None,
    adapter_popularity: _Value | None = None,
    dataset_name: _Value | None = None,
    random_input_len: _Value | None = None,
    random_output_len: _Value | None = None,
    random_range_ratio: _Value | None = None,
    random_prefix_len: _Value | None = None,
    prefix_repetition_prefix_len: _Value | None = None,
    prefix_repetition_suffix_len: _Value | None = None,
    prefix_repetition_num_prefixes: _Value | None = None,
    prefix_repetition_output_len: _Value | None = None,
    num_groups: _Value | None = None,
    num_prompts_per_group: _Value | None = None,
    system_prompt_len: _Value | None = None,
    question_len: _Value | None = None,
    shared_prefix_output_len: _Value | None = None,
    scheduler: str = 'vllm',
    async_scheduling: bool = False,
    scheduler_recv_interval: int = 1,
    allocator: str = 'paged',
    reservation: str = 'max',
    placement: str = 'first-fit',
    step_time_ms: _Value | None = None,
    spec_acceptance: _Value | None = None,
    adapter_disk_read: float = 7.45,
    stepping: str = 'event',
    exact_quantiles: bool = False,
    calibration: _Value | None = None,
    compute_efficiency: _Value | None = None,
    memory_efficiency: _Value | None = None,
    step_overhead_ms: _Value | None = None,
    replicas: int = 1,
    router: str = 'round-robin',
    gpu_hourly_cost: _Value | None = None,
    kv_offload: _Value | None = None,
    kv_offload_chunk_tokens: _Value | None = None,
    kv_host_link: _Value | None = None,
    kv_disk: _Value | None = None,
    kv_offloading_size: _Value | None = None,
    kv_offloading_backend: _Value | None = None,
    kv_transfer_config: _Value | None = None,
    sample_interval: int = 0,
    report: _Value | None = None,
    omit_wall_time: bool = False,
    quiet: bool = False,
    model: str = 'meta-llama/Llama-3.1-8B-Instruct',
    gpu: str = 'a100-80gb',
    gpu_memory_gib: _Value | None = None,
    gpu_file: _Value | None = None,
    gpu_tflops: _Value | None = None,
    gpu_bandwidth: _Value | None = None,
    interconnect: str = 'auto',
    dtype: str = 'auto',
    quantization: _Value | None = None,
    kv_cache_dtype: str = 'auto',
    mamba_cache_dtype: str = 'auto',
    mamba_ssm_cache_dtype: str = 'auto',
    tensor_parallel_size: int = 1,
    pipeline_parallel_size: int = 1,
    pp_layer_partition: _Value | None = None,
    gpu_memory_utilization: _Value | None = None,
    max_model_len: _Value | None = None,
    max_num_seqs: _Value | None = None,
    max_num_batched_tokens: _Value | None = None,
    block_size: _Value | None = None,
    kv_cache_memory: _Value | None = None,
    enable_prefix_caching: bool = True,
    enable_chunked_prefill: bool = False,
    enforce_eager: bool = False,
    hf_overrides: _Value | None = None,
    rope_scaling: _Value | None = None,
    allow_long_max_model_len: bool = False,
    disable_hybrid_kv_cache_manager: bool = False,
    vllm_version: str = '0.30',
    engine: str = 'vllm',
    num_gpu_blocks_override: _Value | None = None,
    cpu_offload_gb: _Value | None = None,
    data_parallel_size: int = 1,
    decode_context_parallel_size: int = 1,
    enable_expert_parallel: bool = False,
    all2all_backend: _Value | None = None,
    disable_sliding_window: bool = False,
    speculative_config: _Value | None = None,
    enable_lora: bool = False,
    max_loras: _Value | None = None,
    max_lora_rank: _Value | None = None,
    max_cpu_loras: _Value | None = None,
    lora_dtype: str = 'auto',
    fully_sharded_loras: bool = False,
    lora_extra_vocab_size: _Value | None = None,
    limit_mm_per_prompt: _Value | None = None,
    mm_processor_kwargs: _Value | None = None,
    skip_mm_profiling: bool = False,
    compilation_config: _Value | None = None,
    optimization_level: _Value | None = None,
    cudagraph_capture_sizes: _Value | None = None,
    max_cudagraph_capture_size: _Value | None = None,
    cuda_graph_estimate: str = 'auto',
    model_runner: str = 'auto',
    cuda_graph_memory: _Value | None = None,
    prefill_replicas: _Value | None = None,
    decode_replicas: _Value | None = None,
    decode_gpu: _Value | None = None,
    decode_tp: _Value | None = None,
    decode_max_num_seqs: _Value | None = None,
    decode_max_num_batched_tokens: _Value | None = None,
    kv_link: str = 'ib-400g',
    kv_connector: str = 'nixl'
) -> ReplayResult:
    """kvsim replay: a trace through the scheduler and KV allocator. requests=True / timeseries=True keep the
    rows (result.request_rows, result.timeseries_rows, result.to_pandas(table)).

    Args (the flags of `kvsim replay --help`):
        bench_json: write the summary to FILE in `vllm bench serve`'s result schema (mean_ttft_ms,
            median_ttft_ms, std_ttft_ms, p99_ttft_ms, ... in milliseconds; ttft as the client
            measures it; - for standard output)
        trace_format: auto | azure | burstgpt | vidur | mooncake | csv | lengths
        delimiter: CSV traces: auto (from the header: comma, else tab, semicolon or bar) | , | tab |
            ; | |
        model_filter: burstgpt: keep rows of this Model
        skip_bad_rows: count malformed rows as warnings instead of failing
        arrival_column: csv: arrival time column
        prompt_column: csv: prompt tokens column
        output_column: csv: output tokens column
        time_unit: csv: s | ms | us | ns | datetime
        synthetic: generate N requests instead of reading a trace
        arrival: synthetic / lengths arrivals: poisson | gamma
        rate: synthetic / lengths-file arrival rate, requests/s (a timestamped trace: --rate-scale);
            with --max-concurrency the requests are scheduled at this rate, and all at once without
            it (vllm bench serve's default --request-rate inf)
        max_concurrency: closed-loop load: N clients, each sending its next request when its last
            one ends (vllm bench serve --max-concurrency; inference-perf's constant concurrency;
            genai-perf --concurrency); a request is sent at the later of its arrival time and a
            client being free
        cv: gamma arrivals: coefficient of variation of the gaps
        prompt_len: synthetic prompt lengths: fixed:N | uniform:A:B | lognormal:MEDIAN:SIGMA |
            empirical:FILE[:COLUMN] (default lognormal:1000:0.8)
        output_len: synthetic output lengths, same forms (default lognormal:200:0.8)
        seed: seed for every random choice
        max_requests: stop after N requests
        start: skip arrivals before this many seconds
        duration: keep this many seconds of arrivals
        rate_scale: divide arrival times by S (S > 1: more load)
        repeat: tile the trace K times back to back
        shared_prefix: K:LEN: each request starts with one of K system prompts of LEN tokens
            (uniform)
        conversations: T:THINK_S: each request starts a T-turn conversation, turns THINK_S s apart
            (exponential)
        adapter_column: with --enable-lora: the trace column (CSV header, Mooncake key) naming each
            request's LoRA adapter; an empty cell is the base model
        adapters: with --enable-lora: N LoRA adapters, one drawn per request (per conversation) from
            --seed
        adapter_popularity: with --adapters: uniform | zipf:S (adapter k drawn with probability
            proportional to 1/k^S; default uniform)
        dataset_name: with --synthetic N: draw the requests from a benchmark's dataset: random |
            prefix_repetition | shared_prefix (vllm bench serve's random and prefix_repetition,
            inference-perf's shared_prefix)
        random_input_len: random: mean input tokens (default 1024)
        random_output_len: random: mean output tokens (default 128)
        random_range_ratio: random: lengths uniform in [L(1-R), L(1+R)], 0 <= R < 1 (default 0)
        random_prefix_len: random: tokens of one prefix every request shares (default 0)
        prefix_repetition_prefix_len: prefix_repetition: prefix tokens (default 256)
        prefix_repetition_suffix_len: prefix_repetition: suffix tokens (default 256)
        prefix_repetition_num_prefixes: prefix_repetition: prefixes (default 10)
        prefix_repetition_output_len: prefix_repetition: output tokens (default 128)
        num_groups: shared_prefix: system prompts (inference-perf num_groups)
        num_prompts_per_group: shared_prefix: questions per system prompt
        system_prompt_len: shared_prefix: system prompt tokens
        question_len: shared_prefix: question tokens
        shared_prefix_output_len: shared_prefix: output tokens (inference-perf output_len)
        scheduler: vllm | vllm-v0 (vllm: the v1 scheduler)
        async_scheduling: vllm scheduler: the pass for step k+1 runs during step k (vLLM's --async-
            scheduling; kvsim's default)
        scheduler_recv_interval: --engine sglang, as SGLang's flag (scheduler_recv_skipper.py):
            during decode the scheduler takes in new requests once every N steps, and at the step
            after a prefill (0 or 1: every step; at most 1000, the prefill's weight in SGLang's
            counter)
        allocator: paged | contiguous
        reservation: contiguous: max | pow2 | oracle | prompt+max_tokens
        placement: contiguous: first-fit | best-fit | buddy
        step_time_ms: fixed step time instead of the per-operator model
        spec_acceptance: with --speculative-config: the probability each draft position is accepted,
            one rate (a -> a, a^2, ...) or one per position (0.8,0.6,0.4); replay draws from them
            per request and step (--seed), step takes the expected tokens per step, 1 + the sum of
            the rates
        adapter_disk_read: with --enable-lora: GB/s a LoRA checkpoint is read from disk on a host-
            cache miss (default: a PCIe 4.0 NVMe drive's sequential read)
        stepping: event (skip identical decode steps) | token (every request every step)
        exact_quantiles: latency quantiles from every value kept (memory grows with the trace)
            instead of the log-bucket sketch used beyond 4,096 values (within 0.5%)
        calibration: kernel efficiencies fitted by `kvsim calibrate` (a JSON file)
        compute_efficiency: step model: share of the dense tensor peak a large GEMM sustains, (0, 1]
            (default 0.75)
        memory_efficiency: step model: share of HBM bandwidth a weight-streaming GEMM sustains, (0,
            1] (default 0.8)
        step_overhead_ms: step model: the server's CPU time per step, ms, [0, 1000] (default 0.3)
        replicas: independent replicas of the deployment behind a router
        router: --replicas > 1: round-robin | least-requests | least-kv | prefix-affinity | session
        gpu_hourly_cost: USD per GPU-hour, or GPU=USD,... by GPU id: report GPU-hours, USD per
            million output tokens, tokens/s per GPU
        kv_offload: KV tiers below the GPU, per replica (summed over its GPUs): cpu=SIZE[,disk=SIZE]
            (e.g. cpu=64GiB,disk=1TiB; GiB = 2^30 B). Prompt chunks are stored as computed, a prefix
            found there is loaded before the request runs
        kv_offload_chunk_tokens: tokens per offloaded chunk, a multiple of --block-size (default:
            the block size; vLLM's block_size extra config)
        kv_host_link: GB/s[,LATENCY_US]: one GPU's host link, each direction (default: the GPU
            table's host_link_GB_per_s, latency 0)
        kv_disk: READ_GB/s,WRITE_GB/s,LATENCY_US of the disk tier, per GPU (required with disk=;
            e.g. 7.45,6.9,80)
        kv_offloading_size: vLLM: host KV buffer in GiB (2^30 B), summed over the TP ranks (= --kv-
            offload cpu=SIZEGiB)
        kv_offloading_backend: vLLM: native (OffloadingConnector) | lmcache (LMCacheConnectorV1);
            with --kv-offloading-size
        kv_transfer_config: vLLM JSON: OffloadingConnector (kv_connector_extra_config:
            cpu_bytes_to_use or num_cpu_blocks, block_size) or LMCacheConnectorV1 (host tier from
            --kv-offload); other connectors are refused
        sample_interval: time series: one row per S seconds (0: every step)
        report: write a self-contained HTML report with charts to FILE.html
        omit_wall_time: write sim.wall_s as 0 so outputs are byte-identical across runs
        quiet: no console summary or progress
        model: config.json path, model directory, or preset id (kvsim models)
        gpu: GPU: short id (h100, a100-40gb, l4) or the name nvidia-smi/torch print (kvsim gpus)
        gpu_memory_gib: override the GPU's memory as CUDA reports it, GiB
        gpu_file: CSV of more GPUs, same columns as data/gpus.csv (looked up first)
        gpu_tflops: override the GPU's dense 16-bit tensor peak, TFLOPS (10^12 FLOP/s)
        gpu_bandwidth: override the GPU's memory bandwidth, GB/s (10^9 B/s; or e.g. 3.35TB/s)
        interconnect: auto | nvls | nvlink | pcie | xgmi: how TP GPUs connect (sizes NCCL buffers;
            auto: the GPU's)
        dtype: auto | float16 | bfloat16 | float32
        quantization: awq | gptq | fp8 | bitsandbytes | mxfp4 | compressed-tensors | int8 | int4 |
            none (default: what the checkpoint's quantization_config declares)
        kv_cache_dtype: auto | fp16 | bf16 | fp8 | fp8_e4m3 | fp8_e5m2 | int8 | int4 (int8/int4 are
            what-ifs)
        mamba_cache_dtype: auto | float32 | float16 | bfloat16: linear-attention / SSM state pages
            (auto: the model dtype)
        mamba_ssm_cache_dtype: auto | float32 | float16 | bfloat16: their SSM (temporal) state alone
            (auto: as --mamba-cache-dtype)
        tensor_parallel_size: tensor-parallel GPUs (-tp)
        pipeline_parallel_size: pipeline stages (-pp)
        pp_layer_partition: decoder layers per pipeline stage, e.g. 10,11,11 (vLLM's
            VLLM_PP_LAYER_PARTITION; default: equal shares, the remainder on the stages before the
            last)
        gpu_memory_utilization: fraction of GPU memory the engine may use (vLLM default 0.9; SGLang:
            mem_fraction_static)
        max_model_len: context length (default: the model's); 32k = 32000, 32K = 32768; auto or -1:
            the largest that fits, as vLLM picks it
        max_num_seqs: max running requests (default by GPU, as vLLM)
        max_num_batched_tokens: token budget per step (default by GPU, as vLLM)
        block_size: tokens per KV block (vLLM 16, TRT-LLM 32, SGLang 1)
        kv_cache_memory: fixed KV cache size in bytes (e.g. 20GiB); skips profiling
        enable_prefix_caching: prefix caching on (default)
        enable_chunked_prefill: chunked prefill on (vLLM V1's default)
        enforce_eager: no CUDA graphs: every kernel launched from the CPU
        hf_overrides: JSON merged into the model config before it is read (vLLM's --hf-overrides),
            e.g. a rope_scaling for longer context
        rope_scaling: JSON: the config's rope_scaling (older vLLM's --rope-scaling)
        allow_long_max_model_len: a --max-model-len past the model's limit is planned, with a
            warning (vLLM: VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)
        disable_hybrid_kv_cache_manager: allocate full-length KV for sliding-window layers
        vllm_version: vLLM release whose budgeting to reproduce: a release such as 0.30, 0.19, 0.11
            or 0.6.4, latest (the newest modelled), or v0 (the V0 engine); `kvsim releases` lists
            the rules by release
        engine: vllm | sglang | trtllm
        num_gpu_blocks_override: use this many KV blocks instead of the profiled number
        cpu_offload_gb: GiB of each GPU's weights kept in CPU memory
        data_parallel_size: data-parallel replicas (-dp), each with its own KV cache
        decode_context_parallel_size: decode context parallelism (-dcp): each request's KV cache
            spread over this many of the TP ranks, token by token
        enable_expert_parallel: shard MoE experts over TP x DP ranks
        all2all_backend: how MoE layers move tokens at --data-parallel-size > 1, as vLLM: naive |
            allgather_reducescatter | pplx | deepep_high_throughput | deepep_low_latency |
            flashinfer_all2allv (default: the release's; allgather_reducescatter from 0.11)
        disable_sliding_window: sliding-window layers keep the full context
        speculative_config: JSON, as vLLM: {"method": "eagle", "model": ID|PATH,
            "num_speculative_tokens": N}
        enable_lora: LoRA adapters: stacked A/B buffers for --max-loras slots before the KV cache
        max_loras: LoRA slots on the GPU (adapters in one batch; vLLM default 1)
        max_lora_rank: rank every slot is allocated at: 1, 8, 16, 32, 64, 128, 256, 320, 512
            (default 16)
        max_cpu_loras: adapters kept in host memory (LRU; default --max-loras)
        lora_dtype: auto | float16 | bfloat16: the adapter buffers (auto: model dtype)
        fully_sharded_loras: shard the LoRA A of column-parallel and B of row-parallel layers over
            TP too
        lora_extra_vocab_size: 256 | 512: tokens an adapter may add (vLLM 0.11; default 256)
        limit_mm_per_prompt: JSON, as vLLM: {"image": 1, "video": 0}
        mm_processor_kwargs: JSON, as vLLM: {"max_pixels": N}
        skip_mm_profiling: no encoder profile run (multimodal models)
        compilation_config: JSON, as vLLM (-cc): cudagraph_mode, cudagraph_capture_sizes,
            max_cudagraph_capture_size; or a level 0-3 (0: no graphs)
        optimization_level: 0-3, as vLLM 0.12 on (-O): 0 no compilation and no CUDA graphs, 1
            piecewise graphs, 2 and 3 the default (full and piecewise); a cudagraph_mode given in
            --compilation-config wins
        cudagraph_capture_sizes: batch sizes vLLM captures graphs for, e.g. 1,2,4,8
        max_cudagraph_capture_size: largest captured batch (vLLM: min(2 x max-num-seqs, 512))
        cuda_graph_estimate: on | off | auto: vLLM's start-up estimate of CUDA-graph memory taken
            out of the KV budget (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS; auto: on from vLLM 0.21)
        model_runner: auto | v1 | v2: the GPU model runner whose profile run sizes the KV budget
            (VLLM_USE_V2_MODEL_RUNNER=0 or 1; auto: the release's choice, V2 for every model from
            vLLM 0.29)
        cuda_graph_memory: CUDA-graph memory per GPU when a start-up log gave it (e.g. 0.91GiB),
            instead of kvsim's estimate
        prefill_replicas: prefill/decode disaggregation: P prefill instances (the deployment flags
            above), with --decode-replicas
        decode_replicas: D decode instances (the deployment flags with --decode-* applied)
        decode_gpu: the decode pool's GPU (default: --gpu)
        decode_tp: the decode pool's tensor parallel size (default: --tensor-parallel-size)
        decode_max_num_seqs: the decode pool's max-num-seqs (default: --max-num-seqs)
        decode_max_num_batched_tokens: the decode pool's max-num-batched-tokens (default: --max-num-
            batched-tokens)
        kv_link: prefill -> decode KV link, per GPU: nvlink (450 GB/s each way) | ib-400g (50 GB/s)
            | roce-200g (25 GB/s) | GB/s,LATENCY_US (GB/s = 10^9 B/s)
        kv_connector: the connector that pulls the prompt's KV: nixl (the decode worker posts each
            read before its step's forward, 6.7 ms per 1,785 descriptors, vllm#50913) | push (the
            prefill side sends or writes the KV, as P2pNcclConnector and Dynamo's vLLM patch: the
            link alone)
    """
    ...

def compare(
    a: Mapping[str, Any] | str,
    b: Mapping[str, Any] | str,
    *,
    c: Mapping[str, Any] | str | None = None,
    d: Mapping[str, Any] | str | None = None,
    e: Mapping[str, Any] | str | None = None,
    f: Mapping[str, Any] | str | None = None,
    g: Mapping[str, Any] | str | None = None,
    h: Mapping[str, Any] | str | None = None,
    jobs: int | None = None,
    report: _Value | None = None,
    bench_json: _Value | None = None,
    trace: _Value | None = None,
    trace_format: str = 'auto',
    delimiter: str = 'auto',
    model_filter: _Value | None = None,
    skip_bad_rows: bool = False,
    arrival_column: str = 'arrival',
    prompt_column: str = 'prompt_tokens',
    output_column: str = 'output_tokens',
    time_unit: str = 's',
    synthetic: _Value | None = None,
    arrival: str = 'poisson',
    rate: _Value | None = None,
    max_concurrency: _Value | None = None,
    cv: int = 1,
    prompt_len: _Value | None = None,
    output_len: _Value | None = None,
    seed: int = 1,
    max_requests: _Value | None = None,
    start: _Value | None = None,
    duration: _Value | None = None,
    rate_scale: int = 1,
    repeat: int = 1,
    shared_prefix: _Value | None = None,
    conversations: _Value | None = None,
    adapter_column: _Value | None = None,
    adapters: _Value | None = None,
    adapter_popularity: _Value | None = None,
    dataset_name: _Value | None = None,
    random_input_len: _Value | None = None,
    random_output_len: _Value | None = None,
    random_range_ratio: _Value | None = None,
    random_prefix_len: _Value | None = None,
    prefix_repetition_prefix_len: _Value | None = None,
    prefix_repetition_suffix_len: _Value | None = None,
    prefix_repetition_num_prefixes: _Value | None = None,
    prefix_repetition_output_len: _Value | None = None,
    num_groups: _Value | None = None,
    num_prompts_per_group: _Value | None = None,
    system_prompt_len: _Value | None = None,
    question_len: _Value | None = None,
    shared_prefix_output_len: _Value | None = None,
    scheduler: str = 'vllm',
    async_scheduling: bool = False,
    scheduler_recv_interval: int = 1,
    allocator: str = 'paged',
    reservation: str = 'max',
    placement: str = 'first-fit',
    step_time_ms: _Value | None = None,
    spec_acceptance: _Value | None = None,
    adapter_disk_read: float = 7.45,
    stepping: str = 'event',
    exact_quantiles: bool = False,
    calibration: _Value | None = None,
    compute_efficiency: _Value | None = None,
    memory_efficiency: _Value | None = None,
    step_overhead_ms: _Value | None = None,
    replicas: int = 1,
    router: str = 'round-robin',
    gpu_hourly_cost: _Value | None = None,
    kv_offload: _Value | None = None,
    kv_offload_chunk_tokens: _Value | None = None,
    kv_host_link: _Value | None = None,
    kv_disk: _Value | None = None,
    kv_offloading_size: _Value | None = None,
    kv_offloading_backend: _Value | None = None,
    kv_transfer_config: _Value | None = None,
    timeseries: _Value | None = None,
    sample_interval: int = 0,
    requests: _Value | None = None,
    omit_wall_time: bool = False,
    quiet: bool = False,
    model: str = 'meta-llama/Llama-3.1-8B-Instruct',
    gpu: str = 'a100-80gb',
    gpu_memory_gib: _Value | None = None,
    gpu_file: _Value | None = None,
    gpu_tflops: _Value | None = None,
    gpu_bandwidth: _Value | None = None,
    interconnect: str = 'auto',
    dtype: str = 'auto',
    quantization: _Value | None = None,
    kv_cache_dtype: str = 'auto',
    mamba_cache_dtype: str = 'auto',
    mamba_ssm_cache_dtype: str = 'auto',
    tensor_parallel_size: int = 1,
    pipeline_parallel_size: int = 1,
    pp_layer_partition: _Value | None = None,
    gpu_memory_utilization: _Value | None = None,
    max_model_len: _Value | None = None,
    max_num_seqs: _Value | None = None,
    max_num_batched_tokens: _Value | None = None,
    block_size: _Value | None = None,
    kv_cache_memory: _Value | None = None,
    enable_prefix_caching: bool = True,
    enable_chunked_prefill: bool = False,
    enforce_eager: bool = False,
    hf_overrides: _Value | None = None,
    rope_scaling: _Value | None = None,
    allow_long_max_model_len: bool = False,
    disable_hybrid_kv_cache_manager: bool = False,
    vllm_version: str = '0.30',
    engine: str = 'vllm',
    num_gpu_blocks_override: _Value | None = None,
    cpu_offload_gb: _Value | None = None,
    data_parallel_size: int = 1,
    decode_context_parallel_size: int = 1,
    enable_expert_parallel: bool = False,
    all2all_backend: _Value | None = None,
    disable_sliding_window: bool = False,
    speculative_config: _Value | None = None,
    enable_lora: bool = False,
    max_loras: _Value | None = None,
    max_lora_rank: _Value | None = None,
    max_cpu_loras: _Value | None = None,
    lora_dtype: str = 'auto',
    fully_sharded_loras: bool = False,
    lora_extra_vocab_size: _Value | None = None,
    limit_mm_per_prompt: _Value | None = None,
    mm_processor_kwargs: _Value | None = None,
    skip_mm_profiling: bool = False,
    compilation_config: _Value | None = None,
    optimization_level: _Value | None = None,
    cudagraph_capture_sizes: _Value | None = None,
    max_cudagraph_capture_size: _Value | None = None,
    cuda_graph_estimate: str = 'auto',
    model_runner: str = 'auto',
    cuda_graph_memory: _Value | None = None,
    prefill_replicas: _Value | None = None,
    decode_replicas: _Value | None = None,
    decode_gpu: _Value | None = None,
    decode_tp: _Value | None = None,
    decode_max_num_seqs: _Value | None = None,
    decode_max_num_batched_tokens: _Value | None = None,
    kv_link: str = 'ib-400g',
    kv_connector: str = 'nixl'
) -> CompareResult:
    """kvsim compare: the same trace through deployments a, b, ... (dicts of flags or option strings).

    Args (the flags of `kvsim compare --help`):
        jobs: replays run in parallel (default: all cores)
        report: write one HTML page with the charts overlaid
        bench_json: write the summary to FILE in `vllm bench serve`'s result schema (mean_ttft_ms,
            median_ttft_ms, std_ttft_ms, p99_ttft_ms, ... in milliseconds; ttft as the client
            measures it; - for standard output)
        trace: trace file (default: bundled Azure conversation trace)
        trace_format: auto | azure | burstgpt | vidur | mooncake | csv | lengths
        delimiter: CSV traces: auto (from the header: comma, else tab, semicolon or bar) | , | tab |
            ; | |
        model_filter: burstgpt: keep rows of this Model
        skip_bad_rows: count malformed rows as warnings instead of failing
        arrival_column: csv: arrival time column
        prompt_column: csv: prompt tokens column
        output_column: csv: output tokens column
        time_unit: csv: s | ms | us | ns | datetime
        synthetic: generate N requests instead of reading a trace
        arrival: synthetic / lengths arrivals: poisson | gamma
        rate: synthetic / lengths-file arrival rate, requests/s (a timestamped trace: --rate-scale);
            with --max-concurrency the requests are scheduled at this rate, and all at once without
            it (vllm bench serve's default --request-rate inf)
        max_concurrency: closed-loop load: N clients, each sending its next request when its last
            one ends (vllm bench serve --max-concurrency; inference-perf's constant concurrency;
            genai-perf --concurrency); a request is sent at the later of its arrival time and a
            client being free
        cv: gamma arrivals: coefficient of variation of the gaps
        prompt_len: synthetic prompt lengths: fixed:N | uniform:A:B | lognormal:MEDIAN:SIGMA |
            empirical:FILE[:COLUMN] (default lognormal:1000:0.8)
        output_len: synthetic output lengths, same forms (default lognormal:200:0.8)
        seed: seed for every random choice
        max_requests: stop after N requests
        start: skip arrivals before this many seconds
        duration: keep this many seconds of arrivals
        rate_scale: divide arrival times by S (S > 1: more load)
        repeat: tile the trace K times back to back
        shared_prefix: K:LEN: each request starts with one of K system prompts of LEN tokens
            (uniform)
        conversations: T:THINK_S: each request starts a T-turn conversation, turns THINK_S s apart
            (exponential)
        adapter_column: with --enable-lora: the trace column (CSV header, Mooncake key) naming each
            request's LoRA adapter; an empty cell is the base model
        adapters: with --enable-lora: N LoRA adapters, one drawn per request (per conversation) from
            --seed
        adapter_popularity: with --adapters: uniform | zipf:S (adapter k drawn with probability
            proportional to 1/k^S; default uniform)
        dataset_name: with --synthetic N: draw the requests from a benchmark's dataset: random |
            prefix_repetition | shared_prefix (vllm bench serve's random and prefix_repetition,
            inference-perf's shared_prefix)
        random_input_len: random: mean input tokens (default 1024)
        random_output_len: random: mean output tokens (default 128)
        random_range_ratio: random: lengths uniform in [L(1-R), L(1+R)], 0 <= R < 1 (default 0)
        random_prefix_len: random: tokens of one prefix every request shares (default 0)
        prefix_repetition_prefix_len: prefix_repetition: prefix tokens (default 256)
        prefix_repetition_suffix_len: prefix_repetition: suffix tokens (default 256)
        prefix_repetition_num_prefixes: prefix_repetition: prefixes (default 10)
        prefix_repetition_output_len: prefix_repetition: output tokens (default 128)
        num_groups: shared_prefix: system prompts (inference-perf num_groups)
        num_prompts_per_group: shared_prefix: questions per system prompt
        system_prompt_len: shared_prefix: system prompt tokens
        question_len: shared_prefix: question tokens
        shared_prefix_output_len: shared_prefix: output tokens (inference-perf output_len)
        scheduler: vllm | vllm-v0 (vllm: the v1 scheduler)
        async_scheduling: vllm scheduler: the pass for step k+1 runs during step k (vLLM's --async-
            scheduling; kvsim's default)
        scheduler_recv_interval: --engine sglang, as SGLang's flag (scheduler_recv_skipper.py):
            during decode the scheduler takes in new requests once every N steps, and at the step
            after a prefill (0 or 1: every step; at most 1000, the prefill's weight in SGLang's
            counter)
        allocator: paged | contiguous
        reservation: contiguous: max | pow2 | oracle | prompt+max_tokens
        placement: contiguous: first-fit | best-fit | buddy
        step_time_ms: fixed step time instead of the per-operator model
        spec_acceptance: with --speculative-config: the probability each draft position is accepted,
            one rate (a -> a, a^2, ...) or one per position (0.8,0.6,0.4); replay draws from them
            per request and step (--seed), step takes the expected tokens per step, 1 + the sum of
            the rates
        adapter_disk_read: with --enable-lora: GB/s a LoRA checkpoint is read from disk on a host-
            cache miss (default: a PCIe 4.0 NVMe drive's sequential read)
        stepping: event (skip identical decode steps) | token (every request every step)
        exact_quantiles: latency quantiles from every value kept (memory grows with the trace)
            instead of the log-bucket sketch used beyond 4,096 values (within 0.5%)
        calibration: kernel efficiencies fitted by `kvsim calibrate` (a JSON file)
        compute_efficiency: step model: share of the dense tensor peak a large GEMM sustains, (0, 1]
            (default 0.75)
        memory_efficiency: step model: share of HBM bandwidth a weight-streaming GEMM sustains, (0,
            1] (default 0.8)
        step_overhead_ms: step model: the server's CPU time per step, ms, [0, 1000] (default 0.3)
        replicas: independent replicas of the deployment behind a router
        router: --replicas > 1: round-robin | least-requests | least-kv | prefix-affinity | session
        gpu_hourly_cost: USD per GPU-hour, or GPU=USD,... by GPU id: report GPU-hours, USD per
            million output tokens, tokens/s per GPU
        kv_offload: KV tiers below the GPU, per replica (summed over its GPUs): cpu=SIZE[,disk=SIZE]
            (e.g. cpu=64GiB,disk=1TiB; GiB = 2^30 B). Prompt chunks are stored as computed, a prefix
            found there is loaded before the request runs
        kv_offload_chunk_tokens: tokens per offloaded chunk, a multiple of --block-size (default:
            the block size; vLLM's block_size extra config)
        kv_host_link: GB/s[,LATENCY_US]: one GPU's host link, each direction (default: the GPU
            table's host_link_GB_per_s, latency 0)
        kv_disk: READ_GB/s,WRITE_GB/s,LATENCY_US of the disk tier, per GPU (required with disk=;
            e.g. 7.45,6.9,80)
        kv_offloading_size: vLLM: host KV buffer in GiB (2^30 B), summed over the TP ranks (= --kv-
            offload cpu=SIZEGiB)
        kv_offloading_backend: vLLM: native (OffloadingConnector) | lmcache (LMCacheConnectorV1);
            with --kv-offloading-size
        kv_transfer_config: vLLM JSON: OffloadingConnector (kv_connector_extra_config:
            cpu_bytes_to_use or num_cpu_blocks, block_size) or LMCacheConnectorV1 (host tier from
            --kv-offload); other connectors are refused
        timeseries: write memory/concurrency over time to FILE.csv
        sample_interval: time series: one row per S seconds (0: every step)
        requests: write one CSV row per request to FILE.csv
        omit_wall_time: write sim.wall_s as 0 so outputs are byte-identical across runs
        quiet: no console summary or progress
        model: config.json path, model directory, or preset id (kvsim models)
        gpu: GPU: short id (h100, a100-40gb, l4) or the name nvidia-smi/torch print (kvsim gpus)
        gpu_memory_gib: override the GPU's memory as CUDA reports it, GiB
        gpu_file: CSV of more GPUs, same columns as data/gpus.csv (looked up first)
        gpu_tflops: override the GPU's dense 16-bit tensor peak, TFLOPS (10^12 FLOP/s)
        gpu_bandwidth: override the GPU's memory bandwidth, GB/s (10^9 B/s; or e.g. 3.35TB/s)
        interconnect: auto | nvls | nvlink | pcie | xgmi: how TP GPUs connect (sizes NCCL buffers;
            auto: the GPU's)
        dtype: auto | float16 | bfloat16 | float32
        quantization: awq | gptq | fp8 | bitsandbytes | mxfp4 | compressed-tensors | int8 | int4 |
            none (default: what the checkpoint's quantization_config declares)
        kv_cache_dtype: auto | fp16 | bf16 | fp8 | fp8_e4m3 | fp8_e5m2 | int8 | int4 (int8/int4 are
            what-ifs)
        mamba_cache_dtype: auto | float32 | float16 | bfloat16: linear-attention / SSM state pages
            (auto: the model dtype)
        mamba_ssm_cache_dtype: auto | float32 | float16 | bfloat16: their SSM (temporal) state alone
            (auto: as --mamba-cache-dtype)
        tensor_parallel_size: tensor-parallel GPUs (-tp)
        pipeline_parallel_size: pipeline stages (-pp)
        pp_layer_partition: decoder layers per pipeline stage, e.g. 10,11,11 (vLLM's
            VLLM_PP_LAYER_PARTITION; default: equal shares, the remainder on the stages before the
            last)
        gpu_memory_utilization: fraction of GPU memory the engine may use (vLLM default 0.9; SGLang:
            mem_fraction_static)
        max_model_len: context length (default: the model's); 32k = 32000, 32K = 32768; auto or -1:
            the largest that fits, as vLLM picks it
        max_num_seqs: max running requests (default by GPU, as vLLM)
        max_num_batched_tokens: token budget per step (default by GPU, as vLLM)
        block_size: tokens per KV block (vLLM 16, TRT-LLM 32, SGLang 1)
        kv_cache_memory: fixed KV cache size in bytes (e.g. 20GiB); skips profiling
        enable_prefix_caching: prefix caching on (default)
        enable_chunked_prefill: chunked prefill on (vLLM V1's default)
        enforce_eager: no CUDA graphs: every kernel launched from the CPU
        hf_overrides: JSON merged into the model config before it is read (vLLM's --hf-overrides),
            e.g. a rope_scaling for longer context
        rope_scaling: JSON: the config's rope_scaling (older vLLM's --rope-scaling)
        allow_long_max_model_len: a --max-model-len past the model's limit is planned, with a
            warning (vLLM: VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)
        disable_hybrid_kv_cache_manager: allocate full-length KV for sliding-window layers
        vllm_version: vLLM release whose budgeting to reproduce: a release such as 0.30, 0.19, 0.11
            or 0.6.4, latest (the newest modelled), or v0 (the V0 engine); `kvsim releases` lists
            the rules by release
        engine: vllm | sglang | trtllm
        num_gpu_blocks_override: use this many KV blocks instead of the profiled number
        cpu_offload_gb: GiB of each GPU's weights kept in CPU memory
        data_parallel_size: data-parallel replicas (-dp), each with its own KV cache
        decode_context_parallel_size: decode context parallelism (-dcp): each request's KV cache
            spread over this many of the TP ranks, token by token
        enable_expert_parallel: shard MoE experts over TP x DP ranks
        all2all_backend: how MoE layers move tokens at --data-parallel-size > 1, as vLLM: naive |
            allgather_reducescatter | pplx | deepep_high_throughput | deepep_low_latency |
            flashinfer_all2allv (default: the release's; allgather_reducescatter from 0.11)
        disable_sliding_window: sliding-window layers keep the full context
        speculative_config: JSON, as vLLM: {"method": "eagle", "model": ID|PATH,
            "num_speculative_tokens": N}
        enable_lora: LoRA adapters: stacked A/B buffers for --max-loras slots before the KV cache
        max_loras: LoRA slots on the GPU (adapters in one batch; vLLM default 1)
        max_lora_rank: rank every slot is allocated at: 1, 8, 16, 32, 64, 128, 256, 320, 512
            (default 16)
        max_cpu_loras: adapters kept in host memory (LRU; default --max-loras)
        lora_dtype: auto | float16 | bfloat16: the adapter buffers (auto: model dtype)
        fully_sharded_loras: shard the LoRA A of column-parallel and B of row-parallel layers over
            TP too
        lora_extra_vocab_size: 256 | 512: tokens an adapter may add (vLLM 0.11; default 256)
        limit_mm_per_prompt: JSON, as vLLM: {"image": 1, "video": 0}
        mm_processor_kwargs: JSON, as vLLM: {"max_pixels": N}
        skip_mm_profiling: no encoder profile run (multimodal models)
        compilation_config: JSON, as vLLM (-cc): cudagraph_mode, cudagraph_capture_sizes,
            max_cudagraph_capture_size; or a level 0-3 (0: no graphs)
        optimization_level: 0-3, as vLLM 0.12 on (-O): 0 no compilation and no CUDA graphs, 1
            piecewise graphs, 2 and 3 the default (full and piecewise); a cudagraph_mode given in
            --compilation-config wins
        cudagraph_capture_sizes: batch sizes vLLM captures graphs for, e.g. 1,2,4,8
        max_cudagraph_capture_size: largest captured batch (vLLM: min(2 x max-num-seqs, 512))
        cuda_graph_estimate: on | off | auto: vLLM's start-up estimate of CUDA-graph memory taken
            out of the KV budget (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS; auto: on from vLLM 0.21)
        model_runner: auto | v1 | v2: the GPU model runner whose profile run sizes the KV budget
            (VLLM_USE_V2_MODEL_RUNNER=0 or 1; auto: the release's choice, V2 for every model from
            vLLM 0.29)
        cuda_graph_memory: CUDA-graph memory per GPU when a start-up log gave it (e.g. 0.91GiB),
            instead of kvsim's estimate
        prefill_replicas: prefill/decode disaggregation: P prefill instances (the deployment flags
            above), with --decode-replicas
        decode_replicas: D decode instances (the deployment flags with --decode-* applied)
        decode_gpu: the decode pool's GPU (default: --gpu)
        decode_tp: the decode pool's tensor parallel size (default: --tensor-parallel-size)
        decode_max_num_seqs: the decode pool's max-num-seqs (default: --max-num-seqs)
        decode_max_num_batched_tokens: the decode pool's max-num-batched-tokens (default: --max-num-
            batched-tokens)
        kv_link: prefill -> decode KV link, per GPU: nvlink (450 GB/s each way) | ib-400g (50 GB/s)
            | roce-200g (25 GB/s) | GB/s,LATENCY_US (GB/s = 10^9 B/s)
        kv_connector: the connector that pulls the prompt's KV: nixl (the decode worker posts each
            read before its step's forward, 6.7 ms per 1,785 descriptors, vllm#50913) | push (the
            prefill side sends or writes the KV, as P2pNcclConnector and Dynamo's vLLM patch: the
            link alone)
    """
    ...

def sweep(
    *,
    grid: Mapping[str, Sequence[Any]] | str | os.PathLike[str] | None = None,
    find: str | None = None,
    slo: Mapping[str, str] | str | None = None,
    sweep: _Value | None = None,
    objective: str = 'throughput',
    max_preemption_rate: _Value | None = None,
    find_max: int = 1024,
    precision: float = 0.01,
    jobs: int | None = None,
    broadcast_trace: bool = False,
    csv: _Value | None = None,
    bench_json: _Value | None = None,
    trace: _Value | None = None,
    trace_format: str = 'auto',
    delimiter: str = 'auto',
    model_filter: _Value | None = None,
    skip_bad_rows: bool = False,
    arrival_column: str = 'arrival',
    prompt_column: str = 'prompt_tokens',
    output_column: str = 'output_tokens',
    time_unit: str = 's',
    synthetic: _Value | None = None,
    arrival: str = 'poisson',
    rate: _Value | None = None,
    max_concurrency: _Value | None = None,
    cv: int = 1,
    prompt_len: _Value | None = None,
    output_len: _Value | None = None,
    seed: int = 1,
    max_requests: _Value | None = None,
    start: _Value | None = None,
    duration: _Value | None = None,
    rate_scale: int = 1,
    repeat: int = 1,
    shared_prefix: _Value | None = None,
    conversations: _Value | None = None,
    adapter_column: _Value | None = None,
    adapters: _Value | None = None,
    adapter_popularity: _Value | None = None,
    dataset_name: _Value | None = None,
    random_input_len: _Value | None = None,
    random_output_len: _Value | None = None,
    random_range_ratio: _Value | None = None,
    random_prefix_len: _Value | None = None,
    prefix_repetition_prefix_len: _Value | None = None,
    prefix_repetition_suffix_len: _Value | None = None,
    prefix_repetition_num_prefixes: _Value | None = None,
    prefix_repetition_output_len: _Value | None = None,
    num_groups: _Value | None = None,
    num_prompts_per_group: _Value | None = None,
    system_prompt_len: _Value | None = None,
    question_len: _Value | None = None,
    shared_prefix_output_len: _Value | None = None,
    scheduler: str = 'vllm',
    async_scheduling: bool = False,
    scheduler_recv_interval: int = 1,
    allocator: str = 'paged',
    reservation: str = 'max',
    placement: str = 'first-fit',
    step_time_ms: _Value | None = None,
    spec_acceptance: _Value | None = None,
    adapter_disk_read: float = 7.45,
    stepping: str = 'event',
    exact_quantiles: bool = False,
    calibration: _Value | None = None,
    compute_efficiency: _Value | None = None,
    memory_efficiency: _Value | None = None,
    step_overhead_ms: _Value | None = None,
    replicas: int = 1,
    router: str = 'round-robin',
    gpu_hourly_cost: _Value | None = None,
    kv_offload: _Value | None = None,
    kv_offload_chunk_tokens: _Value | None = None,
    kv_host_link: _Value | None = None,
    kv_disk: _Value | None = None,
    kv_offloading_size: _Value | None = None,
    kv_offloading_backend: _Value | None = None,
    kv_transfer_config: _Value | None = None,
    timeseries: _Value | None = None,
    sample_interval: int = 0,
    requests: _Value | None = None,
    report: _Value | None = None,
    omit_wall_time: bool = False,
    quiet: bool = False,
    model: str = 'meta-llama/Llama-3.1-8B-Instruct',
    gpu: str = 'a100-80gb',
    gpu_memory_gib: _Value | None = None,
    gpu_file: _Value | None = None,
    gpu_tflops: _Value | None = None,
    gpu_bandwidth: _Value | None = None,
    interconnect: str = 'auto',
    dtype: str = 'auto',
    quantization: _Value | None = None,
    kv_cache_dtype: str = 'auto',
    mamba_cache_dtype: str = 'auto',
    mamba_ssm_cache_dtype: str = 'auto',
    tensor_parallel_size: int = 1,
    pipeline_parallel_size: int = 1,
    pp_layer_partition: _Value | None = None,
    gpu_memory_utilization: _Value | None = None,
    max_model_len: _Value | None = None,
    max_num_seqs: _Value | None = None,
    max_num_batched_tokens: _Value | None = None,
    block_size: _Value | None = None,
    kv_cache_memory: _Value | None = None,
    enable_prefix_caching: bool = True,
    enable_chunked_prefill: bool = False,
    enforce_eager: bool = False,
    hf_overrides: _Value | None = None,
    rope_scaling: _Value | None = None,
    allow_long_max_model_len: bool = False,
    disable_hybrid_kv_cache_manager: bool = False,
    vllm_version: str = '0.30',
    engine: str = 'vllm',
    num_gpu_blocks_override: _Value | None = None,
    cpu_offload_gb: _Value | None = None,
    data_parallel_size: int = 1,
    decode_context_parallel_size: int = 1,
    enable_expert_parallel: bool = False,
    all2all_backend: _Value | None = None,
    disable_sliding_window: bool = False,
    speculative_config: _Value | None = None,
    enable_lora: bool = False,
    max_loras: _Value | None = None,
    max_lora_rank: _Value | None = None,
    max_cpu_loras: _Value | None = None,
    lora_dtype: str = 'auto',
    fully_sharded_loras: bool = False,
    lora_extra_vocab_size: _Value | None = None,
    limit_mm_per_prompt: _Value | None = None,
    mm_processor_kwargs: _Value | None = None,
    skip_mm_profiling: bool = False,
    compilation_config: _Value | None = None,
    optimization_level: _Value | None = None,
    cudagraph_capture_sizes: _Value | None = None,
    max_cudagraph_capture_size: _Value | None = None,
    cuda_graph_estimate: str = 'auto',
    model_runner: str = 'auto',
    cuda_graph_memory: _Value | None = None,
    prefill_replicas: _Value | None = None,
    decode_replicas: _Value | None = None,
    decode_gpu: _Value | None = None,
    decode_tp: _Value | None = None,
    decode_max_num_seqs: _Value | None = None,
    decode_max_num_batched_tokens: _Value | None = None,
    kv_link: str = 'ib-400g',
    kv_connector: str = 'nixl'
) -> SweepResult:
    """kvsim sweep: grid={option: [values]} replays every combination; find= searches; slo={'ttft_p99': '2s'}.

    Args (the flags of `kvsim sweep --help`):
        sweep: OPTION=V1,V2,...: an axis of the grid (repeatable; the first is outermost); a JSON
            value keeps its commas: speculative-config={...},{...}
        objective: throughput | goodput (requests/s meeting the per-request SLO) | cost (cheapest
            per output token; needs --gpu-hourly-cost)
        max_preemption_rate: constraint: preemptions per finished request
        find_max: --find max-num-seqs: the largest cap considered; --find replicas: the most
            replicas (at most 256); --find pd-ratio: the instances to split
        precision: --find rate-scale: relative precision
        jobs: replays run in parallel (default: all cores)
        broadcast_trace: under mpirun: rank 0 reads the trace and sends it to every rank (node-local
            disks)
        csv: write one row per point to FILE.csv
        bench_json: write the summary to FILE in `vllm bench serve`'s result schema (mean_ttft_ms,
            median_ttft_ms, std_ttft_ms, p99_ttft_ms, ... in milliseconds; ttft as the client
            measures it; - for standard output)
        trace: trace file (default: bundled Azure conversation trace)
        trace_format: auto | azure | burstgpt | vidur | mooncake | csv | lengths
        delimiter: CSV traces: auto (from the header: comma, else tab, semicolon or bar) | , | tab |
            ; | |
        model_filter: burstgpt: keep rows of this Model
        skip_bad_rows: count malformed rows as warnings instead of failing
        arrival_column: csv: arrival time column
        prompt_column: csv: prompt tokens column
        output_column: csv: output tokens column
        time_unit: csv: s | ms | us | ns | datetime
        synthetic: generate N requests instead of reading a trace
        arrival: synthetic / lengths arrivals: poisson | gamma
        rate: synthetic / lengths-file arrival rate, requests/s (a timestamped trace: --rate-scale);
            with --max-concurrency the requests are scheduled at this rate, and all at once without
            it (vllm bench serve's default --request-rate inf)
        max_concurrency: closed-loop load: N clients, each sending its next request when its last
            one ends (vllm bench serve --max-concurrency; inference-perf's constant concurrency;
            genai-perf --concurrency); a request is sent at the later of its arrival time and a
            client being free
        cv: gamma arrivals: coefficient of variation of the gaps
        prompt_len: synthetic prompt lengths: fixed:N | uniform:A:B | lognormal:MEDIAN:SIGMA |
            empirical:FILE[:COLUMN] (default lognormal:1000:0.8)
        output_len: synthetic output lengths, same forms (default lognormal:200:0.8)
        seed: seed for every random choice
        max_requests: stop after N requests
        start: skip arrivals before this many seconds
        duration: keep this many seconds of arrivals
        rate_scale: divide arrival times by S (S > 1: more load)
        repeat: tile the trace K times back to back
        shared_prefix: K:LEN: each request starts with one of K system prompts of LEN tokens
            (uniform)
        conversations: T:THINK_S: each request starts a T-turn conversation, turns THINK_S s apart
            (exponential)
        adapter_column: with --enable-lora: the trace column (CSV header, Mooncake key) naming each
            request's LoRA adapter; an empty cell is the base model
        adapters: with --enable-lora: N LoRA adapters, one drawn per request (per conversation) from
            --seed
        adapter_popularity: with --adapters: uniform | zipf:S (adapter k drawn with probability
            proportional to 1/k^S; default uniform)
        dataset_name: with --synthetic N: draw the requests from a benchmark's dataset: random |
            prefix_repetition | shared_prefix (vllm bench serve's random and prefix_repetition,
            inference-perf's shared_prefix)
        random_input_len: random: mean input tokens (default 1024)
        random_output_len: random: mean output tokens (default 128)
        random_range_ratio: random: lengths uniform in [L(1-R), L(1+R)], 0 <= R < 1 (default 0)
        random_prefix_len: random: tokens of one prefix every request shares (default 0)
        prefix_repetition_prefix_len: prefix_repetition: prefix tokens (default 256)
        prefix_repetition_suffix_len: prefix_repetition: suffix tokens (default 256)
        prefix_repetition_num_prefixes: prefix_repetition: prefixes (default 10)
        prefix_repetition_output_len: prefix_repetition: output tokens (default 128)
        num_groups: shared_prefix: system prompts (inference-perf num_groups)
        num_prompts_per_group: shared_prefix: questions per system prompt
        system_prompt_len: shared_prefix: system prompt tokens
        question_len: shared_prefix: question tokens
        shared_prefix_output_len: shared_prefix: output tokens (inference-perf output_len)
        scheduler: vllm | vllm-v0 (vllm: the v1 scheduler)
        async_scheduling: vllm scheduler: the pass for step k+1 runs during step k (vLLM's --async-
            scheduling; kvsim's default)
        scheduler_recv_interval: --engine sglang, as SGLang's flag (scheduler_recv_skipper.py):
            during decode the scheduler takes in new requests once every N steps, and at the step
            after a prefill (0 or 1: every step; at most 1000, the prefill's weight in SGLang's
            counter)
        allocator: paged | contiguous
        reservation: contiguous: max | pow2 | oracle | prompt+max_tokens
        placement: contiguous: first-fit | best-fit | buddy
        step_time_ms: fixed step time instead of the per-operator model
        spec_acceptance: with --speculative-config: the probability each draft position is accepted,
            one rate (a -> a, a^2, ...) or one per position (0.8,0.6,0.4); replay draws from them
            per request and step (--seed), step takes the expected tokens per step, 1 + the sum of
            the rates
        adapter_disk_read: with --enable-lora: GB/s a LoRA checkpoint is read from disk on a host-
            cache miss (default: a PCIe 4.0 NVMe drive's sequential read)
        stepping: event (skip identical decode steps) | token (every request every step)
        exact_quantiles: latency quantiles from every value kept (memory grows with the trace)
            instead of the log-bucket sketch used beyond 4,096 values (within 0.5%)
        calibration: kernel efficiencies fitted by `kvsim calibrate` (a JSON file)
        compute_efficiency: step model: share of the dense tensor peak a large GEMM sustains, (0, 1]
            (default 0.75)
        memory_efficiency: step model: share of HBM bandwidth a weight-streaming GEMM sustains, (0,
            1] (default 0.8)
        step_overhead_ms: step model: the server's CPU time per step, ms, [0, 1000] (default 0.3)
        replicas: independent replicas of the deployment behind a router
        router: --replicas > 1: round-robin | least-requests | least-kv | prefix-affinity | session
        gpu_hourly_cost: USD per GPU-hour, or GPU=USD,... by GPU id: report GPU-hours, USD per
            million output tokens, tokens/s per GPU
        kv_offload: KV tiers below the GPU, per replica (summed over its GPUs): cpu=SIZE[,disk=SIZE]
            (e.g. cpu=64GiB,disk=1TiB; GiB = 2^30 B). Prompt chunks are stored as computed, a prefix
            found there is loaded before the request runs
        kv_offload_chunk_tokens: tokens per offloaded chunk, a multiple of --block-size (default:
            the block size; vLLM's block_size extra config)
        kv_host_link: GB/s[,LATENCY_US]: one GPU's host link, each direction (default: the GPU
            table's host_link_GB_per_s, latency 0)
        kv_disk: READ_GB/s,WRITE_GB/s,LATENCY_US of the disk tier, per GPU (required with disk=;
            e.g. 7.45,6.9,80)
        kv_offloading_size: vLLM: host KV buffer in GiB (2^30 B), summed over the TP ranks (= --kv-
            offload cpu=SIZEGiB)
        kv_offloading_backend: vLLM: native (OffloadingConnector) | lmcache (LMCacheConnectorV1);
            with --kv-offloading-size
        kv_transfer_config: vLLM JSON: OffloadingConnector (kv_connector_extra_config:
            cpu_bytes_to_use or num_cpu_blocks, block_size) or LMCacheConnectorV1 (host tier from
            --kv-offload); other connectors are refused
        timeseries: write memory/concurrency over time to FILE.csv
        sample_interval: time series: one row per S seconds (0: every step)
        requests: write one CSV row per request to FILE.csv
        report: write a self-contained HTML report with charts to FILE.html
        omit_wall_time: write sim.wall_s as 0 so outputs are byte-identical across runs
        quiet: no console summary or progress
        model: config.json path, model directory, or preset id (kvsim models)
        gpu: GPU: short id (h100, a100-40gb, l4) or the name nvidia-smi/torch print (kvsim gpus)
        gpu_memory_gib: override the GPU's memory as CUDA reports it, GiB
        gpu_file: CSV of more GPUs, same columns as data/gpus.csv (looked up first)
        gpu_tflops: override the GPU's dense 16-bit tensor peak, TFLOPS (10^12 FLOP/s)
        gpu_bandwidth: override the GPU's memory bandwidth, GB/s (10^9 B/s; or e.g. 3.35TB/s)
        interconnect: auto | nvls | nvlink | pcie | xgmi: how TP GPUs connect (sizes NCCL buffers;
            auto: the GPU's)
        dtype: auto | float16 | bfloat16 | float32
        quantization: awq | gptq | fp8 | bitsandbytes | mxfp4 | compressed-tensors | int8 | int4 |
            none (default: what the checkpoint's quantization_config declares)
        kv_cache_dtype: auto | fp16 | bf16 | fp8 | fp8_e4m3 | fp8_e5m2 | int8 | int4 (int8/int4 are
            what-ifs)
        mamba_cache_dtype: auto | float32 | float16 | bfloat16: linear-attention / SSM state pages
            (auto: the model dtype)
        mamba_ssm_cache_dtype: auto | float32 | float16 | bfloat16: their SSM (temporal) state alone
            (auto: as --mamba-cache-dtype)
        tensor_parallel_size: tensor-parallel GPUs (-tp)
        pipeline_parallel_size: pipeline stages (-pp)
        pp_layer_partition: decoder layers per pipeline stage, e.g. 10,11,11 (vLLM's
            VLLM_PP_LAYER_PARTITION; default: equal shares, the remainder on the stages before the
            last)
        gpu_memory_utilization: fraction of GPU memory the engine may use (vLLM default 0.9; SGLang:
            mem_fraction_static)
        max_model_len: context length (default: the model's); 32k = 32000, 32K = 32768; auto or -1:
            the largest that fits, as vLLM picks it
        max_num_seqs: max running requests (default by GPU, as vLLM)
        max_num_batched_tokens: token budget per step (default by GPU, as vLLM)
        block_size: tokens per KV block (vLLM 16, TRT-LLM 32, SGLang 1)
        kv_cache_memory: fixed KV cache size in bytes (e.g. 20GiB); skips profiling
        enable_prefix_caching: prefix caching on (default)
        enable_chunked_prefill: chunked prefill on (vLLM V1's default)
        enforce_eager: no CUDA graphs: every kernel launched from the CPU
        hf_overrides: JSON merged into the model config before it is read (vLLM's --hf-overrides),
            e.g. a rope_scaling for longer context
        rope_scaling: JSON: the config's rope_scaling (older vLLM's --rope-scaling)
        allow_long_max_model_len: a --max-model-len past the model's limit is planned, with a
            warning (vLLM: VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)
        disable_hybrid_kv_cache_manager: allocate full-length KV for sliding-window layers
        vllm_version: vLLM release whose budgeting to reproduce: a release such as 0.30, 0.19, 0.11
            or 0.6.4, latest (the newest modelled), or v0 (the V0 engine); `kvsim releases` lists
            the rules by release
        engine: vllm | sglang | trtllm
        num_gpu_blocks_override: use this many KV blocks instead of the profiled number
        cpu_offload_gb: GiB of each GPU's weights kept in CPU memory
        data_parallel_size: data-parallel replicas (-dp), each with its own KV cache
        decode_context_parallel_size: decode context parallelism (-dcp): each request's KV cache
            spread over this many of the TP ranks, token by token
        enable_expert_parallel: shard MoE experts over TP x DP ranks
        all2all_backend: how MoE layers move tokens at --data-parallel-size > 1, as vLLM: naive |
            allgather_reducescatter | pplx | deepep_high_throughput | deepep_low_latency |
            flashinfer_all2allv (default: the release's; allgather_reducescatter from 0.11)
        disable_sliding_window: sliding-window layers keep the full context
        speculative_config: JSON, as vLLM: {"method": "eagle", "model": ID|PATH,
            "num_speculative_tokens": N}
        enable_lora: LoRA adapters: stacked A/B buffers for --max-loras slots before the KV cache
        max_loras: LoRA slots on the GPU (adapters in one batch; vLLM default 1)
        max_lora_rank: rank every slot is allocated at: 1, 8, 16, 32, 64, 128, 256, 320, 512
            (default 16)
        max_cpu_loras: adapters kept in host memory (LRU; default --max-loras)
        lora_dtype: auto | float16 | bfloat16: the adapter buffers (auto: model dtype)
        fully_sharded_loras: shard the LoRA A of column-parallel and B of row-parallel layers over
            TP too
        lora_extra_vocab_size: 256 | 512: tokens an adapter may add (vLLM 0.11; default 256)
        limit_mm_per_prompt: JSON, as vLLM: {"image": 1, "video": 0}
        mm_processor_kwargs: JSON, as vLLM: {"max_pixels": N}
        skip_mm_profiling: no encoder profile run (multimodal models)
        compilation_config: JSON, as vLLM (-cc): cudagraph_mode, cudagraph_capture_sizes,
            max_cudagraph_capture_size; or a level 0-3 (0: no graphs)
        optimization_level: 0-3, as vLLM 0.12 on (-O): 0 no compilation and no CUDA graphs, 1
            piecewise graphs, 2 and 3 the default (full and piecewise); a cudagraph_mode given in
            --compilation-config wins
        cudagraph_capture_sizes: batch sizes vLLM captures graphs for, e.g. 1,2,4,8
        max_cudagraph_capture_size: largest captured batch (vLLM: min(2 x max-num-seqs, 512))
        cuda_graph_estimate: on | off | auto: vLLM's start-up estimate of CUDA-graph memory taken
            out of the KV budget (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS; auto: on from vLLM 0.21)
        model_runner: auto | v1 | v2: the GPU model runner whose profile run sizes the KV budget
            (VLLM_USE_V2_MODEL_RUNNER=0 or 1; auto: the release's choice, V2 for every model from
            vLLM 0.29)
        cuda_graph_memory: CUDA-graph memory per GPU when a start-up log gave it (e.g. 0.91GiB),
            instead of kvsim's estimate
        prefill_replicas: prefill/decode disaggregation: P prefill instances (the deployment flags
            above), with --decode-replicas
        decode_replicas: D decode instances (the deployment flags with --decode-* applied)
        decode_gpu: the decode pool's GPU (default: --gpu)
        decode_tp: the decode pool's tensor parallel size (default: --tensor-parallel-size)
        decode_max_num_seqs: the decode pool's max-num-seqs (default: --max-num-seqs)
        decode_max_num_batched_tokens: the decode pool's max-num-batched-tokens (default: --max-num-
            batched-tokens)
        kv_link: prefill -> decode KV link, per GPU: nvlink (450 GB/s each way) | ib-400g (50 GB/s)
            | roce-200g (25 GB/s) | GB/s,LATENCY_US (GB/s = 10^9 B/s)
        kv_connector: the connector that pulls the prompt's KV: nixl (the decode worker posts each
            read before its step's forward, 6.7 ms per 1,785 descriptors, vllm#50913) | push (the
            prefill side sends or writes the KV, as P2pNcclConnector and Dynamo's vLLM patch: the
            link alone)
    """
    ...

def plan(
    *,
    slo: Mapping[str, str] | str | None = None,
    gpus: str = 'a100-80gb',
    tp: str = '1,2,4,8',
    pp: int = 1,
    formats: str = 'checkpoint',
    kv_cache_dtypes: str = 'auto',
    max_num_seqs: str = '64,256',
    max_num_batched_tokens: str = '2048,8192',
    pd_ratios: _Value | None = None,
    max_preemption_rate: _Value | None = None,
    objective: str = 'cost',
    max_replicas: int = 16,
    max_gpus: int = 0,
    exhaustive: bool = False,
    robust: bool = False,
    jobs: int | None = None,
    csv: _Value | None = None,
    report: _Value | None = None,
    bench_json: _Value | None = None,
    trace: _Value | None = None,
    trace_format: str = 'auto',
    delimiter: str = 'auto',
    model_filter: _Value | None = None,
    skip_bad_rows: bool = False,
    arrival_column: str = 'arrival',
    prompt_column: str = 'prompt_tokens',
    output_column: str = 'output_tokens',
    time_unit: str = 's',
    synthetic: _Value | None = None,
    arrival: str = 'poisson',
    rate: _Value | None = None,
    max_concurrency: _Value | None = None,
    cv: int = 1,
    prompt_len: _Value | None = None,
    output_len: _Value | None = None,
    seed: int = 1,
    max_requests: _Value | None = None,
    start: _Value | None = None,
    duration: _Value | None = None,
    rate_scale: int = 1,
    repeat: int = 1,
    shared_prefix: _Value | None = None,
    conversations: _Value | None = None,
    adapter_column: _Value | None = None,
    adapters: _Value | None = None,
    adapter_popularity: _Value | None = None,
    dataset_name: _Value | None = None,
    random_input_len: _Value | None = None,
    random_output_len: _Value | None = None,
    random_range_ratio: _Value | None = None,
    random_prefix_len: _Value | None = None,
    prefix_repetition_prefix_len: _Value | None = None,
    prefix_repetition_suffix_len: _Value | None = None,
    prefix_repetition_num_prefixes: _Value | None = None,
    prefix_repetition_output_len: _Value | None = None,
    num_groups: _Value | None = None,
    num_prompts_per_group: _Value | None = None,
    system_prompt_len: _Value | None = None,
    question_len: _Value | None = None,
    shared_prefix_output_len: _Value | None = None,
    scheduler: str = 'vllm',
    async_scheduling: bool = False,
    scheduler_recv_interval: int = 1,
    allocator: str = 'paged',
    reservation: str = 'max',
    placement: str = 'first-fit',
    step_time_ms: _Value | None = None,
    spec_acceptance: _Value | None = None,
    adapter_disk_read: float = 7.45,
    stepping: str = 'event',
    exact_quantiles: bool = False,
    calibration: _Value | None = None,
    compute_efficiency: _Value | None = None,
    memory_efficiency: _Value | None = None,
    step_overhead_ms: _Value | None = None,
    replicas: int = 1,
    router: str = 'round-robin',
    gpu_hourly_cost: _Value | None = None,
    kv_offload: _Value | None = None,
    kv_offload_chunk_tokens: _Value | None = None,
    kv_host_link: _Value | None = None,
    kv_disk: _Value | None = None,
    kv_offloading_size: _Value | None = None,
    kv_offloading_backend: _Value | None = None,
    kv_transfer_config: _Value | None = None,
    timeseries: _Value | None = None,
    sample_interval: int = 0,
    requests: _Value | None = None,
    omit_wall_time: bool = False,
    quiet: bool = False,
    model: str = 'meta-llama/Llama-3.1-8B-Instruct',
    gpu: str = 'a100-80gb',
    gpu_memory_gib: _Value | None = None,
    gpu_file: _Value | None = None,
    gpu_tflops: _Value | None = None,
    gpu_bandwidth: _Value | None = None,
    interconnect: str = 'auto',
    dtype: str = 'auto',
    quantization: _Value | None = None,
    kv_cache_dtype: str = 'auto',
    mamba_cache_dtype: str = 'auto',
    mamba_ssm_cache_dtype: str = 'auto',
    tensor_parallel_size: int = 1,
    pipeline_parallel_size: int = 1,
    pp_layer_partition: _Value | None = None,
    gpu_memory_utilization: _Value | None = None,
    max_model_len: _Value | None = None,
    block_size: _Value | None = None,
    kv_cache_memory: _Value | None = None,
    enable_prefix_caching: bool = True,
    enable_chunked_prefill: bool = False,
    enforce_eager: bool = False,
    hf_overrides: _Value | None = None,
    rope_scaling: _Value | None = None,
    allow_long_max_model_len: bool = False,
    disable_hybrid_kv_cache_manager: bool = False,
    vllm_version: str = '0.30',
    engine: str = 'vllm',
    num_gpu_blocks_override: _Value | None = None,
    cpu_offload_gb: _Value | None = None,
    data_parallel_size: int = 1,
    decode_context_parallel_size: int = 1,
    enable_expert_parallel: bool = False,
    all2all_backend: _Value | None = None,
    disable_sliding_window: bool = False,
    speculative_config: _Value | None = None,
    enable_lora: bool = False,
    max_loras: _Value | None = None,
    max_lora_rank: _Value | None = None,
    max_cpu_loras: _Value | None = None,
    lora_dtype: str = 'auto',
    fully_sharded_loras: bool = False,
    lora_extra_vocab_size: _Value | None = None,
    limit_mm_per_prompt: _Value | None = None,
    mm_processor_kwargs: _Value | None = None,
    skip_mm_profiling: bool = False,
    compilation_config: _Value | None = None,
    optimization_level: _Value | None = None,
    cudagraph_capture_sizes: _Value | None = None,
    max_cudagraph_capture_size: _Value | None = None,
    cuda_graph_estimate: str = 'auto',
    model_runner: str = 'auto',
    cuda_graph_memory: _Value | None = None,
    prefill_replicas: _Value | None = None,
    decode_replicas: _Value | None = None,
    decode_gpu: _Value | None = None,
    decode_tp: _Value | None = None,
    decode_max_num_seqs: _Value | None = None,
    decode_max_num_batched_tokens: _Value | None = None,
    kv_link: str = 'ib-400g',
    kv_connector: str = 'nixl'
) -> PlanResult:
    """kvsim plan: the cheapest deployment meeting the SLOs; axes as lists (gpus=['l40s', 'h100']).

    Args (the flags of `kvsim plan --help`):
        gpus: GPU types, comma-separated (kvsim gpus lists them)
        tp: tensor-parallel sizes (one that does not divide the heads is skipped with the reason)
        pp: pipeline-parallel sizes
        formats: weight formats: checkpoint (the model's own) and --quantization values (fp8, awq,
            gptq, ...)
        kv_cache_dtypes: KV-cache dtypes (auto, fp8, ...)
        max_num_seqs: batch caps
        max_num_batched_tokens: token budgets per step
        pd_ratios: prefill/decode splits P:D, comma-separated (1:1,1:2,2:1): each adds a P/D
            configuration next to every aggregated one, searched in units of P prefill + D decode
            instances; the decode pool runs the prefill pool's GPU, TP, PP, format and batch
            settings; the KV link is --kv-link
        max_preemption_rate: constraint: preemptions per finished request
        objective: cost (lowest price; needs --gpu-hourly-cost) | gpus (fewest) | latency (lowest
            latency of the first SLO)
        max_replicas: the most replicas of one configuration (at most 256)
        max_gpus: the most GPUs of the whole fleet (0: no limit)
        exhaustive: replay every replica count of every configuration (checks the pruned search)
        robust: judge the SLOs at the pessimistic edge of kvsim's measured error bands
        jobs: replays run in parallel (default: all cores)
        csv: write one row per configuration to FILE.csv
        report: write an HTML page with the Pareto chart
        bench_json: write the summary to FILE in `vllm bench serve`'s result schema (mean_ttft_ms,
            median_ttft_ms, std_ttft_ms, p99_ttft_ms, ... in milliseconds; ttft as the client
            measures it; - for standard output)
        trace: trace file (default: bundled Azure conversation trace)
        trace_format: auto | azure | burstgpt | vidur | mooncake | csv | lengths
        delimiter: CSV traces: auto (from the header: comma, else tab, semicolon or bar) | , | tab |
            ; | |
        model_filter: burstgpt: keep rows of this Model
        skip_bad_rows: count malformed rows as warnings instead of failing
        arrival_column: csv: arrival time column
        prompt_column: csv: prompt tokens column
        output_column: csv: output tokens column
        time_unit: csv: s | ms | us | ns | datetime
        synthetic: generate N requests instead of reading a trace
        arrival: synthetic / lengths arrivals: poisson | gamma
        rate: synthetic / lengths-file arrival rate, requests/s (a timestamped trace: --rate-scale);
            with --max-concurrency the requests are scheduled at this rate, and all at once without
            it (vllm bench serve's default --request-rate inf)
        max_concurrency: closed-loop load: N clients, each sending its next request when its last
            one ends (vllm bench serve --max-concurrency; inference-perf's constant concurrency;
            genai-perf --concurrency); a request is sent at the later of its arrival time and a
            client being free
        cv: gamma arrivals: coefficient of variation of the gaps
        prompt_len: synthetic prompt lengths: fixed:N | uniform:A:B | lognormal:MEDIAN:SIGMA |
            empirical:FILE[:COLUMN] (default lognormal:1000:0.8)
        output_len: synthetic output lengths, same forms (default lognormal:200:0.8)
        seed: seed for every random choice
        max_requests: stop after N requests
        start: skip arrivals before this many seconds
        duration: keep this many seconds of arrivals
        rate_scale: divide arrival times by S (S > 1: more load)
        repeat: tile the trace K times back to back
        shared_prefix: K:LEN: each request starts with one of K system prompts of LEN tokens
            (uniform)
        conversations: T:THINK_S: each request starts a T-turn conversation, turns THINK_S s apart
            (exponential)
        adapter_column: with --enable-lora: the trace column (CSV header, Mooncake key) naming each
            request's LoRA adapter; an empty cell is the base model
        adapters: with --enable-lora: N LoRA adapters, one drawn per request (per conversation) from
            --seed
        adapter_popularity: with --adapters: uniform | zipf:S (adapter k drawn with probability
            proportional to 1/k^S; default uniform)
        dataset_name: with --synthetic N: draw the requests from a benchmark's dataset: random |
            prefix_repetition | shared_prefix (vllm bench serve's random and prefix_repetition,
            inference-perf's shared_prefix)
        random_input_len: random: mean input tokens (default 1024)
        random_output_len: random: mean output tokens (default 128)
        random_range_ratio: random: lengths uniform in [L(1-R), L(1+R)], 0 <= R < 1 (default 0)
        random_prefix_len: random: tokens of one prefix every request shares (default 0)
        prefix_repetition_prefix_len: prefix_repetition: prefix tokens (default 256)
        prefix_repetition_suffix_len: prefix_repetition: suffix tokens (default 256)
        prefix_repetition_num_prefixes: prefix_repetition: prefixes (default 10)
        prefix_repetition_output_len: prefix_repetition: output tokens (default 128)
        num_groups: shared_prefix: system prompts (inference-perf num_groups)
        num_prompts_per_group: shared_prefix: questions per system prompt
        system_prompt_len: shared_prefix: system prompt tokens
        question_len: shared_prefix: question tokens
        shared_prefix_output_len: shared_prefix: output tokens (inference-perf output_len)
        scheduler: vllm | vllm-v0 (vllm: the v1 scheduler)
        async_scheduling: vllm scheduler: the pass for step k+1 runs during step k (vLLM's --async-
            scheduling; kvsim's default)
        scheduler_recv_interval: --engine sglang, as SGLang's flag (scheduler_recv_skipper.py):
            during decode the scheduler takes in new requests once every N steps, and at the step
            after a prefill (0 or 1: every step; at most 1000, the prefill's weight in SGLang's
            counter)
        allocator: paged | contiguous
        reservation: contiguous: max | pow2 | oracle | prompt+max_tokens
        placement: contiguous: first-fit | best-fit | buddy
        step_time_ms: fixed step time instead of the per-operator model
        spec_acceptance: with --speculative-config: the probability each draft position is accepted,
            one rate (a -> a, a^2, ...) or one per position (0.8,0.6,0.4); replay draws from them
            per request and step (--seed), step takes the expected tokens per step, 1 + the sum of
            the rates
        adapter_disk_read: with --enable-lora: GB/s a LoRA checkpoint is read from disk on a host-
            cache miss (default: a PCIe 4.0 NVMe drive's sequential read)
        stepping: event (skip identical decode steps) | token (every request every step)
        exact_quantiles: latency quantiles from every value kept (memory grows with the trace)
            instead of the log-bucket sketch used beyond 4,096 values (within 0.5%)
        calibration: kernel efficiencies fitted by `kvsim calibrate` (a JSON file)
        compute_efficiency: step model: share of the dense tensor peak a large GEMM sustains, (0, 1]
            (default 0.75)
        memory_efficiency: step model: share of HBM bandwidth a weight-streaming GEMM sustains, (0,
            1] (default 0.8)
        step_overhead_ms: step model: the server's CPU time per step, ms, [0, 1000] (default 0.3)
        replicas: independent replicas of the deployment behind a router
        router: --replicas > 1: round-robin | least-requests | least-kv | prefix-affinity | session
        gpu_hourly_cost: USD per GPU-hour, or GPU=USD,... by GPU id: report GPU-hours, USD per
            million output tokens, tokens/s per GPU
        kv_offload: KV tiers below the GPU, per replica (summed over its GPUs): cpu=SIZE[,disk=SIZE]
            (e.g. cpu=64GiB,disk=1TiB; GiB = 2^30 B). Prompt chunks are stored as computed, a prefix
            found there is loaded before the request runs
        kv_offload_chunk_tokens: tokens per offloaded chunk, a multiple of --block-size (default:
            the block size; vLLM's block_size extra config)
        kv_host_link: GB/s[,LATENCY_US]: one GPU's host link, each direction (default: the GPU
            table's host_link_GB_per_s, latency 0)
        kv_disk: READ_GB/s,WRITE_GB/s,LATENCY_US of the disk tier, per GPU (required with disk=;
            e.g. 7.45,6.9,80)
        kv_offloading_size: vLLM: host KV buffer in GiB (2^30 B), summed over the TP ranks (= --kv-
            offload cpu=SIZEGiB)
        kv_offloading_backend: vLLM: native (OffloadingConnector) | lmcache (LMCacheConnectorV1);
            with --kv-offloading-size
        kv_transfer_config: vLLM JSON: OffloadingConnector (kv_connector_extra_config:
            cpu_bytes_to_use or num_cpu_blocks, block_size) or LMCacheConnectorV1 (host tier from
            --kv-offload); other connectors are refused
        timeseries: write memory/concurrency over time to FILE.csv
        sample_interval: time series: one row per S seconds (0: every step)
        requests: write one CSV row per request to FILE.csv
        omit_wall_time: write sim.wall_s as 0 so outputs are byte-identical across runs
        quiet: no console summary or progress
        model: config.json path, model directory, or preset id (kvsim models)
        gpu: GPU: short id (h100, a100-40gb, l4) or the name nvidia-smi/torch print (kvsim gpus)
        gpu_memory_gib: override the GPU's memory as CUDA reports it, GiB
        gpu_file: CSV of more GPUs, same columns as data/gpus.csv (looked up first)
        gpu_tflops: override the GPU's dense 16-bit tensor peak, TFLOPS (10^12 FLOP/s)
        gpu_bandwidth: override the GPU's memory bandwidth, GB/s (10^9 B/s; or e.g. 3.35TB/s)
        interconnect: auto | nvls | nvlink | pcie | xgmi: how TP GPUs connect (sizes NCCL buffers;
            auto: the GPU's)
        dtype: auto | float16 | bfloat16 | float32
        quantization: awq | gptq | fp8 | bitsandbytes | mxfp4 | compressed-tensors | int8 | int4 |
            none (default: what the checkpoint's quantization_config declares)
        kv_cache_dtype: auto | fp16 | bf16 | fp8 | fp8_e4m3 | fp8_e5m2 | int8 | int4 (int8/int4 are
            what-ifs)
        mamba_cache_dtype: auto | float32 | float16 | bfloat16: linear-attention / SSM state pages
            (auto: the model dtype)
        mamba_ssm_cache_dtype: auto | float32 | float16 | bfloat16: their SSM (temporal) state alone
            (auto: as --mamba-cache-dtype)
        tensor_parallel_size: tensor-parallel GPUs (-tp)
        pipeline_parallel_size: pipeline stages (-pp)
        pp_layer_partition: decoder layers per pipeline stage, e.g. 10,11,11 (vLLM's
            VLLM_PP_LAYER_PARTITION; default: equal shares, the remainder on the stages before the
            last)
        gpu_memory_utilization: fraction of GPU memory the engine may use (vLLM default 0.9; SGLang:
            mem_fraction_static)
        max_model_len: context length (default: the model's); 32k = 32000, 32K = 32768; auto or -1:
            the largest that fits, as vLLM picks it
        block_size: tokens per KV block (vLLM 16, TRT-LLM 32, SGLang 1)
        kv_cache_memory: fixed KV cache size in bytes (e.g. 20GiB); skips profiling
        enable_prefix_caching: prefix caching on (default)
        enable_chunked_prefill: chunked prefill on (vLLM V1's default)
        enforce_eager: no CUDA graphs: every kernel launched from the CPU
        hf_overrides: JSON merged into the model config before it is read (vLLM's --hf-overrides),
            e.g. a rope_scaling for longer context
        rope_scaling: JSON: the config's rope_scaling (older vLLM's --rope-scaling)
        allow_long_max_model_len: a --max-model-len past the model's limit is planned, with a
            warning (vLLM: VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)
        disable_hybrid_kv_cache_manager: allocate full-length KV for sliding-window layers
        vllm_version: vLLM release whose budgeting to reproduce: a release such as 0.30, 0.19, 0.11
            or 0.6.4, latest (the newest modelled), or v0 (the V0 engine); `kvsim releases` lists
            the rules by release
        engine: vllm | sglang | trtllm
        num_gpu_blocks_override: use this many KV blocks instead of the profiled number
        cpu_offload_gb: GiB of each GPU's weights kept in CPU memory
        data_parallel_size: data-parallel replicas (-dp), each with its own KV cache
        decode_context_parallel_size: decode context parallelism (-dcp): each request's KV cache
            spread over this many of the TP ranks, token by token
        enable_expert_parallel: shard MoE experts over TP x DP ranks
        all2all_backend: how MoE layers move tokens at --data-parallel-size > 1, as vLLM: naive |
            allgather_reducescatter | pplx | deepep_high_throughput | deepep_low_latency |
            flashinfer_all2allv (default: the release's; allgather_reducescatter from 0.11)
        disable_sliding_window: sliding-window layers keep the full context
        speculative_config: JSON, as vLLM: {"method": "eagle", "model": ID|PATH,
            "num_speculative_tokens": N}
        enable_lora: LoRA adapters: stacked A/B buffers for --max-loras slots before the KV cache
        max_loras: LoRA slots on the GPU (adapters in one batch; vLLM default 1)
        max_lora_rank: rank every slot is allocated at: 1, 8, 16, 32, 64, 128, 256, 320, 512
            (default 16)
        max_cpu_loras: adapters kept in host memory (LRU; default --max-loras)
        lora_dtype: auto | float16 | bfloat16: the adapter buffers (auto: model dtype)
        fully_sharded_loras: shard the LoRA A of column-parallel and B of row-parallel layers over
            TP too
        lora_extra_vocab_size: 256 | 512: tokens an adapter may add (vLLM 0.11; default 256)
        limit_mm_per_prompt: JSON, as vLLM: {"image": 1, "video": 0}
        mm_processor_kwargs: JSON, as vLLM: {"max_pixels": N}
        skip_mm_profiling: no encoder profile run (multimodal models)
        compilation_config: JSON, as vLLM (-cc): cudagraph_mode, cudagraph_capture_sizes,
            max_cudagraph_capture_size; or a level 0-3 (0: no graphs)
        optimization_level: 0-3, as vLLM 0.12 on (-O): 0 no compilation and no CUDA graphs, 1
            piecewise graphs, 2 and 3 the default (full and piecewise); a cudagraph_mode given in
            --compilation-config wins
        cudagraph_capture_sizes: batch sizes vLLM captures graphs for, e.g. 1,2,4,8
        max_cudagraph_capture_size: largest captured batch (vLLM: min(2 x max-num-seqs, 512))
        cuda_graph_estimate: on | off | auto: vLLM's start-up estimate of CUDA-graph memory taken
            out of the KV budget (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS; auto: on from vLLM 0.21)
        model_runner: auto | v1 | v2: the GPU model runner whose profile run sizes the KV budget
            (VLLM_USE_V2_MODEL_RUNNER=0 or 1; auto: the release's choice, V2 for every model from
            vLLM 0.29)
        cuda_graph_memory: CUDA-graph memory per GPU when a start-up log gave it (e.g. 0.91GiB),
            instead of kvsim's estimate
        prefill_replicas: prefill/decode disaggregation: P prefill instances (the deployment flags
            above), with --decode-replicas
        decode_replicas: D decode instances (the deployment flags with --decode-* applied)
        decode_gpu: the decode pool's GPU (default: --gpu)
        decode_tp: the decode pool's tensor parallel size (default: --tensor-parallel-size)
        decode_max_num_seqs: the decode pool's max-num-seqs (default: --max-num-seqs)
        decode_max_num_batched_tokens: the decode pool's max-num-batched-tokens (default: --max-num-
            batched-tokens)
        kv_link: prefill -> decode KV link, per GPU: nvlink (450 GB/s each way) | ib-400g (50 GB/s)
            | roce-200g (25 GB/s) | GB/s,LATENCY_US (GB/s = 10^9 B/s)
        kv_connector: the connector that pulls the prompt's KV: nixl (the decode worker posts each
            read before its step's forward, 6.7 ms per 1,785 descriptors, vllm#50913) | push (the
            prefill side sends or writes the KV, as P2pNcclConnector and Dynamo's vLLM patch: the
            link alone)
    """
    ...
