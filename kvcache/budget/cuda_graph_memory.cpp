#include "kvcache/budget/cuda_graph_memory.h"

#include <algorithm>

#include "kvcache/budget/release_rules.h"

namespace kvsim {
namespace {

CudaGraphMode DefaultMode(const VllmVersion& v) {
  if (v.era() == VllmEra::kV0) return CudaGraphMode::kFull;  // V0 captured whole decode graphs
  return HasRule(v, ReleaseRule::kFullAndPiecewiseGraphs) ? CudaGraphMode::kFullAndPiecewise : CudaGraphMode::kPiecewise;
}

}  // namespace

std::vector<int64_t> CudaGraphCaptureSizes(const CudaGraphSettings& s, const CudaGraphShape& shape) {
  std::vector<int64_t> sizes = s.capture_sizes;
  if (sizes.empty()) {
    const int64_t max = s.max_capture_size.value_or(std::min<int64_t>(2 * shape.max_num_seqs, 512));
    for (int64_t n : {1, 2, 4}) sizes.push_back(n);
    for (int64_t n = 8; n < 256; n += 8) sizes.push_back(n);
    for (int64_t n = 256; n <= max; n += 16) sizes.push_back(n);
    sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [&](int64_t n) { return n > max; }), sizes.end());
  } else if (s.max_capture_size) {
    sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [&](int64_t n) { return n > *s.max_capture_size; }),
                sizes.end());
  }
  sizes.erase(std::remove_if(sizes.begin(), sizes.end(),
                             [&](int64_t n) { return n < 1 || n > shape.max_num_batched_tokens; }),
              sizes.end());
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

CudaGraphMemory EstimateCudaGraphMemory(const CudaGraphSettings& s, const CudaGraphShape& shape,
                                        const VllmVersion& version) {
  CudaGraphMemory m;
  m.mode = shape.enforce_eager ? CudaGraphMode::kNone : s.mode.value_or(DefaultMode(version));
  const std::vector<int64_t> sizes = CudaGraphCaptureSizes(s, shape);
  const int64_t decode_batch = shape.max_num_seqs * (1 + shape.speculative_tokens);
  const auto decode_sizes =
      static_cast<int64_t>(std::count_if(sizes.begin(), sizes.end(), [&](int64_t n) { return n <= decode_batch; }));
  const auto all = static_cast<int64_t>(sizes.size());
  switch (m.mode) {
    case CudaGraphMode::kNone: break;
    case CudaGraphMode::kPiecewise: m.piecewise_graphs = all; break;
    case CudaGraphMode::kFull: m.full_graphs = all; break;
    case CudaGraphMode::kFullDecodeOnly: m.full_graphs = decode_sizes; break;
    case CudaGraphMode::kFullAndPiecewise: m.piecewise_graphs = all, m.full_graphs = decode_sizes; break;
  }
  const int64_t graphs = m.piecewise_graphs + m.full_graphs;
  m.bytes = graphs == 0 ? 0.0
                        : s.total_bytes.value_or(static_cast<double>(graphs) * static_cast<double>(shape.layers_on_gpu) *
                                                 kCudaGraphBytesPerLayerGraph);
  m.charged_to_kv = HasRule(version, ReleaseRule::kCudaGraphEstimateOptIn) && graphs > 0 &&
                    shape.profile_measures_graphs &&
                    s.estimate_in_budget.value_or(HasRule(version, ReleaseRule::kCudaGraphEstimateCharged));
  return m;
}

}  // namespace kvsim
