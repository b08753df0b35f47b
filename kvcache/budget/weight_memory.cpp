#include "kvcache/budget/weight_memory.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <tuple>

#include "kvcache/base/error.h"
#include "kvcache/base/units.h"

namespace kvsim {
namespace {

constexpr int64_t kVocabPadding = 64;  // vLLM DEFAULT_VOCAB_PADDING_SIZE

bool IsQuantized(const WeightTensor& t, const QuantizationSpec& quant) {
  if (quant.method == QuantMethod::kNone) return false;
  if (t.role == WeightRole::kLmHead) return quant.lm_head_quantized;
  if (quant.experts_only) return t.role == WeightRole::kExpert;
  if (quant.attention_unquantized && t.role == WeightRole::kAttention) return false;
  if (t.role == WeightRole::kAttention &&
      std::binary_search(quant.unquantized_mixer_layers.begin(), quant.unquantized_mixer_layers.end(), t.layer))
    return false;
  return t.role == WeightRole::kAttention || t.role == WeightRole::kMlp || t.role == WeightRole::kExpert;
}

// Shape of one rank's slice.
std::pair<int64_t, int64_t> ShardShape(const WeightTensor& t, const ModelSpec& spec, int tp) {
  switch (t.sharding) {
    case Sharding::kReplicated: return {t.rows, t.cols};
    case Sharding::kRows: return {CeilDiv(t.rows, tp), t.cols};
    case Sharding::kCols: return {t.rows, CeilDiv(t.cols, tp)};
    case Sharding::kKvHeads: {
      const int64_t per_head = t.rows / spec.num_kv_heads;
      return {std::max<int64_t>(1, spec.num_kv_heads / tp) * per_head, t.cols};
    }
    case Sharding::kVocab: {
      const int64_t padded = CeilDiv(t.rows, kVocabPadding) * kVocabPadding;
      return {CeilDiv(padded, tp), t.cols};
    }
  }
  return {t.rows, t.cols};
}

int64_t RoundUp(int64_t v, int64_t m) { return CeilDiv(v, m) * m; }

// vLLM's MXFP4 MoE kernels pad the hidden size to a multiple of 256 and each rank's slice of the
// expert width to a multiple of 64 (Mxfp4MoEMethod.create_weights), and allocate the padded size.
std::pair<int64_t, int64_t> PadForMxfp4(const WeightTensor& t, std::pair<int64_t, int64_t> shape) {
  auto [rows, cols] = shape;
  if (t.sharding == Sharding::kRows) return {RoundUp(rows / 2, 64) * 2, RoundUp(cols, 256)};  // gate_up: [2I, h]
  return {RoundUp(rows, 256), RoundUp(cols, 64)};                                              // down: [h, I]
}

}  // namespace

std::vector<std::pair<int64_t, int64_t>> PipelineStageLayers(int64_t num_layers, int pp,
                                                             const std::vector<int64_t>& partition) {
  std::vector<int64_t> sizes(pp, num_layers / pp);
  const int64_t remaining = num_layers % pp;
  for (int64_t i = 2; i < remaining + 2; ++i) sizes[pp - i] += 1;
  if (!partition.empty()) {
    std::string given = "VLLM_PP_LAYER_PARTITION (--pp-layer-partition) ";
    for (size_t i = 0; i < partition.size(); ++i) given += (i ? "," : "") + std::to_string(partition[i]);
    if (partition.size() != static_cast<size_t>(pp))
      throw Error(given + " gives " + std::to_string(partition.size()) + (partition.size() == 1 ? " stage" : " stages") +
                  " for --pipeline-parallel-size " + std::to_string(pp) +
                  "; vLLM refuses it (len(partitions) does not match pp_size)");
    int64_t layers = 0;
    for (int64_t n : partition) layers += n;  // each at most num_layers' range: ParsePipelineLayerPartition
    if (layers != num_layers)
      throw Error(given + " holds " + std::to_string(layers) + " layers, and the model has " + std::to_string(num_layers) +
                  "; vLLM refuses it (sum(partitions) does not match num_hidden_layers)");
    sizes = partition;
  }
  std::vector<std::pair<int64_t, int64_t>> ranges;
  int64_t start = 0;
  for (int64_t s : sizes) {
    ranges.emplace_back(start, start + s);
    start += s;
  }
  return ranges;
}

std::vector<int64_t> ParsePipelineLayerPartition(const std::string& text) {
  std::vector<int64_t> counts;
  if (text.empty()) return counts;
  const std::string what = "VLLM_PP_LAYER_PARTITION (--pp-layer-partition) '" + text + "'";
  for (size_t from = 0; from <= text.size();) {
    const size_t to = std::min(text.find(',', from), text.size());
    std::string item = text.substr(from, to - from);
    from = to + 1;
    // Python's int(): surrounding spaces, one sign, underscores only between digits.
    const size_t first = item.find_first_not_of(" \t"), last = item.find_last_not_of(" \t");
    item = first == std::string::npos ? std::string() : item.substr(first, last - first + 1);
    bool negative = false;
    size_t at = 0;
    if (!item.empty() && (item[0] == '+' || item[0] == '-')) negative = item[at++] == '-';
    int64_t n = 0;
    bool digits = false, valid = at < item.size();
    for (; at < item.size() && valid; ++at) {
      const char ch = item[at];
      if (ch == '_' && digits && at + 1 < item.size() && std::isdigit(static_cast<unsigned char>(item[at + 1]))) continue;
      if (!std::isdigit(static_cast<unsigned char>(ch))) valid = false;
      else if ((n = n * 10 + (ch - '0')) > 1000000000) valid = false;
      digits = true;
    }
    if (!valid)
      throw Error(what + ": '" + item + "' is not an integer, and vLLM reads each comma-separated item with int() "
                  "(\"Invalid partition string\")");
    if (negative && n > 0)
      throw Error(what + ": a stage cannot hold -" + std::to_string(n) + " layers (vLLM would build stages that overlap)");
    if (n == 0)
      throw Error(what + ": a stage without decoder layers is not modelled by kvsim (it holds only embeddings or the "
                  "LM head, and no KV cache)");
    counts.push_back(n);
  }
  return counts;
}

WeightMemory WeightsOnGpu(const ModelSpec& spec, const std::vector<WeightTensor>& tensors,
                          const QuantizationSpec& quant, NumericFormat dtype, int tp, int pp, int stage,
                          int expert_shards, double cpu_offload_bytes, const std::vector<int64_t>& pp_partition) {
  const auto ranges = PipelineStageLayers(spec.num_layers, pp, pp_partition);
  const auto [first, end] = ranges[stage];
  const double width = BytesPerElement(dtype);
  const QuantizationSpec attention = AttentionFormat(quant);
  WeightMemory m;
  for (const WeightTensor& t : tensors) {
    const bool here = t.layer >= 0 ? (t.layer >= first && t.layer < end)
                      : t.on_last_stage ? stage == pp - 1
                                        : stage == 0;
    if (!here) continue;
    auto [rows, cols] = ShardShape(t, spec, t.role == WeightRole::kExpert && expert_shards > 0 ? expert_shards : tp);
    if (quant.method == QuantMethod::kMxfp4 && t.role == WeightRole::kExpert)
      std::tie(rows, cols) = PadForMxfp4(t, {rows, cols});
    double bytes = 0;
    if (IsQuantized(t, quant)) {
      const QuantizationSpec& format = t.role == WeightRole::kAttention ? attention : quant;
      bytes = LinearWeightBytes(format, rows, cols, width) * static_cast<double>(t.copies);
      m.quantized_bytes += bytes;
    } else {
      bytes = static_cast<double>(rows) * static_cast<double>(cols) * static_cast<double>(t.copies) * width;
      m.full_width_bytes += bytes;
    }
    if (t.layer < 0 || t.role == WeightRole::kVision) continue;
    m.layer_bytes += bytes;
    if (m.cpu_offloaded_bytes < cpu_offload_bytes) m.cpu_offloaded_bytes += bytes;
  }
  m.rope_cache_bytes = static_cast<double>(spec.rope_cache_positions) * static_cast<double>(spec.rotary_dim) * width;
  return m;
}

}  // namespace kvsim
