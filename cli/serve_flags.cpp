#include "cli/serve_flags.h"

namespace kvsim {
namespace {

constexpr Takes S = Takes::kSwitch, V = Takes::kValue, O = Takes::kOptionalValue, L = Takes::kList;
constexpr Effect M = Effect::kModelled, N = Effect::kNoEffect, X = Effect::kNotModelled;

// vLLM's `vllm serve` parser: EngineArgs.add_cli_args (vllm/engine/arg_utils.py at vllm-project/vllm
// 99d7eb5, the v0.11 line) and FrontendArgs / make_arg_parser (vllm/entrypoints/openai/cli_args.py
// at 789340f). Boolean config fields use argparse.BooleanOptionalAction, so --no-<name> works too.
const ServeFlag kVllmFlags[] = {
    // ModelConfig
    {"--model", "", V, M, "--model"}, {"--runner", "", V, N}, {"--convert", "", V, N}, {"--task", "", V, N},
    {"--tokenizer", "", V, N}, {"--tokenizer-mode", "", V, N}, {"--trust-remote-code", "", S, N},
    {"--dtype", "", V, M, "--dtype"}, {"--seed", "", V, N}, {"--hf-config-path", "", V, N},
    {"--allowed-local-media-path", "", V, N}, {"--allowed-media-domains", "", L, N}, {"--revision", "", V, N},
    {"--code-revision", "", V, N}, {"--rope-scaling", "", V, M, "--rope-scaling"}, {"--rope-theta", "", V, N},
    {"--tokenizer-revision", "", V, N}, {"--max-model-len", "", V, M, "--max-model-len"},
    {"--quantization", "-q", V, M, "--quantization"}, {"--enforce-eager", "", S, M, "--enforce-eager"},
    {"--max-logprobs", "", V, N}, {"--logprobs-mode", "", V, N},
    {"--disable-sliding-window", "", S, M, "--disable-sliding-window"}, {"--disable-cascade-attn", "", S, N},
    {"--skip-tokenizer-init", "", S, N}, {"--enable-prompt-embeds", "", S, N}, {"--served-model-name", "", L, N},
    {"--config-format", "", V, N}, {"--hf-token", "", O, N}, {"--hf-overrides", "", V, M, "--hf-overrides"},
    {"--pooler-config", "", V, N}, {"--override-pooler-config", "", V, N}, {"--logits-processor-pattern", "", V, N},
    {"--generation-config", "", V, N}, {"--override-generation-config", "", V, N}, {"--enable-sleep-mode", "", S, N},
    {"--model-impl", "", V, N}, {"--override-attention-dtype", "", V, N}, {"--logits-processors", "", L, N},
    {"--io-processor-plugin", "", V, N},
    // LoadConfig
    {"--load-format", "", V, N}, {"--download-dir", "", V, N}, {"--safetensors-load-strategy", "", V, N},
    {"--model-loader-extra-config", "", V, N}, {"--ignore-patterns", "", L, N}, {"--use-tqdm-on-load", "", S, N},
    {"--pt-load-map-location", "", V, N},
    // StructuredOutputsConfig (and its deprecated guided-decoding spellings, which take a value)
    {"--reasoning-parser", "", V, N}, {"--guided-decoding-backend", "", V, N},
    {"--guided-decoding-disable-fallback", "", V, N}, {"--guided-decoding-disable-any-whitespace", "", V, N},
    {"--guided-decoding-disable-additional-properties", "", V, N},
    // ParallelConfig
    {"--distributed-executor-backend", "", V, N},
    {"--pipeline-parallel-size", "-pp", V, M, "--pipeline-parallel-size"},
    {"--tensor-parallel-size", "-tp", V, M, "--tensor-parallel-size"},
    // Decode context parallel: 1 has no effect; a larger size is refused by the translator with the reason.
    {"--decode-context-parallel-size", "-dcp", V, N},
    {"--data-parallel-size", "-dp", V, M, "--data-parallel-size"}, {"--data-parallel-rank", "-dpn", V, N},
    {"--data-parallel-start-rank", "-dpr", V, N}, {"--data-parallel-size-local", "-dpl", V, N},
    {"--data-parallel-address", "-dpa", V, N}, {"--data-parallel-rpc-port", "-dpp", V, N},
    {"--data-parallel-backend", "-dpb", V, N}, {"--data-parallel-hybrid-lb", "", S, N},
    {"--enable-expert-parallel", "-ep", S, M, "--enable-expert-parallel"}, {"--all2all-backend", "", V, N},
    {"--enable-dbo", "", S, N}, {"--dbo-decode-token-threshold", "", V, N}, {"--dbo-prefill-token-threshold", "", V, N},
    {"--disable-nccl-for-dp-synchronization", "", S, N}, {"--enable-eplb", "", S, N}, {"--eplb-config", "", V, X},
    {"--expert-placement-strategy", "", V, N}, {"--num-redundant-experts", "", V, X}, {"--eplb-window-size", "", V, N},
    {"--eplb-step-interval", "", V, N}, {"--eplb-log-balancedness", "", S, N},
    {"--max-parallel-loading-workers", "", V, N}, {"--ray-workers-use-nsight", "", S, N},
    {"--disable-custom-all-reduce", "", S, N}, {"--worker-cls", "", V, N}, {"--worker-extension-cls", "", V, N},
    {"--enable-multimodal-encoder-data-parallel", "", S, N},
    // CacheConfig
    {"--block-size", "", V, M, "--block-size"}, {"--gpu-memory-utilization", "", V, M, "--gpu-memory-utilization"},
    {"--kv-cache-memory-bytes", "", V, M, "--kv-cache-memory"}, {"--swap-space", "", V, N},
    {"--kv-cache-dtype", "", V, M, "--kv-cache-dtype"},
    {"--num-gpu-blocks-override", "", V, M, "--num-gpu-blocks-override"},
    {"--enable-prefix-caching", "", S, M, "--enable-prefix-caching", "--no-enable-prefix-caching"},
    {"--prefix-caching-hash-algo", "", V, N}, {"--cpu-offload-gb", "", V, M, "--cpu-offload-gb"},
    {"--calculate-kv-scales", "", S, N}, {"--kv-sharing-fast-prefill", "", S, N}, {"--mamba-cache-dtype", "", V, M, "--mamba-cache-dtype"},
    {"--mamba-ssm-cache-dtype", "", V, M, "--mamba-ssm-cache-dtype"}, {"--mamba-block-size", "", V, X},
    // MultiModalConfig
    {"--limit-mm-per-prompt", "", V, M, "--limit-mm-per-prompt"}, {"--enable-mm-embeds", "", S, N},
    {"--media-io-kwargs", "", V, N}, {"--mm-processor-kwargs", "", V, M, "--mm-processor-kwargs"},
    {"--mm-processor-cache-gb", "", V, N}, {"--disable-mm-preprocessor-cache", "", S, N},
    {"--mm-processor-cache-type", "", V, N}, {"--mm-shm-cache-max-object-size-mb", "", V, N},
    {"--mm-encoder-tp-mode", "", V, X}, {"--mm-encoder-attn-backend", "", V, N}, {"--interleave-mm-strings", "", S, N},
    {"--skip-mm-profiling", "", S, M, "--skip-mm-profiling"}, {"--video-pruning-rate", "", V, N},
    // LoRAConfig
    {"--enable-lora", "", S, M, "--enable-lora"}, {"--max-loras", "", V, M, "--max-loras"},
    {"--max-lora-rank", "", V, M, "--max-lora-rank"}, {"--lora-extra-vocab-size", "", V, M, "--lora-extra-vocab-size"},
    {"--lora-dtype", "", V, M, "--lora-dtype"}, {"--max-cpu-loras", "", V, M, "--max-cpu-loras"},
    {"--fully-sharded-loras", "", S, M, "--fully-sharded-loras"}, {"--default-mm-loras", "", V, N},
    // ObservabilityConfig
    {"--show-hidden-metrics-for-version", "", V, N}, {"--otlp-traces-endpoint", "", V, N},
    {"--collect-detailed-traces", "", L, N},
    // SchedulerConfig
    {"--max-num-batched-tokens", "", V, M, "--max-num-batched-tokens"}, {"--max-num-seqs", "", V, M, "--max-num-seqs"},
    {"--max-num-partial-prefills", "", V, N}, {"--max-long-partial-prefills", "", V, N},
    {"--long-prefill-token-threshold", "", V, N}, {"--num-lookahead-slots", "", V, N},
    {"--scheduling-policy", "", V, N}, {"--enable-chunked-prefill", "", S, M, "--enable-chunked-prefill", "--no-enable-chunked-prefill"}, {"--disable-chunked-mm-input", "", S, N},
    {"--scheduler-cls", "", V, N}, {"--external-parameters", "", V, N},
    {"--disable-hybrid-kv-cache-manager", "", S, M, "--disable-hybrid-kv-cache-manager"},
    {"--async-scheduling", "", S, N},
    // CompilationConfig, VllmConfig (CUDA graphs are captured after the KV cache is sized)
    {"--cudagraph-capture-sizes", "", L, M, "--cudagraph-capture-sizes"},
    {"--cuda-graph-sizes", "", L, M, "--cudagraph-capture-sizes"},
    {"--max-cudagraph-capture-size", "", V, M, "--max-cudagraph-capture-size"},
    {"--speculative-config", "", V, M, "--speculative-config"}, {"--kv-transfer-config", "", V, M, "--kv-transfer-config"},
    {"--kv-events-config", "", V, N}, {"--compilation-config", "-O", V, M, "--compilation-config"}, {"--additional-config", "", V, N},
    // Later releases (v0.12-v0.19): -cc became --compilation-config's alias and -O --optimization-level's.
    {"-cc", "", V, M, "--compilation-config"}, {"--optimization-level", "", V, N}, {"--attention-config", "-ac", V, X},
    {"--attention-backend", "", V, X}, {"--moe-backend", "", V, X}, {"--enable-elastic-ep", "", S, X},
    {"--language-model-only", "", S, X}, {"--reasoning-parser-plugin", "", V, N}, {"--kv-offloading-size", "", V, M, "--kv-offloading-size"},
    {"--kv-offloading-backend", "", V, M, "--kv-offloading-backend"},
    {"--structured-outputs-config", "", V, N}, {"--disable-log-stats", "", S, N}, {"--aggregate-engine-logging", "", S, N},
    {"--enable-log-requests", "", S, N}, {"--disable-log-requests", "", S, N}, {"--stream-interval", "", V, N},
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
    // Flags of earlier releases that pasted command lines still carry (docs of v0.6-v0.10).
    {"--use-v2-block-manager", "", S, N}, {"--num-scheduler-steps", "", V, N}, {"--max-seq-len-to-capture", "", V, N},
    {"--multi-step-stream-outputs", "", O, N}, {"--scheduler-delay-factor", "", V, N}, {"--preemption-mode", "", V, N},
    {"--disable-async-output-proc", "", S, N}, {"--worker-use-ray", "", S, N}, {"--enable-reasoning", "", S, N},
    {"--tokenizer-pool-size", "", V, N}, {"--max-context-len-to-capture", "", V, N},
    {"--speculative-model", "", V, X}, {"--num-speculative-tokens", "", V, X}, {"--ngram-prompt-lookup-max", "", V, N},
    {"--ngram-prompt-lookup-min", "", V, N}, {"--speculative-draft-tensor-parallel-size", "-spec-draft-tp", V, N},
    {"--speculative-max-model-len", "", V, N}, {"--quantization-param-path", "", V, N}, {"--device", "", V, N},
    {"--kv-cache-memory", "", V, M, "--kv-cache-memory"},
};

// SGLang's `python -m sglang.launch_server` (python/sglang/srt/server_args.py): the flags that size
// memory map onto vLLM's names; SGLang keys its memory fraction on mem_fraction_static.
const ServeFlag kSglangFlags[] = {
    {"--model-path", "--model", V, M, "--model"}, {"--tokenizer-path", "", V, N}, {"--tp-size", "--tp", V, M, "--tensor-parallel-size"},
    {"--pp-size", "", V, M, "--pipeline-parallel-size"}, {"--dp-size", "--dp", V, M, "--data-parallel-size"},
    {"--ep-size", "--ep", V, X}, {"--enable-ep-moe", "", S, M, "--enable-expert-parallel"},
    {"--mem-fraction-static", "", V, M, "--gpu-memory-utilization"}, {"--context-length", "", V, M, "--max-model-len"},
    {"--max-running-requests", "", V, M, "--max-num-seqs"}, {"--chunked-prefill-size", "", V, M, "--max-num-batched-tokens"},
    {"--page-size", "", V, M, "--block-size"}, {"--kv-cache-dtype", "", V, M, "--kv-cache-dtype"},
    {"--quantization", "", V, M, "--quantization"}, {"--dtype", "", V, M, "--dtype"},
    {"--disable-radix-cache", "", S, M, "--no-enable-prefix-caching"}, {"--disable-cuda-graph", "", S, M, "--enforce-eager"},
    {"--max-total-tokens", "", V, X}, {"--max-prefill-tokens", "", V, N}, {"--trust-remote-code", "", S, N},
    {"--host", "", V, N}, {"--port", "", V, N}, {"--served-model-name", "", V, N}, {"--api-key", "", V, N},
    {"--log-level", "", V, N}, {"--log-requests", "", S, N}, {"--enable-metrics", "", S, N}, {"--random-seed", "", V, N},
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
    {"--enable-multimodal", "", S, N}, {"--disable-shared-experts-fusion", "", S, N}, {"--ep-num-redundant-experts", "", V, X},
};

template <size_t K>
const ServeFlag* FindFlag(const ServeFlag (&table)[K], const std::string& name) {
  for (const ServeFlag& f : table)
    if (name == f.name || (*f.alias && name == f.alias)) return &f;
  return nullptr;
}

}  // namespace

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
