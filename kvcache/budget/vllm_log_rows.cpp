#include "kvcache/budget/vllm_log_rows.h"

#include <cmath>
#include <libfccp/csv.h>

#include "kvcache/base/error.h"

namespace kvsim {
namespace {

class CellParser {
 public:
  CellParser(const std::string& path, unsigned line) : path_(path), line_(line) {}

  std::optional<double> Number(const std::string& cell, const char* column) const {
    if (cell.empty()) return std::nullopt;
    try {
      size_t used = 0;
      const double v = std::stod(cell, &used);
      if (std::isfinite(v)) return v;
    } catch (const std::exception&) {
    }
    throw Error(path_ + ":" + std::to_string(line_) + ": column " + column + ": '" + cell + "' is not a number");
  }

  std::optional<long long> Integer(const std::string& cell, const char* column) const {
    auto v = Number(cell, column);
    if (!v) return std::nullopt;
    return static_cast<long long>(std::llround(*v));
  }

 private:
  const std::string& path_;
  unsigned line_;
};

}  // namespace

std::vector<VllmLogRow> ReadVllmLogRows(const std::string& path) {
  std::vector<VllmLogRow> rows;
  try {
    io::CSVReader<28, io::trim_chars<' '>, io::double_quote_escape<',', '"'>> in(path);
    in.read_header(io::ignore_extra_column, "row_id", "engine", "vllm_version", "model_id", "quantization", "dtype",
                   "kv_cache_dtype", "gpu_model", "total_gpu_memory_gib", "tensor_parallel_size",
                   "pipeline_parallel_size", "gpu_memory_utilization", "max_model_len", "max_num_seqs",
                   "max_num_batched_tokens", "block_size", "weights_gib", "non_torch_gib", "activation_peak_gib",
                   "kv_cache_gib", "gpu_kv_cache_tokens", "num_gpu_blocks", "max_concurrency", "config_file",
                   "config_match", "source", "notes", "source_detail");
    std::string c[28];
    while (in.read_row(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11], c[12], c[13], c[14],
                       c[15], c[16], c[17], c[18], c[19], c[20], c[21], c[22], c[23], c[24], c[25], c[26], c[27])) {
      VllmLogRow r;
      r.line = in.get_file_line();
      const CellParser p(path, r.line);
      r.row_id = c[0];
      r.engine = c[1];
      r.vllm_version = c[2];
      r.model_id = c[3];
      r.quantization = c[4];
      r.dtype = c[5];
      r.kv_cache_dtype = c[6];
      r.gpu_model = c[7];
      r.total_gpu_memory_gib = p.Number(c[8], "total_gpu_memory_gib");
      r.tensor_parallel_size = p.Integer(c[9], "tensor_parallel_size");
      r.pipeline_parallel_size = p.Integer(c[10], "pipeline_parallel_size");
      r.gpu_memory_utilization = p.Number(c[11], "gpu_memory_utilization");
      r.max_model_len = p.Integer(c[12], "max_model_len");
      r.max_num_seqs = p.Integer(c[13], "max_num_seqs");
      r.max_num_batched_tokens = p.Integer(c[14], "max_num_batched_tokens");
      r.block_size = p.Integer(c[15], "block_size");
      r.weights_gib = p.Number(c[16], "weights_gib");
      r.non_torch_gib = p.Number(c[17], "non_torch_gib");
      r.activation_peak_gib = p.Number(c[18], "activation_peak_gib");
      r.kv_cache_gib = p.Number(c[19], "kv_cache_gib");
      r.gpu_kv_cache_tokens = p.Integer(c[20], "gpu_kv_cache_tokens");
      r.num_gpu_blocks = p.Integer(c[21], "num_gpu_blocks");
      r.max_concurrency = p.Number(c[22], "max_concurrency");
      r.source_detail = c[27];
      r.config_file = c[24].rfind("no config", 0) == 0 ? "" : c[23];
      rows.push_back(std::move(r));
    }
  } catch (const io::error::base& e) {
    throw Error(path + ": " + e.what());
  }
  return rows;
}

}  // namespace kvsim
