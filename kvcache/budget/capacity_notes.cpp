#include "kvcache/budget/capacity_notes.h"

#include "kvcache/base/text_format.h"
#include "kvcache/budget/capacity_result.h"
#include "kvcache/base/units.h"

namespace kvsim {

void NoteSpeculativeAndLora(const DeploymentConfig& c, CapacityResult& r) {
  if (c.lora.enabled && c.engine != Engine::kVllm)
    r.notes.push_back("--enable-lora: LoRA slots are modelled for vLLM only; not counted for engine " +
                      std::string(NameOf(c.engine)));
  if (!c.lora.enabled) return;
  r.lora_slots = c.lora.max_loras;
  r.lora_rank = c.lora.max_lora_rank;
  if (r.lora.skipped_expert_elements > 0)
    r.notes.push_back("LoRA: routed experts are not wrapped (vLLM 0.11 has no fused-MoE LoRA layer); their " +
                      Thousands(static_cast<int64_t>(r.lora.skipped_expert_elements)) + " weights get no adapter buffers");
  r.notes.push_back(Format("LoRA host cache: %lld adapters x %.2f GiB at rank %lld = %.2f GiB of CPU memory (--max-cpu-loras)",
                           static_cast<long long>(c.lora.cpu_loras()), BytesToGiB(r.lora.host_bytes_per_adapter),
                           static_cast<long long>(c.lora.max_lora_rank), BytesToGiB(r.lora.host_bytes)));
}

void NoteSettings(const DeploymentConfig& c, CapacityResult& r) {
  const KvCacheLayout& layout = r.stages[r.bottleneck_stage].layout;
  if (layout.state_page_bytes > 0)
    r.notes.push_back("state pages: " + Thousands(layout.state_page_bytes) + " B of linear-attention/SSM state per layer and request, " +
                      "padded by " + Format("%.2f%%", 100.0 * static_cast<double>(layout.page_bytes - layout.state_page_bytes) /
                                                          static_cast<double>(layout.state_page_bytes)) +
                      " to the attention page of " + std::to_string(layout.block_size) + " tokens (" +
                      Thousands(layout.page_bytes) + " B): vLLM raises the block size until an attention page holds a state");
  if (layout.padding_layers > 0)
    r.notes.push_back("hybrid KV cache: " + std::to_string(layout.padding_layers) +
                      " padding layer(s) added to equalise groups, as vLLM does");
  const CudaGraphSettings& g = c.cuda_graphs;
  if (!g.compilation_keys_without_effect.empty())
    r.notes.push_back("accepted, no effect on memory: --compilation-config " + Join(g.compilation_keys_without_effect, ", ") +
                      " (compilation, fusion and cache choices: kernels and start-up time, not allocations)");
  if (!g.compilation_keys_not_modelled.empty())
    r.notes.push_back("accepted but not modelled: --compilation-config " + Join(g.compilation_keys_not_modelled, ", "));
  if (c.engine != Engine::kVllm && (g.mode || !g.capture_sizes.empty() || g.max_capture_size || g.estimate_in_budget ||
                                    g.total_bytes || !c.enable_chunked_prefill))
    r.notes.push_back("the CUDA-graph and chunked-prefill settings are vLLM's; the " + std::string(NameOf(c.engine)) +
                      " budget does not use them (not modelled)");
  if (!c.enable_chunked_prefill && c.engine == Engine::kVllm)
    r.notes.push_back("chunked prefill off: the token budget is " + std::to_string(r.settings.max_num_batched_tokens) +
                      " tokens (a whole max-model-len prompt) and the profile run covers it; kvsim's replay scheduler "
                      "still splits a prompt that does not fit the step's remaining budget (vLLM would leave it waiting)");
  if (c.cpu_offload_bytes > 0) {
    const WeightMemory& w = r.stages[r.bottleneck_stage].weights;
    r.notes.push_back(Format("--cpu-offload-gb: %.2f GiB of this GPU's decoder-layer weights in CPU memory (%.2f GiB asked; "
                             "whole parameters, layer by layer; embeddings and lm_head stay on the GPU), read over the "
                             "host link in every forward (kvsim step: cpu_offloaded_weights)",
                             BytesToGiB(w.cpu_offloaded_bytes), BytesToGiB(c.cpu_offload_bytes)));
  }
  // vLLM's worker returns --kv-cache-memory-bytes without profiling (gpu_worker.determine_available_memory):
  // the utilization then only gates start-up against the free memory, it does not size the cache.
  if (c.kv_cache_memory_bytes && c.gpu_memory_utilization)
    r.notes.push_back("--gpu-memory-utilization does not size the KV cache when --kv-cache-memory is given (vLLM "
                      "skips the profile and allocates that amount); it only checks that the GPU has that share free at start-up");
}

}  // namespace kvsim
