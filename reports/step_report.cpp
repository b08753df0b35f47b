#include "reports/step_report.h"

#include <cmath>

#include "kvcache/base/text_format.h"
#include "reports/capacity_report.h"
#include "reports/text_table.h"

namespace kvsim {
namespace {

double Nanos(double seconds) { return std::round(seconds * 1e9) / 1e9; }

std::string Ms(double seconds) { return Format("%.3f", seconds * 1e3); }

std::string Share(double part, double total) { return total > 0 ? Format("%.1f%%", 100 * part / total) : "-"; }

std::string BatchText(const StepBatch& b) {
  std::string text;
  if (b.decode_seqs > 0)
    text = Format("%lld decode sequences at context %lld", static_cast<long long>(b.decode_seqs),
                  static_cast<long long>(b.decode_context));
  if (b.prefill_seqs > 0)
    text += (text.empty() ? "" : " + ") + Format("%lld prefills of %lld tokens after %lld cached",
                                                 static_cast<long long>(b.prefill_seqs),
                                                 static_cast<long long>(b.prefill_tokens),
                                                 static_cast<long long>(b.prefill_context));
  return text;
}

}  // namespace

std::string RenderStepText(const StepReport& r) {
  const EffectiveSettings& s = r.settings;
  std::string out = Format("One engine step of %s on %s (TP %d, PP %d, dtype %s, quantization %s, KV %s)\n",
                           s.model.c_str(), s.gpu_name.c_str(), s.tensor_parallel_size, s.pipeline_parallel_size,
                           s.dtype.c_str(), s.quantization.empty() ? "none" : s.quantization.c_str(),
                           s.kv_cache_dtype.c_str());
  out += "Batch: " + BatchText(r.batch) + Format(" = %lld new tokens, %lld context tokens read\n",
                                                 static_cast<long long>(r.work.new_tokens),
                                                 static_cast<long long>(r.work.context_tokens));
  out += "Step time model: " + r.step_time_model + "\n\n";
  const double total = r.seconds.total();
  TextTable parts({"component", "ms", "share"});
  const std::pair<const char*, double> rows[] = {
      {"linear", r.seconds.linear},   {"attention", r.seconds.attention},         {"other", r.seconds.other},
      {"lm_head", r.seconds.lm_head}, {"communication", r.seconds.communication}, {"overhead", r.seconds.overhead}};
  for (const auto& [name, v] : rows) parts.AddRow({name, Ms(v), Share(v, total)});
  parts.AddRow({"total", Ms(total), "100.0%"});
  out += parts.Render();
  if (!r.operators.empty()) {
    out += "\nOperators (summed over the layers; one TP rank):\n";
    TextTable ops({"operator", "component", "kernels", "GFLOP", "MB moved", "ms"});
    for (const OperatorCost& op : r.operators)
      ops.AddRow({op.name, op.group, std::to_string(op.kernels), Format("%.2f", op.flops / 1e9),
                  Format("%.2f", op.bytes / 1e6), Ms(op.seconds)});
    out += ops.Render();
  }
  out += "\nMB = 10^6 bytes; GFLOP = 10^9 floating-point operations; ms = 10^-3 s\n";
  return out;
}

nlohmann::json StepToJson(const StepReport& r) {
  nlohmann::json j;
  j["kvsim_version"] = KVSIM_VERSION;
  j["settings"] = SettingsToJson(r.settings);
  j["step_time_model"] = r.step_time_model;
  j["batch"] = {{"decode_seqs", r.batch.decode_seqs},       {"decode_context", r.batch.decode_context},
                {"prefill_seqs", r.batch.prefill_seqs},     {"prefill_tokens", r.batch.prefill_tokens},
                {"prefill_context", r.batch.prefill_context}, {"new_tokens", r.work.new_tokens},
                {"context_tokens", r.work.context_tokens},   {"attended_pairs", r.work.attended}};
  const StepBreakdown& s = r.seconds;
  j["seconds"] = {{"linear", Nanos(s.linear)},   {"attention", Nanos(s.attention)},
                  {"other", Nanos(s.other)},     {"lm_head", Nanos(s.lm_head)},
                  {"communication", Nanos(s.communication)}, {"overhead", Nanos(s.overhead)},
                  {"total", Nanos(s.total())}};
  j["operators"] = nlohmann::json::array();
  for (const OperatorCost& op : r.operators)
    j["operators"].push_back({{"name", op.name}, {"component", op.group}, {"kernels", op.kernels},
                              {"flops", op.flops}, {"bytes", op.bytes}, {"seconds", Nanos(op.seconds)}});
  return j;
}

}  // namespace kvsim
