#include "kvcache/training/activation_formulas.h"

namespace kvsim {

double LlmMemoryArticleBytes(const FormulaInputs& in) {
  const double L = static_cast<double>(in.layers), s = static_cast<double>(in.seq_len);
  const double b = static_cast<double>(in.micro_batch), d = static_cast<double>(in.hidden);
  const double h = static_cast<double>(in.heads), V = static_cast<double>(in.vocab);
  return (L * s * b * (32 * d + 4 * h * s) + 4 * b * s * d + 2 * b * s * V) / in.tp;
}

double KorthikantiBytes(const FormulaInputs& in) {
  const double s = static_cast<double>(in.seq_len), b = static_cast<double>(in.micro_batch);
  const double d = static_cast<double>(in.hidden), a = static_cast<double>(in.heads);
  const double t = in.tp, L = static_cast<double>(in.layers);
  const double sbd = s * b * d;
  Recompute mode = in.recompute;
  if (mode == Recompute::kNone && in.flash_attention) mode = Recompute::kSelective;
  double per_layer = 0;
  switch (mode) {
    case Recompute::kNone:
      per_layer = in.sequence_parallel ? sbd / t * (34 + 5 * a * s / d) : sbd * (10 + 24 / t + 5 * a * s / (d * t));
      break;
    case Recompute::kSelective:
      per_layer = in.sequence_parallel ? sbd * 34 / t : sbd * (10 + 24 / t);
      break;
    case Recompute::kFull:
      per_layer = 2 * sbd / (in.sequence_parallel ? t : 1);
      break;
  }
  return per_layer * L;
}

double HfHeuristicActivationsPerToken(double parameters) { return 4.6894e-4 * parameters + 1.8494e6; }

FormulaActivations ActivationsByFormula(const FormulaInputs& in) {
  FormulaActivations f;
  f.llm_memory_article = LlmMemoryArticleBytes(in);
  f.korthikanti = KorthikantiBytes(in);
  f.hf_activations_per_token = HfHeuristicActivationsPerToken(in.parameters);
  f.hf_heuristic = f.hf_activations_per_token * static_cast<double>(in.micro_batch * in.seq_len) * in.compute_bytes / in.tp;
  return f;
}

}  // namespace kvsim
