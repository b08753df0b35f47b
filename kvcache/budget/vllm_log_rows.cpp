#include "kvcache/budget/vllm_log_rows.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <stdexcept>
#include <tuple>

#include "kvcache/base/csv_cells.h"
#include "kvcache/base/error.h"
#include "kvcache/base/line_reader.h"
#include "kvcache/base/text_format.h"
#include "kvcache/budget/serve_settings.h"

namespace kvsim {
namespace {

constexpr const char* kColumns[] = {
    "row_id", "engine", "vllm_version", "model_id", "quantization", "dtype", "kv_cache_dtype", "gpu_model",
    "total_gpu_memory_gib", "tensor_parallel_size", "pipeline_parallel_size", "gpu_memory_utilization",
    "max_model_len", "max_num_seqs", "max_num_batched_tokens", "block_size", "weights_gib", "non_torch_gib",
    "activation_peak_gib", "kv_cache_gib", "gpu_kv_cache_tokens", "num_gpu_blocks", "max_concurrency",
    "config_file", "config_match", "source", "notes", "source_detail"};
// Columns a table may leave out (older tables predate them): blank in every row then.
constexpr const char* kOptionalColumns[] = {"max_loras", "max_lora_rank", "speculative_config", "enforce_eager",
                                            "kv_cache_memory_bytes"};
constexpr size_t kNumRequired = sizeof(kColumns) / sizeof(kColumns[0]);
constexpr size_t kNumColumns = kNumRequired + sizeof(kOptionalColumns) / sizeof(kOptionalColumns[0]);
constexpr size_t kAbsent = static_cast<size_t>(-1);

const char* ColumnName(size_t i) { return i < kNumRequired ? kColumns[i] : kOptionalColumns[i - kNumRequired]; }

// Cells of one row: blank is "not stated in the log"; anything else must be a number within the
// column's range, or the error names file, line, column and range.
class CellParser {
 public:
  CellParser(const std::string& path, unsigned line) : path_(path), line_(line) {}

  std::optional<double> Number(const std::string& cell, const char* column, double lo = 0, double hi = 1e7) const {
    if (cell.empty()) return std::nullopt;
    try {
      // std::stod also reads hexadecimal ("0x10" is 16): a logged figure is a decimal.
      if (cell.substr(0, cell.find(' ')).find_first_of("xX") != std::string::npos) throw std::invalid_argument(cell);
      size_t used = 0;
      const double v = std::stod(cell, &used);
      // A note may follow the number after a space ("0.93 (mem-fraction-static)").
      const bool whole = used == cell.size() || cell[used] == ' ';
      if (whole && std::isfinite(v) && v >= lo && v <= hi) return v;
    } catch (const std::exception&) {
    }
    throw Error(path_ + ":" + std::to_string(line_) + ": column " + column + ": '" + PrintableExcerpt(cell) +
                "' is not a number in [" + Format("%g", lo) + ", " + Format("%g", hi) + "]");
  }

  // The cell read by the parser of the vLLM flag it stands for; that parser's message, prefixed
  // with file, line and column, when it refuses the value.
  template <typename Read>
  void AsFlag(const char* column, Read read) const {
    try {
      read();
    } catch (const Error& e) {
      throw Error(path_ + ":" + std::to_string(line_) + ": column " + column + ": " + e.what());
    }
  }

  std::optional<long long> Integer(const std::string& cell, const char* column, double hi) const {
    auto v = Number(cell, column, 0, hi);
    if (!v) return std::nullopt;
    // A count (GPUs, tokens, blocks) of 1.5 is a typo; rounding it would plan TP 2 from "1.5".
    if (*v != std::floor(*v))
      throw Error(path_ + ":" + std::to_string(line_) + ": column " + column + ": '" + PrintableExcerpt(cell) +
                  "' is not a whole number");
    return static_cast<long long>(*v);  // in range and whole: the conversion is exact
  }

