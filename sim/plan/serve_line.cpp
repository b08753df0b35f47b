#include "sim/plan/serve_line.h"

#include "kvcache/base/text_format.h"

namespace kvsim {

std::string VllmServeLine(const Deployment& d) {
  const DeploymentConfig& c = d.config;
  std::string line = "vllm serve " + d.model.name;
  auto add = [&](const std::string& flag, const std::string& value) { line += " " + flag + " " + value; };
  if (c.tensor_parallel_size != 1) add("-tp", std::to_string(c.tensor_parallel_size));
  if (c.pipeline_parallel_size != 1) add("-pp", std::to_string(c.pipeline_parallel_size));
  if (!c.quantization.empty()) add("--quantization", c.quantization);
  if (c.dtype != "auto") add("--dtype", c.dtype);
  if (c.kv_cache_dtype != "auto") add("--kv-cache-dtype", c.kv_cache_dtype);
  if (c.max_model_len) add("--max-model-len", std::to_string(*c.max_model_len));
  if (c.gpu_memory_utilization) add("--gpu-memory-utilization", Format("%g", *c.gpu_memory_utilization));
  if (c.max_num_seqs) add("--max-num-seqs", std::to_string(*c.max_num_seqs));
  if (c.max_num_batched_tokens) add("--max-num-batched-tokens", std::to_string(*c.max_num_batched_tokens));
  if (c.block_size) add("--block-size", std::to_string(*c.block_size));
  if (!c.enable_prefix_caching) line += " --no-enable-prefix-caching";
  if (!c.enable_chunked_prefill) line += " --no-enable-chunked-prefill";
  if (c.enforce_eager) line += " --enforce-eager";
  return line;
}

std::string VllmServeLineWithKvTransfer(const Deployment& deployment) {
  return VllmServeLine(deployment) + " --kv-transfer-config '" + kPdKvTransferConfig + "'";
}

}  // namespace kvsim
