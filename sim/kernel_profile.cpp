#include "sim/kernel_profile.h"

#include <libfccp/csv.h>

#include <cmath>

#include "kvcache/base/error.h"

namespace kvsim {
namespace {

class CellReader {
 public:
  CellReader(std::string path, int64_t line) : path_(std::move(path)), line_(line) {}
  double Positive(const std::string& cell, const char* column) const {
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(cell, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != cell.size() || !std::isfinite(v) || v < 0)
      throw Error(path_ + ":" + std::to_string(line_) + ": column " + column + ": '" + cell + "' is not a non-negative number");
    return v;
  }
  int64_t Count(const std::string& cell, const char* column) const {
    const double v = Positive(cell, column);
    if (v != std::floor(v) || v < 1 || v > 1e9)
      throw Error(path_ + ":" + std::to_string(line_) + ": column " + column + ": '" + cell + "' is not a positive whole number");
    return static_cast<int64_t>(v);
  }

 private:
  std::string path_;
  int64_t line_;
};

}  // namespace

std::vector<KernelProfileRow> ReadKernelProfile(const std::string& path) {
  std::vector<KernelProfileRow> rows;
  try {
    io::CSVReader<16, io::trim_chars<' '>, io::double_quote_escape<',', '"'>> in(path);
    in.read_header(io::ignore_extra_column, "time_stats.attn_pre_proj.median", "time_stats.attn_post_proj.median",
                   "time_stats.mlp_up_proj.median", "time_stats.mlp_down_proj.median",
                   "time_stats.input_layernorm.median", "time_stats.attn_rope.median", "time_stats.mlp_act.median",
                   "time_stats.add.median", "n_head", "n_kv_head", "n_embd", "n_expanded_embd", "use_gated_mlp",
                   "num_tokens", "num_tensor_parallel_workers", "vocab_size");
    std::string qkv, o, up, down, norm, rope, act, add, heads, kv, hidden, ffn, gated, tokens, tp, vocab;
    while (in.read_row(qkv, o, up, down, norm, rope, act, add, heads, kv, hidden, ffn, gated, tokens, tp, vocab)) {
      KernelProfileRow r;
      r.line = in.get_file_line();
      const CellReader c(path, r.line);
      r.qkv_s = c.Positive(qkv, "time_stats.attn_pre_proj.median") * 1e-3;
      r.o_s = c.Positive(o, "time_stats.attn_post_proj.median") * 1e-3;
      r.up_s = c.Positive(up, "time_stats.mlp_up_proj.median") * 1e-3;
      r.down_s = c.Positive(down, "time_stats.mlp_down_proj.median") * 1e-3;
      r.norm_s = c.Positive(norm, "time_stats.input_layernorm.median") * 1e-3;
      r.rope_s = c.Positive(rope, "time_stats.attn_rope.median") * 1e-3;
      r.act_s = c.Positive(act, "time_stats.mlp_act.median") * 1e-3;
      r.add_s = c.Positive(add, "time_stats.add.median") * 1e-3;
      r.heads = c.Count(heads, "n_head");
      r.kv_heads = c.Count(kv, "n_kv_head");
      r.hidden = c.Count(hidden, "n_embd");
      r.ffn = c.Count(ffn, "n_expanded_embd");
      r.tokens = c.Count(tokens, "num_tokens");
      r.tp = c.Count(tp, "num_tensor_parallel_workers");
      if (gated != "True" && gated != "False" && gated != "true" && gated != "false")
        throw Error(path + ":" + std::to_string(r.line) + ": column use_gated_mlp: '" + gated + "' is not True or False");
      r.gated = gated == "True" || gated == "true";
      if (r.heads % r.tp != 0 || r.hidden % r.heads != 0)
        throw Error(path + ":" + std::to_string(r.line) + ": n_head " + heads + " is not a multiple of the TP size " + tp +
                    " or does not divide n_embd " + hidden);
      rows.push_back(r);
    }
  } catch (const io::error::base& e) {
    throw Error(path + ": " + e.what());
  }
  if (rows.empty()) throw Error(path + ": no profile rows");
  return rows;
}

}  // namespace kvsim
