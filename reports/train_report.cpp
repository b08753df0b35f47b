#include "reports/train_report.h"

#include <cmath>

#include "kvcache/base/text_format.h"
#include "kvcache/base/units.h"
#include "reports/svg_chart.h"
#include "reports/text_table.h"

namespace kvsim {
namespace {

std::string G(double bytes) { return Format("%.2f", BytesToGiB(bytes)); }

std::string Versus(double value, double reference) {
  if (reference <= 0) return "";
  return Format("%+.1f%%", 100.0 * (value - reference) / reference);
}

std::string SettingsLine(const TrainReport& r) {
  const TrainingSetup& s = r.setup;
  std::string ft = NameOf(s.finetune);
  if (s.finetune != Finetune::kFull) ft += Format(" rank %lld on %s", static_cast<long long>(s.lora_rank), NameOf(s.lora_targets));
  return Format("settings: finetune %s, precision %s, optimizer %s, micro-batch %lld x seq-len %lld, recompute %s, flash-attention %s,\n"
                "          TP %d%s, PP %d (stage %d, %d micro-batch(es) in flight), DP %d, ZeRO %d%s\n",
                ft.c_str(), NameOf(s.precision), NameOf(s.optimizer), static_cast<long long>(s.micro_batch),
                static_cast<long long>(s.seq_len), NameOf(s.recompute), s.flash_attention ? "on" : "off", s.tp,
                s.sequence_parallel ? " + SP" : "", s.pp, r.memory.stage, r.memory.microbatches_in_flight, s.dp, s.zero,
                s.offload_optimizer ? ", optimizer offloaded to CPU" : "");
}

std::string ComponentTable(const TrainReport& r) {
  const TrainingMemory& m = r.memory;
  TextTable t({"per GPU (GiB = 2^30 bytes)", "GiB", "note"}, false);
  t.AddRow({"weights", G(m.weights), m.zero3_live_params > 0 ? "incl. ZeRO-3 live layer " + G(m.zero3_live_params) : ""});
  t.AddRow({"gradients", G(m.gradients), ""});
  t.AddRow({"optimizer states", G(m.optimizer),
            Format("fp32 master %s + moments %s", G(m.optimizer_master).c_str(), G(m.optimizer_moments).c_str()) +
                (m.optimizer_cpu > 0 ? ", " + G(m.optimizer_cpu) + " on the CPU" : "")});
  t.AddRow({"optimizer intermediates (step)", G(m.optimizer_intermediates), ""});
  t.AddRow({"activations (tensor by tensor)", G(m.activations),
            Format("saved %s + largest transient %s", G(m.activations_saved).c_str(), G(m.activations_transient).c_str())});
  t.AddRow({"CUDA context", G(m.cuda_context), ""});
  t.AddRow({"allocator reserve", G(m.allocator_reserve), "largest single activation tensor"});
  t.AddRow({"peak", G(m.peak), m.peak_in_optimizer_step ? "at the optimizer step" : "at the end of the forward pass"});
  if (m.gpu_memory > 0) {
    t.AddRow({"GPU memory (CUDA total)", G(m.gpu_memory), ""});
    t.AddRow({m.fits ? "fits, to spare" : "does NOT fit, short by", G(std::fabs(m.margin)), ""});
  }
  return t.Render() + "peak = weights + optimizer + max(gradients + optimizer intermediates, activations) + CUDA context"
                      " + allocator reserve (PyTorch-memory article's rule)\n";
}

std::string FormulaTable(const TrainReport& r) {
  const TrainingMemory& m = r.memory;
  const FormulaActivations& f = m.by_formula;
  TextTable t({"activations per GPU", "GiB", "vs kvsim"}, false);
  t.AddRow({"kvsim, tensor by tensor (saved + transient)", G(m.activations), ""});
  if (r.setup.model) {
    t.AddRow({"LLM-memory article: L*s*b*(32d + 4*h*s) + 4bsd + 2bsV", G(f.llm_memory_article), Versus(f.llm_memory_article, m.activations)});
    t.AddRow({std::string("Korthikanti et al., ") + KorthikantiVariant(r.setup), G(f.korthikanti), Versus(f.korthikanti, m.activations)});
  }
  t.AddRow({Format("PyTorch-memory heuristic: A*b*s*bytes, A = 4.6894e-4*N + 1.8494e6 = %.0f", f.hf_activations_per_token),
            G(f.hf_heuristic), Versus(f.hf_heuristic, m.activations)});
  return t.Render();
}

std::string LayerTable(const TrainingMemory& m) {
  TextTable t({"one layer saves, per token", "bytes"});
  for (const auto& x : m.layer_tensors) t.AddRow({x.name, Format("%.0f", x.bytes_per_token)});
  t.AddRow({"kept until backward (after recompute)", Format("%.0f", m.layer_kept_bytes_per_token)});
  for (const auto& x : m.head_tensors) t.AddRow({"head: " + x.name, Format("%.0f", x.bytes_per_token)});
  return t.Render();
}

}  // namespace

std::string KorthikantiVariant(const TrainingSetup& s) {
  Recompute mode = s.recompute;
  if (mode == Recompute::kNone && s.flash_attention) mode = Recompute::kSelective;
  switch (mode) {
    case Recompute::kNone:
      return s.sequence_parallel ? "TP+SP: L*s*b*h/t*(34 + 5as/h)" : "L*s*b*h*(10 + 24/t + 5as/(h*t))";
    case Recompute::kSelective:
      return std::string(s.sequence_parallel ? "selective + SP: L*s*b*h*34/t" : "selective: L*s*b*h*(10 + 24/t)") +
             (s.recompute == Recompute::kNone ? " (FlashAttention)" : "");
    case Recompute::kFull:
      return s.sequence_parallel ? "full recompute: L*2sbh/t" : "full recompute: L*2sbh";
  }
  return "";
}

std::string RenderTrainText(const TrainReport& r) {
  const TrainingMemory& m = r.memory;
  std::string out = "kvsim train: " + r.model + (r.gpu.empty() ? "" : " on " + r.gpu) + "\n";
  out += SettingsLine(r);
  out += "parameters: " + Thousands(static_cast<int64_t>(std::llround(m.parameters))) + ", trainable " +
         Thousands(static_cast<int64_t>(std::llround(m.trainable_parameters))) + "\n\n";
  out += ComponentTable(r) + "\n";
  out += FormulaTable(r) + "\n";
  out += Format("model states by the articles' conventions (all parameters, one GPU): 16 phi = %s GiB (ZeRO: 2+2+12), "
                "18 phi = %s (Megatron: fp32 gradients), 20 phi = %s (16-bit + fp32 gradients)\n",
                G(m.phi16).c_str(), G(m.phi18).c_str(), G(m.phi20).c_str());
  if (r.max_micro_batch >= 0)
    out += Format("\nlargest micro-batch size that fits: %lld\n", static_cast<long long>(r.max_micro_batch));
  if (r.setup.model) out += "\n" + LayerTable(m);
  for (const auto& n : m.notes) out += "note: " + n + "\n";
  return out;
}

nlohmann::json TrainToJson(const TrainReport& r) {
  const TrainingMemory& m = r.memory;
  const TrainingSetup& s = r.setup;
  auto B = [](double v) { return std::llround(v); };
  nlohmann::json j;
  j["model"] = r.model;
  if (!r.gpu.empty()) j["gpu"] = r.gpu;
  j["settings"] = {{"finetune", NameOf(s.finetune)}, {"precision", NameOf(s.precision)}, {"optimizer", NameOf(s.optimizer)},
                   {"micro_batch_size", s.micro_batch}, {"seq_len", s.seq_len}, {"recompute", NameOf(s.recompute)},
                   {"flash_attention", s.flash_attention}, {"tensor_parallel_size", s.tp},
                   {"sequence_parallel", s.sequence_parallel}, {"pipeline_parallel_size", s.pp},
                   {"data_parallel_size", s.dp}, {"zero", s.zero}, {"offload_optimizer", s.offload_optimizer}};
  if (s.finetune != Finetune::kFull) {
    j["settings"]["lora_rank"] = s.lora_rank;
    j["settings"]["lora_targets"] = NameOf(s.lora_targets);
  }
  j["parameters"] = B(m.parameters);
  j["trainable_parameters"] = B(m.trainable_parameters);
  j["pipeline_stage"] = m.stage;
  j["microbatches_in_flight"] = m.microbatches_in_flight;
  j["per_gpu_bytes"] = {{"weights", B(m.weights)}, {"gradients", B(m.gradients)}, {"optimizer", B(m.optimizer)},
                        {"optimizer_master", B(m.optimizer_master)}, {"optimizer_moments", B(m.optimizer_moments)},
                        {"activations", B(m.activations)}, {"activations_saved", B(m.activations_saved)},
                        {"activations_transient", B(m.activations_transient)},
                        {"optimizer_intermediates", B(m.optimizer_intermediates)}, {"zero3_live_params", B(m.zero3_live_params)},
                        {"cuda_context", B(m.cuda_context)}, {"allocator_reserve", B(m.allocator_reserve)}, {"peak", B(m.peak)}};
  j["cpu_bytes"] = {{"optimizer", B(m.optimizer_cpu)}};
  j["activations_by_formula"] = {{"llm_memory_article", B(m.by_formula.llm_memory_article)},
                                 {"korthikanti", B(m.by_formula.korthikanti)},
                                 {"korthikanti_variant", KorthikantiVariant(s)},
                                 {"hf_heuristic", B(m.by_formula.hf_heuristic)},
                                 {"hf_activations_per_token", m.by_formula.hf_activations_per_token}};
  j["model_states_by_convention_bytes"] = {{"16phi", B(m.phi16)}, {"18phi", B(m.phi18)}, {"20phi", B(m.phi20)}};
  if (m.gpu_memory > 0) {
    j["gpu_memory_bytes"] = B(m.gpu_memory);
    j["fits"] = m.fits;
    j["margin_bytes"] = B(m.margin);
  }
  if (r.max_micro_batch >= 0) j["max_micro_batch_size"] = r.max_micro_batch;
  j["layer_tensors_bytes_per_token"] = nlohmann::json::array();
  for (const auto& t : m.layer_tensors) j["layer_tensors_bytes_per_token"].push_back({{"name", t.name}, {"bytes", t.bytes_per_token}});
  j["notes"] = m.notes;
  return j;
}

std::string RenderTrainSvg(const TrainReport& r) {
  const auto& tl = r.memory.timeline;
  std::vector<double> x;
  std::vector<Series> series = {{"weights", "#4a6fa5", {}, {}}, {"optimizer states", "#48a868", {}, {}},
                                {"gradients", "#e0b020", {}, {}}, {"optimizer step temps", "#d04848", {}, {}},
                                {"activations", "#f08c3c", {}, {}}};
  double top = 0;
  for (size_t i = 0; i < tl.size(); ++i) {
    x.push_back(static_cast<double>(i));
    const TimelinePoint& p = tl[i];
    const double v[] = {p.weights, p.optimizer, p.gradients, p.intermediates, p.activations};
    for (size_t k = 0; k < series.size(); ++k) series[k].y.push_back(BytesToGiB(v[k]));
    top = std::max(top, BytesToGiB(p.total()));
  }
  const AxisLabels labels{"memory over one iteration, per GPU (forward, backward, optimizer step)",
                          "step of the iteration (layers forward, loss, layers backward, optimizer)", "GiB"};
  return SvgStackedArea(labels, x, series, {}, top > 0 ? top * 1.05 : 1.0, false);
}

std::string RenderTrainHtml(const TrainReport& r) {
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>kvsim train</title><style>"
      "body{font-family:system-ui,sans-serif;margin:24px;max-width:1100px}.title{font-size:14px;font-weight:600}"
      ".tick{font-size:11px;fill:#4a5568}.axis{font-size:12px}pre{font-size:12px}</style></head><body>\n"
      "<h1>kvsim train</h1>\n<pre>" + HtmlEscape(RenderTrainText(r)) + "</pre>\n";
  html += "<h2>Memory over one iteration</h2>\n" + RenderTrainSvg(r);
  return html + "</body></html>\n";
}

}  // namespace kvsim
