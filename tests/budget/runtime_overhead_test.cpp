// The profile run's activation peak, against byte counts derived by hand from vLLM's code.
#include <gtest/gtest.h>

#include <string>

#include "kvcache/budget/runtime_overhead.h"
#include "kvcache/model/model_config_parser.h"

namespace kvsim {
namespace {

// Qwen2.5-0.5B-Instruct (h 896, intermediate 4864, vocab 151,936 = 2,374 x 64, bf16) on the V0
// engine with the settings of dev row R135: 8,192 batched tokens, 192 sequences.
// V0's profile_run samples every dummy sequence with top_p 0.99 and top_k vocab - 1
// (vllm/worker/model_runner.py), so the V0 sampler (vllm/model_executor/layers/sampler.py,
// 0.8-0.10) runs _apply_top_k_top_p. At its last line these are live, per logit:
//   logits from compute_logits, bf16                2
//   logits.to(torch.float)                          4
//   logits_sort (fp32) and logits_idx (int64)       4 + 8
//   top_k_mask (bool)                               1
//   probs_sort = softmax, probs_sum = cumsum        4 + 4
//   top_p_mask (bool)                               1
//   the re-sorted output empty_like().scatter_()    4   = 32 B
// sampler peak = 192 x 151,936 x 32 + 8,192 x 896 x 2 (the hidden states) = 933,494,784 +
// 14,680,064 = 948,174,848 B. The forward's peak, 8,192 x (3 x 4864 + 3 x 896) x 2 = 283,115,520 B,
// is freed before the sampler runs, so the activation peak is the sampler's.
TEST(RuntimeOverheadTest, V0ProfileSamplesEverySequenceWithTopKTopP) {
  const ModelSpec spec =
      LoadModelConfigFile(std::string(KVSIM_DATA_DIR_FOR_TESTS) + "/validation/configs/Qwen__Qwen2.5-0.5B-Instruct.json");
  ProfileSettings s;
  s.max_num_batched_tokens = 8192;
  s.max_num_seqs = 192;
  s.version = ParseVllmVersion("v0");
  const RuntimeOverhead o = EstimateRuntimeOverhead(spec, s);
  EXPECT_DOUBLE_EQ(o.sampler_peak_bytes, 948174848.0);
  EXPECT_DOUBLE_EQ(o.forward_peak_bytes, 283115520.0);
  EXPECT_DOUBLE_EQ(o.activation_peak_bytes, 948174848.0);
}

// NVIDIA-Nemotron-3-Super-120B-A12B (LatentMoE: hidden 4,096, experts of 2,688 working at the latent
// width 1,024, 22 routed a token, a shared expert of 5,376; relu2, so one up projection) at TP 1 with
// 8,192 batched tokens, within one fused-MoE chunk: per token the routed experts' caches hold
// 22 x (3 x 2,688 + 1,024) = 199,936 values (their output at the latent width, not the hidden one), the
// shared expert 3 x 5,376 = 16,128 and the hidden states 3 x 4,096 = 12,288: 228,352 bf16 values a
// token, 8,192 x 228,352 x 2 = 3,741,319,168 B.
TEST(RuntimeOverheadTest, LatentMoeExpertCachesAreLatentWide) {
  const ModelSpec spec = LoadModelConfigFile(std::string(KVSIM_DATA_DIR_FOR_TESTS) +
                                             "/models/nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16.json");
  ProfileSettings s;
  s.max_num_batched_tokens = 8192;
  s.max_num_seqs = 256;
  s.version = ParseVllmVersion("0.30");
  EXPECT_DOUBLE_EQ(EstimateRuntimeOverhead(spec, s).forward_peak_bytes, 3741319168.0);
}

}  // namespace
}  // namespace kvsim
