#include "kvcache/budget/serving_engine.h"

#include <cctype>
#include <cstdio>

#include "kvcache/base/error.h"

namespace kvsim {

double VllmVersion::sampler_bytes_per_logit() const {
  switch (era()) {
    // V0's profile run samples every dummy sequence with top_p 0.99, top_k vocab - 1 "to reflect
    // the accurate memory usage" (vllm/worker/model_runner.py GPUModelRunnerBase.profile_run), so
    // its sampler takes the torch top-k/top-p path (vllm/model_executor/layers/sampler.py, the V0
    // sampler of 0.8-0.10: Sampler.forward, _apply_top_k_top_p). Live at that function's last line,
    // per logit: the model-dtype logits compute_logits returned (2), their fp32 copy (4), the
    // ascending sort's values (4) and int64 indices (8), the top-k mask (1), softmax of the sorted
    // values (4), their cumsum (4), the top-p mask (1) and the re-sorted output scatter_ writes (4).
    case VllmEra::kV0: return 32.0;
    case VllmEra::kV1Sort: return 38.0;  // + sorted values (4), int64 sort indices (8), probs, cumsum, mask
    case VllmEra::kV1: return 15.0;      // bf16 logits (2), fp32 logits (4), probs (4), logprobs (4), argmax
  }
  return 15.0;
}

VllmVersion ParseVllmVersion(const std::string& text) {
  VllmVersion v;
  v.text = text;
  if (text == "latest" || text.empty()) return ParseVllmVersion(kNewestModelledVllm);
  if (text == "v0" || text == "V0") {
    v.v0_engine = true;
    v.minor = 6;
    return v;
  }
  // [v]0.<minor>[.<patch>][anything: .devN+gHASH, rc1, ...]
  size_t i = (text[0] == 'v' || text[0] == 'V') ? 1 : 0;
  auto digits = [&](int* out) {
    const size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    if (i == start || i - start > 4) return false;
    *out = std::stoi(text.substr(start, i - start));
    return true;
  };
  int major = -1;
  if (!digits(&major) || major != 0 || i >= text.size() || text[i++] != '.' || !digits(&v.minor))
    throw Error("--vllm-version: '" + text + "' is not a vLLM version (e.g. 0.19, v0.11.0, 0.6.4, v0)");
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (!digits(&v.patch)) v.patch = 0;
  }
  v.v0_engine = v.minor < 8;
  if (v.minor > kNewestModelledVllmMinor) {
    VllmVersion newest = ParseVllmVersion(kNewestModelledVllm);
    newest.newer_than_modelled = text;
    return newest;
  }
  return v;
}

}  // namespace kvsim
