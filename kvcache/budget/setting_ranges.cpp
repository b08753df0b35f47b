#include "kvcache/budget/setting_ranges.h"

#include <string>

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "kvcache/model/gpu_catalog.h"

namespace kvsim {

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
}

}  // namespace kvsim
