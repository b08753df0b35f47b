// The serving engine whose memory budgeting kvsim reproduces, and the vLLM release era: vLLM's
// defaults and its profiling changed across versions, so `--vllm-version` selects the behaviour.
//
// Eras (see docs/CAPACITY_MODEL.md for the evidence behind each):
//   v0        vLLM <= 0.7, or any version run with the V0 engine (--vllm-version v0 / 0.6.4):
//             profile over max(max_model_len, 2048) tokens (512 with chunked prefill, which turns
//             on by itself above 32K context), sampler on max_num_seqs rows of fp32 logits,
//             tokens = blocks × block_size.
//   v1-sort   0.8 <= v < 0.17: V1 engine; the profile's sampler pass sorts logits for top-k/top-p.
//   v1        v >= 0.17: V1 engine; the profile's sampler pass skips the sort.
// Reported "GPU KV cache size" tokens: blocks × block_size (v0, < 0.9), blocks // groups × block
// size (0.9 .. 0.19), int(max_concurrency × max_model_len) (>= 0.20).
#ifndef KVSIM_KVCACHE_BUDGET_SERVING_ENGINE_H_
#define KVSIM_KVCACHE_BUDGET_SERVING_ENGINE_H_

#include <string>

#include "kvcache/base/enum_names.h"

namespace kvsim {

enum class Engine { kVllm, kSglang, kTrtllm };
template <>
struct EnumNames<Engine> {
  static constexpr EnumEntry<Engine> kEntries[] = {
      {Engine::kVllm, "vllm"}, {Engine::kSglang, "sglang"}, {Engine::kTrtllm, "trtllm"}, {Engine::kTrtllm, "tensorrt-llm"}};
};

enum class VllmEra { kV0, kV1Sort, kV1 };
template <>
struct EnumNames<VllmEra> {
  static constexpr EnumEntry<VllmEra> kEntries[] = {{VllmEra::kV0, "v0"}, {VllmEra::kV1Sort, "v1-sort"}, {VllmEra::kV1, "v1"}};
};

struct VllmVersion {
  int minor = 19;        // 0.<minor>
  int patch = 0;
  bool v0_engine = false;
  std::string text = "0.19";

  VllmEra era() const;
  // Sampler working set per logit element during the profile run (bytes); see runtime_overhead.h.
  double sampler_bytes_per_logit() const;
};

// Accepts "0.19", "v0.19.0", "0.6.4.dev9+g5d264f4a", "v0" (V0 engine, 0.6 defaults), "latest".
// Throws kvsim::Error for anything else.
VllmVersion ParseVllmVersion(const std::string& text);

inline constexpr const char* kDefaultVllmVersion = "0.19";

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_SERVING_ENGINE_H_
