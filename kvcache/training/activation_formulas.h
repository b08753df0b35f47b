// The source articles' closed-form activation estimates, printed beside kvsim's tensor-by-tensor
// count so users see where each is wrong. All in bytes (16-bit activations unless noted):
//
//   LLM-memory article (003)   L·s·b·(32d + 4·h·s) + 4bsd + 2bsV       h = attention heads; assumes a
//                              SwiGLU MLP of 8/3·d, full multi-head K/V, no FlashAttention, no recompute
//   Korthikanti et al. (000)   per layer s·b·d·(34 + 5·h·s/d)           no parallelism, no recompute
//                              s·b·d·(10 + 24/t + 5·h·s/(d·t))          tensor parallel t
//                              s·b·d/t·(34 + 5·h·s/d)                   tensor + sequence parallel
//                              s·b·d·(10 + 24/t)                        selective recompute + TP
//                              s·b·d·34/t                               selective + TP + SP
//                              2·s·b·d (÷ t with SP)                    full recompute
//                              FlashAttention never materialises the 5·h·s/d term: kvsim uses the
//                              selective variant then. Times the layers held by the first pipeline
//                              stage (L/P layers × P micro-batches in flight = L).
//   PyTorch-memory article (002) A·b·s·bytes with A = 4.6894e-4·N + 1.8494e6 activations per token
//                              (a fit over models; the article measured 5,065,216 for Qwen2.5-1.5B)
// Per GPU: the articles divide activations by the tensor-parallel size (article 003's TP rule).
#ifndef KVSIM_KVCACHE_BUDGET_ACTIVATION_FORMULAS_H_
#define KVSIM_KVCACHE_BUDGET_ACTIVATION_FORMULAS_H_

#include <cstdint>

#include "kvcache/training/training_activations.h"

namespace kvsim {

struct FormulaInputs {
  int64_t layers = 0, hidden = 0, heads = 0, vocab = 0;
  int64_t micro_batch = 1, seq_len = 1;
  double parameters = 0;       // N of the heuristic
  double compute_bytes = 2;    // bytes of the heuristic
  int tp = 1;
  bool sequence_parallel = false;
  bool flash_attention = false;
  Recompute recompute = Recompute::kNone;
};

struct FormulaActivations {
  double llm_memory_article = 0;  // bytes per GPU
  double korthikanti = 0;
  double hf_heuristic = 0;
  double hf_activations_per_token = 0;  // A
};

double LlmMemoryArticleBytes(const FormulaInputs& in);
double KorthikantiBytes(const FormulaInputs& in);
double HfHeuristicActivationsPerToken(double parameters);
FormulaActivations ActivationsByFormula(const FormulaInputs& in);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_ACTIVATION_FORMULAS_H_
