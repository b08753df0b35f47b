// What a capacity plan answers, per pipeline stage and for the deployment: typed, so that the
// reports, the replay and the notes read it without the planner.
#ifndef KVSIM_KVCACHE_BUDGET_CAPACITY_RESULT_H_
#define KVSIM_KVCACHE_BUDGET_CAPACITY_RESULT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvcache/model/gpu_catalog.h"
#include "kvcache/budget/deployment.h"
#include "kvcache/budget/kv_cache_layout.h"
#include "kvcache/budget/lora_memory.h"
#include "kvcache/model/model_spec.h"
#include "kvcache/budget/runtime_overhead.h"
#include "kvcache/budget/serving_engine.h"
#include "kvcache/budget/weight_memory.h"

namespace kvsim {

struct StageCapacity {
  int stage = 0;
  int64_t first_layer = 0;
  int64_t end_layer = 0;
  WeightMemory weights;
  RuntimeOverhead overhead;
  CudaGraphMemory cuda_graphs;  // vLLM only
  KvCacheLayout layout;
  double kv_cache_bytes = 0;
  int64_t num_blocks = 0;
  std::string draft_what;  // the speculative proposer's weights, in words (empty: none on this stage)
  // The drafter's own attention layers (EAGLE head, MTP layer, draft model): its KV bytes per token
  // on this GPU (0: none), and whether `layout` holds them beside the target's (vLLM v1 groups them
  // in one KV cache config; a drafter of another page size beside a hybrid target is left out).
  double draft_kv_bytes_per_token = 0;
  bool layout_holds_draft_kv = false;
  LoraMemory lora;         // LoRA slots on this stage (empty without --enable-lora)
};

// The settings a run actually used, defaults resolved; every output echoes them.
struct EffectiveSettings {
  std::string model;
  std::string architecture;
  Engine engine = Engine::kVllm;
  std::string vllm_version;
  VllmEra vllm_era = VllmEra::kV1;
  std::string gpu_id;
  std::string gpu_name;
  Interconnect interconnect = Interconnect::kPcie;
  double gpu_total_gib = 0;
  double gpu_memory_utilization = 0;
  std::string dtype;
  std::string quantization;
  std::string kv_cache_dtype;
  int tensor_parallel_size = 1;
  int pipeline_parallel_size = 1;
  int64_t max_model_len = 0;
  int64_t max_num_seqs = 0;
  int64_t max_num_batched_tokens = 0;
  int64_t block_size = 0;
  bool enable_prefix_caching = true;
  KvGrouping kv_grouping = KvGrouping::kHybrid;  // effective: only vLLM v1 has the hybrid manager
  std::optional<double> kv_cache_memory_gib;
  int data_parallel_size = 1;            // replicas, each with its own KV cache
  int decode_context_parallel_size = 1;  // -dcp: every dcp-th token of a request on each of that many TP ranks
  bool enable_expert_parallel = false;   // whole experts per rank over TP x DP (without: a slice of each)
  All2AllBackend all2all_backend = All2AllBackend::kAllgatherReducescatter;  // how MoE layers move tokens at DP > 1
};

struct CapacityResult {
  EffectiveSettings settings;
  NumericFormat compute_dtype = NumericFormat::kBFloat16;  // activations and unquantized weights
  QuantizationSpec weight_quantization;                    // as the weights are stored
  int64_t params = 0;
  int64_t active_params = 0;
  std::vector<StageCapacity> stages;
  int bottleneck_stage = 0;             // the stage with the fewest blocks

  // Per GPU. Weights, activation and non-torch are the largest over stages; KV figures come from
  // the bottleneck stage, as vLLM takes the minimum over workers.
  double weights_bytes = 0;
  double activation_peak_bytes = 0;
  double non_torch_bytes = 0;
  double encoder_profile_bytes = 0;     // multimodal encoder profile, beyond the LM's activation peak
  double sparse_indexer_bytes = 0;      // DSA indexer profile workspaces, beyond the LM's activation peak
  double cuda_graph_bytes = 0;          // CUDA graphs charged to the KV budget (vLLM >= 0.21); 0 otherwise
  int64_t cuda_graphs_captured = 0;     // graphs behind cuda_graph_bytes
  double kv_cache_bytes = 0;
  double kv_bytes_per_token = 0;
  int64_t num_gpu_blocks = 0;           // as vLLM's num_gpu_blocks, its null block included
  int64_t usable_gpu_blocks = 0;        // what requests can hold: num_gpu_blocks less the null block
  int64_t gpu_kv_cache_tokens = 0;      // as vLLM's "GPU KV cache size" log line
  double max_concurrency = 0;           // requests of max_model_len tokens
  int64_t pages_per_max_len_request = 0;
  // KV slots a decoding request holds beyond its context for speculative decoding (draft tokens and
  // lookahead; SpeculativeDecodeSlots in startup_rules.h); 0 without --speculative-config.
  int64_t spec_decode_slots = 0;
  // The KV those slots take when max_num_seqs requests decode at once: held inside the KV pool (vLLM
  // reserves nothing for them before the budget; allocate_slots takes them from free blocks).
  double spec_lookahead_bytes = 0;
  double draft_weights_bytes = 0;   // of weights_bytes: the proposer's (largest over stages)
  std::string draft_what;
  LoraMemory lora;                  // of weights_bytes: the LoRA slots (the stage with the most)
  int64_t lora_slots = 0;           // --max-loras and --max-lora-rank as planned (0: no LoRA)
  int64_t lora_rank = 0;
  // Requests of shorter lengths (1k, 4k, 16k below max_model_len; any length through
  // ConcurrencyAt) decoding at once as the scheduler allocates: usable blocks (the null block left out)
  // over the pages of min(length + spec_decode_slots, max_model_len) tokens. vLLM logs no such figure;
  // max_concurrency above is its logged one.
  std::vector<std::pair<int64_t, double>> concurrency_at;
  // `kvsim capacity --trace`: the trace's mean request length, whose row concurrency_at also holds
  // (0: no trace given).
  int64_t trace_mean_tokens = 0;

  // Baselines, per GPU.
  double baseline_1_2x_bytes = 0;        // EleutherAI: 1.2 × weights
  double baseline_article003_bytes = 0;  // 2.4P + 4·s·L·h·d_h (s = max_model_len, fp16)
  double modelled_one_request_bytes = 0; // weights + activation + non-torch + KV of one max_model_len request
  double reserved_bytes = 0;             // what the engine claims: total × utilization

  // KV tiers below the GPU (--kv-offload, vLLM's --kv-offloading-size, an offloading connector in
  // --kv-transfer-config): the memory the deployment needs beside its GPUs. Empty without offloading.
  struct OffloadTier {
    std::string tier;              // "cpu" or "disk"
    double bytes_per_replica = 0;  // summed over the replica's GPUs, as vLLM's --kv-offloading-size
    double bytes_per_gpu = 0;
    int64_t tokens = 0;            // of KV it holds: bytes over the replica's KV bytes per token
  };
  std::vector<OffloadTier> offload_tiers;
  std::string offload_connector;
  double offload_gpu_staging_bytes = 0;  // per GPU, outside the KV pool (LMCache's one-chunk buffer)

  std::vector<std::string> notes;

  // Empty when the deployment starts; otherwise why it cannot (the server would refuse to start),
  // with how many GiB are missing. The figures above are still filled in (KV clamped at 0).
  std::string does_not_fit;
};

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_CAPACITY_RESULT_H_
