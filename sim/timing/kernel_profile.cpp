#include "sim/timing/kernel_profile.h"

#include <libfccp/csv.h>

#include <cmath>

#include "kvcache/base/checked_math.h"
#include "kvcache/base/error.h"
#include "kvcache/base/quantity_parse.h"

namespace kvsim {
namespace {

// Cells through the base layer's strict number parser, errors naming the file, line and column.
class CellReader {
 public:
  CellReader(const std::string& path, int64_t line) : where_(path + ":" + std::to_string(line) + ": column ") {}
  double NonNegative(const std::string& cell, const char* column) const {
    const double v = ParseFiniteNumber(cell, where_ + column);
    if (v < 0) throw Error(where_ + column + ": '" + cell + "' is negative");
    return v;
  }
  int64_t Count(const std::string& cell, const char* column) const {
    const double v = NonNegative(cell, column);
    if (v != std::floor(v)) throw Error(where_ + column + ": '" + cell + "' is not a whole number");
    return RoundToInt64OrThrow(v, 1, 1000000000, where_ + column);
  }

 private:
  std::string where_;
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
      r.qkv_s = c.NonNegative(qkv, "time_stats.attn_pre_proj.median") * 1e-3;
      r.o_s = c.NonNegative(o, "time_stats.attn_post_proj.median") * 1e-3;
      r.up_s = c.NonNegative(up, "time_stats.mlp_up_proj.median") * 1e-3;
      r.down_s = c.NonNegative(down, "time_stats.mlp_down_proj.median") * 1e-3;
      r.norm_s = c.NonNegative(norm, "time_stats.input_layernorm.median") * 1e-3;
      r.rope_s = c.NonNegative(rope, "time_stats.attn_rope.median") * 1e-3;
      r.act_s = c.NonNegative(act, "time_stats.mlp_act.median") * 1e-3;
      r.add_s = c.NonNegative(add, "time_stats.add.median") * 1e-3;
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
