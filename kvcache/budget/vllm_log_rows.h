// Rows of a vLLM start-up memory log table (data/validation/vllm_memory_logs_dev.csv format): the
// settings a real server ran with and the figures it printed. Blank cells mean "not in the log".
#ifndef KVSIM_KVCACHE_BUDGET_VLLM_LOG_ROWS_H_
#define KVSIM_KVCACHE_BUDGET_VLLM_LOG_ROWS_H_

#include <optional>
#include <string>
#include <vector>

namespace kvsim {

struct VllmLogRow {
  unsigned line = 0;  // in the CSV, for messages
  std::string row_id, engine, vllm_version, model_id, quantization, dtype, kv_cache_dtype, gpu_model;
  std::string source_detail;  // free text; often carries the date of the log
  std::string config_file;  // e.g. "configs/meta-llama__Llama-3.1-8B-Instruct.json"; empty: none
  std::optional<double> total_gpu_memory_gib, gpu_memory_utilization;
  std::optional<long long> tensor_parallel_size, pipeline_parallel_size, max_model_len, max_num_seqs,
      max_num_batched_tokens, block_size;
  // What the server logged.
  std::optional<double> weights_gib, non_torch_gib, activation_peak_gib, kv_cache_gib, max_concurrency;
  std::optional<long long> gpu_kv_cache_tokens, num_gpu_blocks;
  // Serve flags that change the budget, as their vLLM flags take them; blank: not used. LoRA is on
  // when max_loras or max_lora_rank is given (the other then takes vLLM's default).
  std::string max_loras, max_lora_rank;  // --max-loras, --max-lora-rank
  std::string speculative_config;        // --speculative-config's JSON
  // --enforce-eager (no CUDA graphs, so none charged to the KV budget), and --kv-cache-memory-bytes
  // (the profile skipped, the pool given).
  bool enforce_eager = false;
  std::optional<long long> kv_cache_memory_bytes;
  bool lora_enabled() const { return !max_loras.empty() || !max_lora_rank.empty(); }
};

// Reads every row. A cell that should be numeric is read up to its first non-numeric character
// ("0.93 (mem-fraction-static)" -> 0.93); a cell with no leading number is an error naming
// file, line and column; so is a LoRA or speculative_config cell its vLLM flag would refuse. The
// columns max_loras, max_lora_rank, speculative_config, enforce_eager and kv_cache_memory_bytes may be
// absent (blank in every row).
// Throws kvsim::Error.
std::vector<VllmLogRow> ReadVllmLogRows(const std::string& path);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_VLLM_LOG_ROWS_H_
