// CUDA-graph memory: how many graphs vLLM captures and what they hold, and whether the start-up
// profile takes them out of the KV budget.
//
//   sizes       cudagraph_capture_sizes, or vLLM's pattern [1, 2, 4] + 8..248 step 8 + 256..max step
//               16 up to max_cudagraph_capture_size = min(2 × max_num_seqs, 512), none above
//               max_num_batched_tokens (vllm/config/vllm.py _set_cudagraph_sizes; config/compilation.py)
//   graphs      PIECEWISE: one per size for mixed batches; FULL decode graphs (FULL_AND_PIECEWISE, the
//               V1 default since 0.11, and FULL_DECODE_ONLY): one per size a uniform decode batch
//               reaches, at most max_num_seqs × (1 + speculative tokens); FULL: one per size;
//               NONE (--enforce-eager): none
//   bytes       graphs × decoder layers on the GPU × the bytes one layer costs in one captured graph.
//               The driver keeps each captured kernel's launch state for the graph's life, so the
//               cost grows with kernels (layers) × graphs; the activations of the largest graph share
//               one pool that the profile run already sized. The per-layer figure is what vLLM
//               0.18-0.19 logged as "Graph capturing finished ... took X GiB" on H100 (median of 21
//               start-up logs of 11 models, docs/CAPACITY_MODEL.md); --cuda-graph-memory sets the total.
//   charged     vLLM >= 0.21 measures it during the profile (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS,
//               default on since 0.21, opt-in in 0.18-0.20; PR #38284) and takes it out of the KV
//               budget; earlier releases capture after the KV cache is allocated, from the headroom
//               that 1 − gpu_memory_utilization leaves. The V2 model runner measured nothing before
//               0.28 (model_runner.h), so its graphs come out of that headroom too.
#ifndef KVSIM_KVCACHE_BUDGET_CUDA_GRAPH_MEMORY_H_
#define KVSIM_KVCACHE_BUDGET_CUDA_GRAPH_MEMORY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvcache/base/enum_names.h"
#include "kvcache/budget/serving_engine.h"

namespace kvsim {

enum class CudaGraphMode { kNone, kPiecewise, kFull, kFullDecodeOnly, kFullAndPiecewise };
template <>
struct EnumNames<CudaGraphMode> {
  static constexpr EnumEntry<CudaGraphMode> kEntries[] = {{CudaGraphMode::kNone, "NONE"},
                                                          {CudaGraphMode::kPiecewise, "PIECEWISE"},
                                                          {CudaGraphMode::kFull, "FULL"},
                                                          {CudaGraphMode::kFullDecodeOnly, "FULL_DECODE_ONLY"},
                                                          {CudaGraphMode::kFullAndPiecewise, "FULL_AND_PIECEWISE"}};
};

// One layer in one captured graph, bytes (see the header comment for where it comes from).
inline constexpr double kCudaGraphBytesPerLayerGraph = 270.0 * 1024.0;

// What the serve flags say about graph capture. Unset: vLLM's default for the release.
struct CudaGraphSettings {
  std::optional<CudaGraphMode> mode;        // --compilation-config cudagraph_mode (level 0: NONE)
  std::vector<int64_t> capture_sizes;       // cudagraph_capture_sizes; empty: vLLM's pattern
  std::optional<int64_t> max_capture_size;  // max_cudagraph_capture_size
  std::optional<bool> estimate_in_budget;   // VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS
  std::optional<double> total_bytes;        // --cuda-graph-memory: the figure a log gave, per GPU
  // --compilation-config keys beyond the graph-capture ones, reported in the plan's notes.
  std::vector<std::string> compilation_keys_without_effect;
  std::vector<std::string> compilation_keys_not_modelled;  // each with why
};

struct CudaGraphShape {
  int64_t max_num_seqs = 256;
  int64_t max_num_batched_tokens = 8192;
  int64_t layers_on_gpu = 0;       // decoder layers of this pipeline stage (drafter layers included)
  int64_t speculative_tokens = 0;  // a decode batch holds 1 + k tokens per request
  bool enforce_eager = false;
  bool profile_measures_graphs = true;  // false: the V2 model runner of 0.25-0.27 (model_runner.h)
};

struct CudaGraphMemory {
  CudaGraphMode mode = CudaGraphMode::kNone;
  int64_t piecewise_graphs = 0;
  int64_t full_graphs = 0;
  double bytes = 0;             // per GPU
  bool charged_to_kv = false;   // taken out of the KV budget at start-up
};

// The capture sizes vLLM uses (sorted, distinct).
std::vector<int64_t> CudaGraphCaptureSizes(const CudaGraphSettings& settings, const CudaGraphShape& shape);

CudaGraphMemory EstimateCudaGraphMemory(const CudaGraphSettings& settings, const CudaGraphShape& shape,
                                        const VllmVersion& version);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_CUDA_GRAPH_MEMORY_H_
