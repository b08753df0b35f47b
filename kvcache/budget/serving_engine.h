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
// The rules that changed release by release are declared in release_rules.h (`kvsim releases`).
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

// The newest vLLM release whose budgeting kvsim models (release_rules.h lists what changed up to it),
// and the default of --vllm-version: a pasted `vllm serve` line is most likely today's vLLM.
inline constexpr int kNewestModelledVllmMinor = 30;
inline constexpr const char* kNewestModelledVllm = "0.30";
inline constexpr const char* kDefaultVllmVersion = kNewestModelledVllm;

struct VllmVersion {
  int minor = kNewestModelledVllmMinor;  // 0.<minor>
  int patch = 0;
  bool v0_engine = false;
  std::string text = kNewestModelledVllm;
  // The release asked for when it is newer than the newest modelled (which `minor` and `text` then
  // name instead); empty otherwise. The capacity plan warns about it.
  std::string newer_than_modelled;

  VllmEra era() const;  // from the release rules (defined in release_rules.cpp)
  // Sampler working set per logit element during the profile run (bytes); see runtime_overhead.h.
  double sampler_bytes_per_logit() const;
};

// Accepts "0.19", "v0.19.0", "0.6.4.dev9+g5d264f4a", "v0" (V0 engine, 0.6 defaults), "latest" (the
// newest modelled). A release newer than the newest modelled is read as the newest modelled, with
// `newer_than_modelled` set. Throws kvsim::Error for anything else.
VllmVersion ParseVllmVersion(const std::string& text);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_SERVING_ENGINE_H_
