#include "cli/serve_flags.h"

#include <string>

#include "kvcache/budget/serving_engine.h"

namespace kvsim {
namespace {

constexpr Takes S = Takes::kSwitch, V = Takes::kValue, O = Takes::kOptionalValue, L = Takes::kList;
constexpr Effect M = Effect::kModelled, N = Effect::kNoEffect, X = Effect::kNotModelled;

// Last shipped in 0.<minor>.
constexpr FlagReleases LastIn(int minor) { return {0, 0, minor, minor}; }
// In v0.11's parser but not in the newest: the release that dropped it is not established.
constexpr FlagReleases kRemovedAfterV011 = {0, 0, 11, kNewestModelledVllmMinor - 1};
// Not in v0.11's parser, a flag of some earlier release (which ones is not dated).
constexpr FlagReleases kGoneBeforeV011 = {0, 0, 0, 10};

// vLLM's `vllm serve` parser: EngineArgs.add_cli_args (vllm/engine/arg_utils.py at vllm-project/vllm
// 99d7eb5, the v0.11 line) and FrontendArgs / make_arg_parser (vllm/entrypoints/openai/cli_args.py
// at 789340f), then the flags of the newest parser read: arg_utils.py of vLLM main in September 2026
// (read at local-inference-lab/vllm 002760e, a fork that tracks main; its own --gdn-decode-kernel,
// absent from docs.vllm.ai/en/v0.30.0/cli/serve/, is left out) and the top of that v0.30.0 page.
// Each flag's releases are in its entry; tests/data/vllm_serve_flags.tsv cites where each was read.
// Boolean config fields use argparse.BooleanOptionalAction, so --no-<name> works too.
const ServeFlag kVllmFlags[] = {
    // ModelConfig
    {"--model", "", V, M, "--model"}, {"--runner", "", V, N}, {"--convert", "", V, N},
    {"--task", "", V, N, "", "", kRemovedAfterV011},
    {"--tokenizer", "", V, N}, {"--tokenizer-mode", "", V, N}, {"--trust-remote-code", "", S, N},
    {"--dtype", "", V, M, "--dtype"}, {"--seed", "", V, N}, {"--hf-config-path", "", V, N},
    {"--allowed-local-media-path", "", V, N}, {"--allowed-media-domains", "", L, N}, {"--revision", "", V, N},
    {"--code-revision", "", V, N}, {"--rope-scaling", "", V, M, "--rope-scaling", "", kRemovedAfterV011},
    {"--rope-theta", "", V, N, "", "", kRemovedAfterV011},
    {"--tokenizer-revision", "", V, N}, {"--max-model-len", "", V, M, "--max-model-len"},
    {"--quantization", "-q", V, M, "--quantization"}, {"--enforce-eager", "", S, M, "--enforce-eager"},
    {"--max-logprobs", "", V, N}, {"--logprobs-mode", "", V, N},
    {"--disable-sliding-window", "", S, M, "--disable-sliding-window"}, {"--disable-cascade-attn", "", S, N},
    {"--skip-tokenizer-init", "", S, N}, {"--enable-prompt-embeds", "", S, N}, {"--served-model-name", "", L, N},
    {"--config-format", "", V, N}, {"--hf-token", "", O, N}, {"--hf-overrides", "", V, M, "--hf-overrides"},
    {"--pooler-config", "", V, N}, {"--override-pooler-config", "", V, N, "", "", kRemovedAfterV011},
    {"--logits-processor-pattern", "", V, N, "", "", kRemovedAfterV011},
    {"--generation-config", "", V, N}, {"--override-generation-config", "", V, N}, {"--enable-sleep-mode", "", S, N},
    {"--model-impl", "", V, N}, {"--override-attention-dtype", "", V, N, "", "", kRemovedAfterV011},
    {"--logits-processors", "", L, N},
    {"--io-processor-plugin", "", V, N},
    // LoadConfig
    {"--load-format", "", V, N}, {"--download-dir", "", V, N}, {"--safetensors-load-strategy", "", V, N},
    {"--model-loader-extra-config", "", V, N}, {"--ignore-patterns", "", L, N}, {"--use-tqdm-on-load", "", S, N},
    {"--pt-load-map-location", "", V, N},
    // StructuredOutputsConfig (and its deprecated guided-decoding spellings, which take a value)
    {"--reasoning-parser", "", V, N}, {"--guided-decoding-backend", "", V, N, "", "", kRemovedAfterV011},
    {"--guided-decoding-disable-fallback", "", V, N, "", "", kRemovedAfterV011},
    {"--guided-decoding-disable-any-whitespace", "", V, N, "", "", kRemovedAfterV011},
    {"--guided-decoding-disable-additional-properties", "", V, N, "", "", kRemovedAfterV011},
    // ParallelConfig
    {"--distributed-executor-backend", "", V, N},
    {"--pipeline-parallel-size", "-pp", V, M, "--pipeline-parallel-size"},
    {"--tensor-parallel-size", "-tp", V, M, "--tensor-parallel-size"},
    {"--decode-context-parallel-size", "-dcp", V, M, "--decode-context-parallel-size"},
    {"--data-parallel-size", "-dp", V, M, "--data-parallel-size"}, {"--data-parallel-rank", "-dpn", V, N},
    {"--data-parallel-start-rank", "-dpr", V, N}, {"--data-parallel-size-local", "-dpl", V, N},
    {"--data-parallel-address", "-dpa", V, N}, {"--data-parallel-rpc-port", "-dpp", V, N},
    {"--data-parallel-backend", "-dpb", V, N}, {"--data-parallel-hybrid-lb", "-dph", S, N},
    {"--enable-expert-parallel", "-ep", S, M, "--enable-expert-parallel"},
    {"--all2all-backend", "", V, M, "--all2all-backend"},
    {"--enable-dbo", "", S, N}, {"--dbo-decode-token-threshold", "", V, N}, {"--dbo-prefill-token-threshold", "", V, N},
    {"--disable-nccl-for-dp-synchronization", "", S, N}, {"--enable-eplb", "", S, N}, {"--eplb-config", "", V, X},
    {"--expert-placement-strategy", "", V, N}, {"--num-redundant-experts", "", V, X, "", "", kRemovedAfterV011},
    {"--eplb-window-size", "", V, N, "", "", kRemovedAfterV011},
    {"--eplb-step-interval", "", V, N, "", "", kRemovedAfterV011},
    {"--eplb-log-balancedness", "", S, N, "", "", kRemovedAfterV011},
    {"--max-parallel-loading-workers", "", V, N}, {"--ray-workers-use-nsight", "", S, N},
    {"--disable-custom-all-reduce", "", S, N}, {"--worker-cls", "", V, N}, {"--worker-extension-cls", "", V, N},
    {"--enable-multimodal-encoder-data-parallel", "", S, N, "", "", kRemovedAfterV011},
    // CacheConfig
    {"--block-size", "", V, M, "--block-size"}, {"--gpu-memory-utilization", "", V, M, "--gpu-memory-utilization"},
    {"--kv-cache-memory-bytes", "", V, M, "--kv-cache-memory"}, {"--swap-space", "", V, N, "", "", kRemovedAfterV011},
    {"--kv-cache-dtype", "", V, M, "--kv-cache-dtype"},
    {"--num-gpu-blocks-override", "", V, M, "--num-gpu-blocks-override"},
    {"--enable-prefix-caching", "", S, M, "--enable-prefix-caching", "--no-enable-prefix-caching"},
    {"--prefix-caching-hash-algo", "", V, N}, {"--cpu-offload-gb", "", V, M, "--cpu-offload-gb"},
    {"--calculate-kv-scales", "", S, N, "", "", kRemovedAfterV011}, {"--kv-sharing-fast-prefill", "", S, N},
    {"--mamba-cache-dtype", "", V, M, "--mamba-cache-dtype"},
    {"--mamba-ssm-cache-dtype", "", V, M, "--mamba-ssm-cache-dtype"}, {"--mamba-block-size", "", V, X},
    // MultiModalConfig
    {"--limit-mm-per-prompt", "", V, M, "--limit-mm-per-prompt"}, {"--enable-mm-embeds", "", S, N},
    {"--media-io-kwargs", "", V, N}, {"--mm-processor-kwargs", "", V, M, "--mm-processor-kwargs"},
    {"--mm-processor-cache-gb", "", V, N}, {"--disable-mm-preprocessor-cache", "", S, N, "", "", kRemovedAfterV011},
    {"--mm-processor-cache-type", "", V, N}, {"--mm-shm-cache-max-object-size-mb", "", V, N},
    {"--mm-encoder-tp-mode", "", V, X}, {"--mm-encoder-attn-backend", "", V, N}, {"--interleave-mm-strings", "", S, N},
    {"--skip-mm-profiling", "", S, M, "--skip-mm-profiling"}, {"--video-pruning-rate", "", V, N},
    // LoRAConfig
    {"--enable-lora", "", S, M, "--enable-lora"}, {"--max-loras", "", V, M, "--max-loras"},
    {"--max-lora-rank", "", V, M, "--max-lora-rank"},
    {"--lora-extra-vocab-size", "", V, M, "--lora-extra-vocab-size", "", LastIn(11)},
    {"--lora-dtype", "", V, M, "--lora-dtype"}, {"--max-cpu-loras", "", V, M, "--max-cpu-loras"},
    {"--fully-sharded-loras", "", S, M, "--fully-sharded-loras"}, {"--default-mm-loras", "", V, N},
    // ObservabilityConfig
    {"--show-hidden-metrics-for-version", "", V, N}, {"--otlp-traces-endpoint", "", V, N},
    {"--collect-detailed-traces", "", L, N},
    // SchedulerConfig
    {"--max-num-batched-tokens", "", V, M, "--max-num-batched-tokens"}, {"--max-num-seqs", "", V, M, "--max-num-seqs"},
    {"--max-num-partial-prefills", "", V, N}, {"--max-long-partial-prefills", "", V, N, "", "", kRemovedAfterV011},
    {"--long-prefill-token-threshold", "", V, N}, {"--num-lookahead-slots", "", V, N, "", "", kRemovedAfterV011},
    {"--scheduling-policy", "", V, N},
    {"--enable-chunked-prefill", "", S, M, "--enable-chunked-prefill", "--no-enable-chunked-prefill"},
    {"--disable-chunked-mm-input", "", S, N},
    {"--scheduler-cls", "", V, N}, {"--external-parameters", "", V, N, "", "", kRemovedAfterV011},
    {"--disable-hybrid-kv-cache-manager", "", S, M, "--disable-hybrid-kv-cache-manager"},
    {"--async-scheduling", "", S, N},
    // CompilationConfig, VllmConfig (CUDA graphs are captured after the KV cache is sized)
    {"--cudagraph-capture-sizes", "", L, M, "--cudagraph-capture-sizes"},
    {"--cuda-graph-sizes", "", L, M, "--cudagraph-capture-sizes", "", kRemovedAfterV011},
    {"--max-cudagraph-capture-size", "", V, M, "--max-cudagraph-capture-size"},
    {"--speculative-config", "-sc", V, M, "--speculative-config"},
    {"--kv-transfer-config", "", V, M, "--kv-transfer-config"},
    {"--kv-events-config", "", V, N}, {"--compilation-config", "-O", V, M, "--compilation-config"},
    {"--additional-config", "", V, N},
    // Added after v0.11 (each entry's releases; tests/data/vllm_serve_flags.tsv cites them). -cc became
    // --compilation-config's alias and -O --optimization-level's.
    {"-cc", "", V, M, "--compilation-config", "", kAddedAfterV011},
    {"--optimization-level", "", V, M, "--optimization-level", "", kAddedAfterV011},
    {"--attention-config", "-ac", V, X, "", "", kAddedAfterV011},
    {"--attention-backend", "", V, X, "", "", kAddedAfterV011},
    {"--moe-backend", "", V, X, "", "", FlagAddedBetween(16, 18)}, {"--linear-backend", "", V, X, "", "", kAddedAfterV011},
    {"--enable-elastic-ep", "", S, X, "", "", kAddedAfterV011},
    {"--language-model-only", "", S, X, "", "", kAddedAfterV011},
    {"--reasoning-parser-plugin", "", V, N, "", "", kAddedAfterV011},
    {"--kv-offloading-size", "", V, M, "--kv-offloading-size", "", FlagAddedIn(11)},
    {"--kv-offloading-backend", "", V, M, "--kv-offloading-backend", "", FlagAddedIn(11)},
    {"--structured-outputs-config", "", V, N}, {"--disable-log-stats", "", S, N},
    {"--aggregate-engine-logging", "", S, N},
    {"--enable-log-requests", "", S, N}, {"--disable-log-requests", "", S, N},
    {"--stream-interval", "", V, N, "", "", kAddedAfterV011},
    // ModelConfig, LoadConfig, MambaConfig
    {"--quantization-config", "", V, X, "", "", kAddedAfterV011},
    {"--allow-deprecated-quantization", "", S, N, "", "", kAddedAfterV011},
    {"--enable-return-routed-experts", "", S, N, "", "", kAddedAfterV011},
    {"--return-sampling-mask", "", S, N, "", "", kAddedAfterV011},
    {"--use-fp64-gumbel", "", S, N, "", "", kAddedAfterV011},
    {"--enable-trace-replay", "", S, N, "", "", kAddedAfterV011},
    {"--model-class-overrides", "", V, N, "", "", kAddedAfterV011},
    {"--enable-cumem-allocator", "", S, N, "", "", kAddedAfterV011},
    {"--renderer-num-workers", "", V, N, "", "", kAddedAfterV011},
    {"--safetensors-prefetch-num-threads", "", V, N, "", "", kAddedAfterV011},
    {"--safetensors-prefetch-block-size", "", V, N, "", "", kAddedAfterV011},
    {"--mamba-backend", "", V, X, "", "", kAddedAfterV011},
    {"--mamba-ssu-algorithm", "", V, X, "", "", kAddedAfterV011},
    {"--enable-mamba-cache-stochastic-rounding", "", S, N, "", "", kAddedAfterV011},
    {"--mamba-cache-philox-rounds", "", V, N, "", "", kAddedAfterV011},
    // ParallelConfig. Prefill context parallelism shards each request's KV cache as DCP does: 1 has no
    // effect, a larger size is refused by the translator with the reason.
    {"--master-addr", "", V, N, "", "", kAddedAfterV011}, {"--master-port", "", V, N, "", "", kAddedAfterV011},
    {"--nnodes", "-n", V, N, "", "", kAddedAfterV011}, {"--node-rank", "-r", V, N, "", "", kAddedAfterV011},
    {"--distributed-timeout-seconds", "", V, N, "", "", kAddedAfterV011},
    {"--cpu-distributed-timeout-seconds", "", V, N, "", "", kAddedAfterV011},
    {"--numa-bind", "", S, N, "", "", kAddedAfterV011}, {"--numa-bind-nodes", "", L, N, "", "", kAddedAfterV011},
    {"--numa-bind-cpus", "", L, N, "", "", kAddedAfterV011}, {"--device-ids", "", V, N, "", "", kAddedAfterV011},
    {"--dcp-comm-backend", "", V, N, "", "", kAddedAfterV011}, {"--dcp-q-replicate", "", S, N, "", "", kAddedAfterV011},
    {"--dcp-kv-cache-interleave-size", "", V, N, "", "", kAddedAfterV011},
    {"--cp-kv-cache-interleave-size", "", V, N, "", "", kAddedAfterV011},
    {"--prefill-context-parallel-size", "-pcp", V, N, "", "", kAddedAfterV011},
    {"--data-parallel-external-lb", "-dpe", S, N, "", "", kAddedAfterV011},
    {"--data-parallel-multi-port-external-lb", "-dpm", S, N, "", "", kAddedAfterV011},
    {"--enable-batch-sharded-sampling", "", S, N, "", "", kAddedAfterV011},
    {"--enable-ep-weight-filter", "", S, N, "", "", kAddedAfterV011},
    {"--ubatch-size", "", V, N, "", "", kAddedAfterV011},
    {"--enable-fault-tolerance", "", S, N, "", "", kAddedAfterV011},
    {"--fault-tolerance-config", "", V, N, "", "", kAddedAfterV011},
    // CacheConfig and OffloadConfig: what sizes the KV cache or moves weights off the GPU, not modelled.
    {"--prefix-cache-retention-interval", "", V, X, "", "", kAddedAfterV011},
    {"--kv-cache-dtype-skip-layers", "", L, X, "", "", kAddedAfterV011},
    {"--prefix-match-unit", "", V, X, "", "", FlagAddedBetween(12, 26)},
    {"--mamba-cache-mode", "", V, X, "", "", FlagAddedBetween(12, 16)},
    {"--replayssm-buffer-len", "", V, X, "", "", kAddedAfterV011},
    {"--use-replayssm", "", S, X, "", "", kAddedAfterV011},
    {"--offload-backend", "", V, X, "", "", kAddedAfterV011},
    {"--cpu-offload-params", "", L, X, "", "", kAddedAfterV011},
    {"--offload-group-size", "", V, X, "", "", kAddedAfterV011},
    {"--offload-num-in-group", "", V, X, "", "", kAddedAfterV011},
    {"--offload-prefetch-step", "", V, X, "", "", kAddedAfterV011},
    {"--offload-params", "", L, X, "", "", kAddedAfterV011},
    // MultiModalConfig, LoRAConfig
    {"--mm-hasher-algorithm", "", V, N, "", "", kAddedAfterV011},
    {"--mm-encoder-only", "", S, X, "", "", kAddedAfterV011},
    {"--mm-encoder-attn-dtype", "", V, N, "", "", kAddedAfterV011},
    {"--mm-encoder-fp8-scale-path", "", V, N, "", "", kAddedAfterV011},
    {"--mm-encoder-fp8-scale-save-path", "", V, N, "", "", kAddedAfterV011},
    {"--mm-encoder-fp8-scale-save-margin", "", V, N, "", "", kAddedAfterV011},
    {"--video-pruning-method", "", V, N, "", "", kAddedAfterV011},
    {"--mm-tensor-ipc", "", V, N, "", "", kAddedAfterV011},
    {"--mm-processor-device", "", V, N, "", "", kAddedAfterV011},
    {"--mm-ipc-gpu-memory-gb", "", V, X, "", "", kAddedAfterV011},
    {"--mm-device-do-normalize", "", S, N, "", "", kAddedAfterV011},
    {"--enable-tower-connector-lora", "", S, X, "", "", kAddedAfterV011},
    {"--lora-target-modules", "", L, X, "", "", kAddedAfterV011},
    {"--specialize-active-lora", "", S, N, "", "", kAddedAfterV011},
    {"--enable-mixed-moe-lora-format", "", S, N, "", "", kAddedAfterV011},
    {"--enable-moe-shared-loras", "", S, X, "", "", kAddedAfterV011},
    // ObservabilityConfig
    {"--per-request-spec-decode-metrics", "", V, N, "", "", kAddedAfterV011},
    {"--kv-cache-metrics", "", S, N, "", "", kAddedAfterV011},
    {"--kv-cache-metrics-sample", "", V, N, "", "", kAddedAfterV011},
    {"--cudagraph-metrics", "", S, N, "", "", kAddedAfterV011},
    {"--enable-layerwise-nvtx-tracing", "", S, N, "", "", kAddedAfterV011},
    {"--enable-mfu-metrics", "", S, N, "", "", kAddedAfterV011},
    {"--enable-logging-iteration-details", "", S, N, "", "", kAddedAfterV011},
    {"--jit-monitor-mode", "", V, N, "", "", kAddedAfterV011},
    {"--jit-monitor-verbose", "", S, N, "", "", kAddedAfterV011},
    // SchedulerConfig: admission and prefill pacing kvsim's scheduler does not have.
    {"--max-num-scheduled-tokens", "", V, X, "", "", kAddedAfterV011},
    {"--scheduler-reserve-full-isl", "", S, X, "", "", kAddedAfterV011},
    {"--watermark", "", V, X, "", "", kAddedAfterV011},
    {"--prefill-schedule-interval", "", V, X, "", "", kAddedAfterV011},
    {"--max-num-prefill-tokens-per-step", "", V, X, "", "", kAddedAfterV011},
    {"--decode-prefill-min-decode-steps", "", V, X, "", "", kAddedAfterV011},
    {"--decode-prefill-max-wait-ms", "", V, X, "", "", kAddedAfterV011},
    // KernelConfig: kernel choices change step time, which kvsim does not model by kernel.
    {"--ir-op-priority", "", V, X, "", "", kAddedAfterV011},
    {"--enable-flashinfer-autotune", "", S, N, "", "", FlagAddedBetween(12, 18)},
    {"--enable-bf16x3-router-gemm", "", S, N, "", "", kAddedAfterV011},
    // VllmConfig. --spec-method/--spec-model/--spec-tokens are --speculative-config's keys, so they nest
    // into it (the translator); -sc is its alias.
    {"--spec-method", "", V, M, "--speculative-config", "", kAddedAfterV011},
    {"--spec-model", "", V, M, "--speculative-config", "", kAddedAfterV011},
    {"--spec-tokens", "", V, M, "--speculative-config", "", kAddedAfterV011},
    {"--diffusion-config", "-dc", V, X, "", "", kAddedAfterV011},
    {"--ec-transfer-config", "", V, X, "", "", kAddedAfterV011},
    {"--ec-manager-config", "", V, X, "", "", kAddedAfterV011},
    {"--reasoning-config", "", V, N, "", "", kAddedAfterV011},
    {"--kernel-config", "", V, X, "", "", kAddedAfterV011}, {"--profiler-config", "", V, N, "", "", kAddedAfterV011},
    {"--performance-mode", "", V, X, "", "", kAddedAfterV011},
    {"--weight-transfer-config", "", V, N, "", "", kAddedAfterV011},
    // Engine and server flags at the top of docs.vllm.ai/en/v0.30.0/cli/serve/, absent from v0.12.0's.
    {"--grpc", "", S, N, "", "", FlagAddedIn(14)}, {"--fail-on-environ-validation", "", S, N, "", "", FlagAddedBetween(13, 30)},
    {"--shutdown-timeout", "", V, N, "", "", FlagAddedBetween(13, 30)},
    {"--gdn-prefill-backend", "", V, X, "", "", FlagAddedBetween(13, 30)},
    {"--kda-prefill-backend", "", V, X, "", "", FlagAddedBetween(13, 30)},
    // make_arg_parser and FrontendArgs (the OpenAI-compatible server)
    {"--headless", "", S, N}, {"--api-server-count", "-asc", V, N}, {"--config", "", V, X},
    {"--host", "", V, N}, {"--port", "", V, N}, {"--uds", "", V, N}, {"--uvicorn-log-level", "", V, N},
    {"--disable-uvicorn-access-log", "", S, N}, {"--allow-credentials", "", S, N}, {"--allowed-origins", "", V, N},
    {"--allowed-methods", "", V, N}, {"--allowed-headers", "", V, N}, {"--api-key", "", L, N},
    {"--lora-modules", "", L, X}, {"--chat-template", "", V, N}, {"--chat-template-content-format", "", V, N},
    {"--trust-request-chat-template", "", S, N}, {"--response-role", "", V, N}, {"--ssl-keyfile", "", V, N},
    {"--ssl-certfile", "", V, N}, {"--ssl-ca-certs", "", V, N}, {"--enable-ssl-refresh", "", S, N},
    {"--ssl-cert-reqs", "", V, N}, {"--root-path", "", V, N}, {"--middleware", "", V, N},
    {"--return-tokens-as-token-ids", "", S, N}, {"--disable-frontend-multiprocessing", "", S, N},
    {"--enable-request-id-headers", "", S, N}, {"--enable-auto-tool-choice", "", S, N},
    {"--exclude-tools-when-tool-choice-none", "", S, N}, {"--tool-call-parser", "", V, N},
    {"--tool-parser-plugin", "", V, N}, {"--tool-server", "", V, N}, {"--log-config-file", "", V, N},
    {"--max-log-len", "", V, N}, {"--disable-fastapi-docs", "", S, N}, {"--enable-prompt-tokens-details", "", S, N},
    {"--enable-server-load-tracking", "", S, N}, {"--enable-force-include-usage", "", S, N},
    {"--enable-tokenizer-info-endpoint", "", S, N}, {"--enable-log-outputs", "", S, N},
    {"--h11-max-incomplete-event-size", "", V, N}, {"--h11-max-header-count", "", V, N},
    {"--log-error-stack", "", S, N}, {"--tokens-only", "", S, N},
    // FrontendArgs added after v0.11: --fingerprint-mode sets the system_fingerprint of the responses.
    {"--fingerprint-mode", "", V, N, "", "", FlagAddedBetween(19, 30)},
    // --default-chat-template-kwargs: chat-template arguments every request gets unless it gives its own.
    {"--default-chat-template-kwargs", "", V, N, "", "", FlagAddedBetween(13, 19)},
    // vLLM 0.31 (2026-10-05): flags its release notes name, each with its PR in tests/data/vllm_serve_flags.tsv.
    // The table was not read from 0.31's parser, so it stays 0.30's and the translator refuses these, naming
    // the table's release (a line written for 0.31 may rely on other changes the table does not know of).
    {"--max-num-active-seqs", "", V, X, "", "", FlagAddedIn(31)},
    {"--long-prefill-token-threshold-adaptive", "", S, X, "", "", FlagAddedIn(31)},
    {"--enable-mamba-shared-prefix-checkpoint", "", S, X, "", "", FlagAddedIn(31)},
    {"--swa-bounded-replay", "", S, X, "", "", FlagAddedIn(31)},
    {"--device-memory-utilization", "", V, M, "--gpu-memory-utilization", "", FlagAddedIn(31)},
    {"--trust-request-mm-kwargs", "", S, N, "", "", FlagAddedIn(31)},
    {"--sleep-preserve-parameter-names", "", L, N, "", "", FlagAddedIn(31)},
    {"--tool-strict-level", "", V, N, "", "", FlagAddedIn(31)},
    {"--max-lora-cls-labels", "", V, N, "", "", FlagAddedIn(31)},
    {"--aux-output-config", "", V, N, "", "", FlagAddedIn(31)},
    {"--log-level", "", V, N, "", "", FlagAddedIn(31)},
    {"--logging-config", "", V, N, "", "", FlagAddedIn(31)},
    // Flags of earlier releases that pasted command lines still carry (docs of v0.6-v0.10), none in
    // v0.11's parser: the release that dropped each is not dated.
    {"--use-v2-block-manager", "", S, N, "", "", kGoneBeforeV011},
    {"--num-scheduler-steps", "", V, N, "", "", kGoneBeforeV011},
    {"--max-seq-len-to-capture", "", V, N, "", "", kGoneBeforeV011},
    {"--multi-step-stream-outputs", "", O, N, "", "", kGoneBeforeV011},
    {"--scheduler-delay-factor", "", V, N, "", "", kGoneBeforeV011},
    {"--preemption-mode", "", V, N, "", "", kGoneBeforeV011},
    {"--disable-async-output-proc", "", S, N, "", "", kGoneBeforeV011},
    {"--worker-use-ray", "", S, N, "", "", kGoneBeforeV011}, {"--enable-reasoning", "", S, N, "", "", kGoneBeforeV011},
    {"--tokenizer-pool-size", "", V, N, "", "", kGoneBeforeV011},
    {"--max-context-len-to-capture", "", V, N, "", "", kGoneBeforeV011},
    {"--speculative-model", "", V, X, "", "", kGoneBeforeV011},
    {"--num-speculative-tokens", "", V, X, "", "", kGoneBeforeV011},
    {"--ngram-prompt-lookup-max", "", V, N, "", "", kGoneBeforeV011},
    {"--ngram-prompt-lookup-min", "", V, N, "", "", kGoneBeforeV011},
    {"--speculative-draft-tensor-parallel-size", "-spec-draft-tp", V, N, "", "", kGoneBeforeV011},
    {"--speculative-max-model-len", "", V, N, "", "", kGoneBeforeV011},
    {"--quantization-param-path", "", V, N, "", "", kGoneBeforeV011}, {"--device", "", V, N, "", "", kGoneBeforeV011},
    {"--kv-cache-memory", "", V, M, "--kv-cache-memory"},
};

// SGLang's `python -m sglang.launch_server` (python/sglang/srt/server_args.py): the flags that size
// memory map onto vLLM's names; SGLang keys its memory fraction on mem_fraction_static.
const ServeFlag kSglangFlags[] = {
    {"--model-path", "--model", V, M, "--model"}, {"--tokenizer-path", "", V, N},
    {"--tp-size", "--tp", V, M, "--tensor-parallel-size"},
    {"--pp-size", "", V, M, "--pipeline-parallel-size"}, {"--dp-size", "--dp", V, M, "--data-parallel-size"},
    {"--ep-size", "--ep", V, X}, {"--enable-ep-moe", "", S, M, "--enable-expert-parallel"},
    {"--mem-fraction-static", "", V, M, "--gpu-memory-utilization"}, {"--context-length", "", V, M, "--max-model-len"},
    {"--max-running-requests", "", V, M, "--max-num-seqs"},
    {"--chunked-prefill-size", "", V, M, "--max-num-batched-tokens"},
    {"--page-size", "", V, M, "--block-size"}, {"--kv-cache-dtype", "", V, M, "--kv-cache-dtype"},
    {"--quantization", "", V, M, "--quantization"}, {"--dtype", "", V, M, "--dtype"},
    {"--disable-radix-cache", "", S, M, "--no-enable-prefix-caching"},
    {"--disable-cuda-graph", "", S, M, "--enforce-eager"},
    {"--max-total-tokens", "", V, X}, {"--max-prefill-tokens", "", V, N}, {"--trust-remote-code", "", S, N},
    {"--host", "", V, N}, {"--port", "", V, N}, {"--served-model-name", "", V, N}, {"--api-key", "", V, N},
    {"--log-level", "", V, N}, {"--log-requests", "", S, N}, {"--enable-metrics", "", S, N},
    {"--random-seed", "", V, N},
    {"--attention-backend", "", V, N}, {"--sampling-backend", "", V, N}, {"--grammar-backend", "", V, N},
    {"--tool-call-parser", "", V, N}, {"--reasoning-parser", "", V, N}, {"--chat-template", "", V, N},
    {"--schedule-policy", "", V, N}, {"--schedule-conservativeness", "", V, N}, {"--cuda-graph-max-bs", "", V, N},
    {"--cuda-graph-bs", "", L, N}, {"--enable-torch-compile", "", S, N}, {"--torch-compile-max-bs", "", V, N},
    {"--nnodes", "", V, N}, {"--node-rank", "", V, N}, {"--dist-init-addr", "", V, N}, {"--load-format", "", V, N},
    {"--download-dir", "", V, N}, {"--revision", "", V, N}, {"--disable-overlap-schedule", "", S, N},
    {"--enable-mixed-chunk", "", S, N}, {"--stream-interval", "", V, N}, {"--watchdog-timeout", "", V, N},
    {"--enable-dp-attention", "", S, X}, {"--moe-runner-backend", "", V, N}, {"--enable-deepep-moe", "", S, N},
    {"--deepep-mode", "", V, N}, {"--mm-attention-backend", "", V, N}, {"--disable-custom-all-reduce", "", S, N},
    {"--skip-server-warmup", "", S, N}, {"--is-embedding", "", S, N}, {"--lora-paths", "", L, X},
    {"--max-loras-per-batch", "", V, X}, {"--device", "", V, N}, {"--speculative-algorithm", "", V, X},
    {"--speculative-draft-model-path", "", V, X}, {"--speculative-num-steps", "", V, X},
    {"--speculative-eagle-topk", "", V, X}, {"--speculative-num-draft-tokens", "", V, X},
    {"--enable-hierarchical-cache", "", S, N}, {"--hicache-ratio", "", V, N}, {"--context-parallel-size", "", V, X},
    {"--enable-multimodal", "", S, N}, {"--disable-shared-experts-fusion", "", S, N},
    {"--ep-num-redundant-experts", "", V, X},
    // server_args.py declares the parallel sizes under their long names too (--tensor-parallel-size
    // beside --tp-size and --tp, and so on); published launch lines use both.
    {"--tensor-parallel-size", "", V, M, "--tensor-parallel-size"},
    {"--pipeline-parallel-size", "", V, M, "--pipeline-parallel-size"},
    {"--data-parallel-size", "", V, M, "--data-parallel-size"}, {"--expert-parallel-size", "", V, X},
    {"--decode-log-interval", "", V, N},
    {"--scheduler-recv-interval", "", V, M, "--scheduler-recv-interval"},
};

template <size_t K>
const ServeFlag* FindFlag(const ServeFlag (&table)[K], const std::string& name) {
  for (const ServeFlag& f : table)
    if (name == f.name || (*f.alias && name == f.alias)) return &f;
  return nullptr;
}

}  // namespace

std::string FlagReleaseNote(const ServeFlag& flag, int minor, const std::string& modelled) {
  const FlagReleases& r = flag.releases;
  const std::string name = flag.name;
  auto release = [](int m) { return "0." + std::to_string(m); };
  const std::string plan = "; this plan models " + modelled + " (--vllm-version), whose vllm serve ";
  if (r.first_min > 0 && minor < r.first_max) {
    if (r.first_min == r.first_max)
      return name + " exists from vLLM " + release(r.first_max) + " on" + plan + "would refuse it";
    const std::string added = name + " was added in a vLLM release of " + release(r.first_min) + "-" +
                              release(r.first_max) + " (which one is not established)";
    return added + plan + (minor < r.first_min ? "would refuse it" : "may refuse it");
  }
  if (r.last_max > 0 && r.last_min == 0) {
    if (minor <= r.last_max) return "";  // an earlier release may have it: not dated
    return name + " is a flag of vLLM releases before 0." + std::to_string(r.last_max + 1) + " (not in " +
           release(r.last_max + 1) + "'s parser)" + plan + "would refuse it";
  }
  if (r.last_max > 0 && minor > r.last_min) {
    if (r.last_min == r.last_max) return name + " was last in vLLM " + release(r.last_min) + plan + "would refuse it";
    const std::string removed = name + " is in vLLM " + release(r.last_min) + "'s parser but not in " +
                                release(r.last_max + 1) + "'s (the release that dropped it is not established)";
    return removed + plan + (minor > r.last_max ? "would refuse it" : "may refuse it");
  }
  return "";
}

const char* NewestServeFlagTableRelease() { return kNewestModelledVllm; }

bool IsNewerThanServeFlagTable(const ServeFlag& flag) { return flag.releases.first_min > kNewestModelledVllmMinor; }

bool IsJsonFlag(const std::string& name) {
  return name == "--speculative-config" || name == "--limit-mm-per-prompt" || name == "--mm-processor-kwargs" ||
         name == "--compilation-config" || name == "--hf-overrides" || name == "--kv-transfer-config" || name == "-cc" ||
         name == "--attention-config";
}

const ServeFlag* FindServeFlag(bool sglang, const std::string& name) {
  return sglang ? FindFlag(kSglangFlags, name) : FindFlag(kVllmFlags, name);
}

const ServeFlag* FindServeFlagByPrefix(bool sglang, const std::string& prefix) {
  const ServeFlag* found = nullptr;
  auto scan = [&](const auto& table) {
    for (const ServeFlag& f : table) {
      if (std::string(f.name).rfind(prefix, 0) != 0) continue;
      if (found && found != &f) return false;  // ambiguous
      found = &f;
    }
    return true;
  };
  const bool unique = sglang ? scan(kSglangFlags) : scan(kVllmFlags);
  return unique ? found : nullptr;
}

std::vector<std::string> ServeFlagNames(bool sglang) {
  std::vector<std::string> names;
  if (sglang) for (const ServeFlag& f : kSglangFlags) names.push_back(f.name);
  else for (const ServeFlag& f : kVllmFlags) names.push_back(f.name);
  return names;
}

}  // namespace kvsim