 private:
  const std::string& path_;
  unsigned line_;
};

VllmLogRow ParseRow(const std::string& path, unsigned line, const std::vector<std::string>& c) {
  VllmLogRow r;
  r.line = line;
  const CellParser p(path, r.line);
  r.row_id = c[0];
  r.engine = c[1];
  // The engines the table records (OptionsForLogRow plans each); another name would be planned as
  // vLLM V1 without a word.
  if (!r.engine.empty() && r.engine != "v0" && r.engine != "v1" && r.engine != "vllm" && r.engine != "SGLang")
    throw Error(path + ":" + std::to_string(line) + ": column engine: '" + PrintableExcerpt(r.engine) +
                "' is not v0, v1, vllm, SGLang or blank");
  r.vllm_version = c[2];
  r.model_id = c[3];
  r.quantization = c[4];
  r.dtype = c[5];
  r.kv_cache_dtype = c[6];
  r.gpu_model = c[7];
  constexpr double kTokens = 4294967296.0;  // 2^32, as --max-model-len
  r.total_gpu_memory_gib = p.Number(c[8], "total_gpu_memory_gib", 0, 1e6);
  r.tensor_parallel_size = p.Integer(c[9], "tensor_parallel_size", 1024);
  r.pipeline_parallel_size = p.Integer(c[10], "pipeline_parallel_size", 1024);
  r.gpu_memory_utilization = p.Number(c[11], "gpu_memory_utilization", 0, 1);
  r.max_model_len = p.Integer(c[12], "max_model_len", kTokens);
  r.max_num_seqs = p.Integer(c[13], "max_num_seqs", 1e7);
  r.max_num_batched_tokens = p.Integer(c[14], "max_num_batched_tokens", kTokens);
  r.block_size = p.Integer(c[15], "block_size", 1048576);
  r.weights_gib = p.Number(c[16], "weights_gib", 0, 1e6);
  r.non_torch_gib = p.Number(c[17], "non_torch_gib", 0, 1e6);
  r.activation_peak_gib = p.Number(c[18], "activation_peak_gib", 0, 1e6);
  // Negative: vLLM printed what was left and refused to start (the weights and profile took more);
  // such a row is a case kvsim must refuse too, not bad input.
  r.kv_cache_gib = p.Number(c[19], "kv_cache_gib", -1e6, 1e6);
  r.gpu_kv_cache_tokens = p.Integer(c[20], "gpu_kv_cache_tokens", 1e15);
  r.num_gpu_blocks = p.Integer(c[21], "num_gpu_blocks", 1e15);
  r.max_concurrency = p.Number(c[22], "max_concurrency", 0, 1e15);
  r.source_detail = c[27];
  r.config_file = c[24].rfind("no config", 0) == 0 ? "" : c[23];
  r.max_loras = c[28];
  r.max_lora_rank = c[29];
  r.speculative_config = c[30];
  // One cell at a time (the other left at vLLM's default), so the error names the right column.
  for (const auto& [column, text, field] :
       {std::tuple<const char*, const std::string&, std::string DeploymentOptions::*>{
            "max_loras", r.max_loras, &DeploymentOptions::max_loras},
        {"max_lora_rank", r.max_lora_rank, &DeploymentOptions::max_lora_rank}}) {
    if (text.empty()) continue;
    DeploymentOptions lora;
    lora.enable_lora = true;
    lora.*field = text;
    p.AsFlag(column, [&] { ReadLora(lora); });
  }
  p.AsFlag("speculative_config", [&] { ReadSpeculative(r.speculative_config); });
  std::string eager = c[31];
  std::transform(eager.begin(), eager.end(), eager.begin(), [](unsigned char ch) { return std::tolower(ch); });
  if (eager == "true") r.enforce_eager = true;
  else if (!eager.empty() && eager != "false")
    throw Error(path + ":" + std::to_string(line) + ": column enforce_eager: '" + PrintableExcerpt(c[31]) +
                "' is not true, false or blank");
  r.kv_cache_memory_bytes = p.Integer(c[32], "kv_cache_memory_bytes", 1e15);
  return r;
}

}  // namespace

std::vector<VllmLogRow> ReadVllmLogRows(const std::string& path) {
  LineReader in(path, "the vLLM log CSV");
  std::string line;
  std::vector<std::string> header, cells;
  if (!in.Next(line)) throw Error(path + ": empty file (expected a CSV header)");
  if (!SplitCsvLine(line, header)) throw Error(path + ":1: the CSV header has an unterminated quote");
  // A column named twice would have one of its cells ignored without a word.
  for (auto it = header.begin(); it != header.end(); ++it)
    if (!it->empty() && std::find(it + 1, header.end(), *it) != header.end())
      throw Error(path + ":1: column '" + PrintableExcerpt(*it) + "' appears twice in the header");
  size_t index[kNumColumns];
  for (size_t i = 0; i < kNumColumns; ++i) {
    const auto it = std::find(header.begin(), header.end(), ColumnName(i));
    if (it == header.end() && i < kNumRequired) throw Error(path + ":1: missing column '" + kColumns[i] + "'");
    index[i] = it == header.end() ? kAbsent : static_cast<size_t>(it - header.begin());
  }
  std::vector<VllmLogRow> rows;
  std::vector<std::string> c(kNumColumns);
  while (in.Next(line)) {
    if (IsBlankLine(line)) continue;
    const std::string where = path + ":" + std::to_string(in.line_number()) + ": ";
    if (!SplitCsvLine(line, cells)) throw Error(where + "unterminated quote");
    if (cells.size() != header.size())
      throw Error(where + "the row has " + std::to_string(cells.size()) + " cells, the header has " +
                  std::to_string(header.size()));
    for (size_t i = 0; i < kNumColumns; ++i) c[i] = index[i] == kAbsent ? std::string() : cells[index[i]];
    if (in.line_number() > static_cast<int64_t>(UINT_MAX)) throw Error(where + "too many lines");
    rows.push_back(ParseRow(path, static_cast<unsigned>(in.line_number()), c));
  }
  return rows;
}

}  // namespace kvsim
