#include "kvcache/budget/setting_ranges.h"

#include <string>

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "kvcache/budget/serving_engine.h"
#include "kvcache/model/gpu_catalog.h"

namespace kvsim {

namespace {

// vLLM's rules for decode context parallelism (DCP reuses the TP group's GPUs; vllm/config/parallel.py and
// ModelConfig.verify_with_parallel_config; the vLLM blog's "Efficient Decode Context Parallelism", 2026-08-07):
// TP a multiple of DCP; an MLA latent (one KV head) splits up to TP ways; GQA splits only the copies TP makes
// of its KV heads, so TP // kv_heads must be a multiple of DCP.
void CheckDecodeContextParallel(const ModelSpec& spec, const DeploymentConfig& c) {
  const int dcp = c.decode_context_parallel_size, tp = c.tensor_parallel_size;
  if (dcp == 1) return;
  const std::string flag = "--decode-context-parallel-size (-dcp) " + std::to_string(dcp) + ": ";
  if (c.engine != Engine::kVllm) throw Error(flag + "kvsim models vLLM's decode context parallelism only");
  // DCP came with the V1 engine's attention backends; the V0 engine never had the flag.
  if (ParseVllmVersion(c.vllm_version).v0_engine)
    throw Error(flag + "the V0 engine (--vllm-version v0) has no decode context parallelism");
  if (tp % dcp != 0)
    throw Error(flag + "vLLM requires --tensor-parallel-size (" + std::to_string(tp) + ") to be a multiple of it");
  if (!spec.has_mla) {
    const int64_t kv_heads = std::max<int64_t>(1, spec.num_kv_heads);
    if (tp <= kv_heads)
      throw Error(flag + "vLLM refuses it: TP " + std::to_string(tp) + " is not greater than the model's " +
                  std::to_string(kv_heads) + " KV heads, so no rank holds a copy of another's KV to split");
    if ((tp / kv_heads) % dcp != 0)
      throw Error(flag + "vLLM requires TP / KV heads (" + std::to_string(tp) + " / " + std::to_string(kv_heads) + " = " +
                  std::to_string(tp / kv_heads) + ") to be a multiple of it");
  }
  if (spec.has_mla && spec.mla.indexer_head_dim > 0)
    throw Error(flag + "vLLM's sparse-attention (DSA) models keep an indexer key cache whose split under DCP kvsim "
                "does not model");
  for (const LayerAttention& l : spec.layers)
    if (l.has_mixer && l.kind != AttentionKind::kFull)
      throw Error(flag + "kvsim models DCP for full-attention models; this one has sliding-window, chunked or "
                  "state layers, whose pages DCP does not split the same way");
}

}  // namespace

void CheckSettingRanges(const ModelSpec& spec, const DeploymentConfig& c) {
  const int tp = c.tensor_parallel_size, pp = c.pipeline_parallel_size;
  if (tp < 1 || tp > 1024) throw Error("--tensor-parallel-size: " + std::to_string(tp) + " must be between 1 and 1024");
  if (pp < 1 || pp > spec.num_layers)
    throw Error("--pipeline-parallel-size: " + std::to_string(pp) + " must be between 1 and the model's " +
                std::to_string(spec.num_layers) + " layers");
  if (spec.num_attention_heads % tp != 0)
    throw Error("--tensor-parallel-size: " + std::to_string(tp) + " does not divide the model's " +
                std::to_string(spec.num_attention_heads) + " attention heads (vLLM refuses to start)");
  if (c.gpu_memory_utilization && !(*c.gpu_memory_utilization > 0.0 && *c.gpu_memory_utilization <= 1.0))
    throw Error("--gpu-memory-utilization: " + Format("%g", *c.gpu_memory_utilization) + " must be in (0, 1]");
  if (c.max_model_len && *c.max_model_len < 1) throw Error("--max-model-len: must be at least 1");
  if (c.max_num_seqs && *c.max_num_seqs < 1) throw Error("--max-num-seqs: must be at least 1");
  if (c.max_num_batched_tokens && *c.max_num_batched_tokens < 1) throw Error("--max-num-batched-tokens: must be at least 1");
  if (c.block_size && (*c.block_size < 1 || *c.block_size > 32768))
    throw Error("--block-size: " + std::to_string(*c.block_size) + " must be between 1 and 32768");
  if (c.gpu_memory_gib && !(*c.gpu_memory_gib > 0.0 && *c.gpu_memory_gib < kMaxGpuMemoryGib))
    throw Error("--gpu-memory-gib: " + Format("%g", *c.gpu_memory_gib) + " is not a GPU's memory in GiB (above 0, below " +
                Format("%g", kMaxGpuMemoryGib) + ")");
  if (c.kv_cache_memory_bytes && !(*c.kv_cache_memory_bytes > 0.0))
    throw Error("--kv-cache-memory: must be a positive number of bytes");
  CheckDecodeContextParallel(spec, c);
  // VLLM_USE_V2_MODEL_RUNNER is vLLM's switch; SGLang and TensorRT-LLM have their own runners, so a
  // runner given for them would be accepted and change nothing.
  if (c.model_runner && c.engine != Engine::kVllm)
    throw Error("--model-runner " + std::string(NameOf(*c.model_runner)) +
                ": picks one of vLLM's GPU model runners; --engine " + std::string(NameOf(c.engine)) + " has its own");
}

}  // namespace kvsim
