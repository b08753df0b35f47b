#include "kvcache/budget/serving_engine.h"

#include <cctype>
#include <cstdio>

#include "kvcache/base/error.h"

namespace kvsim {

VllmEra VllmVersion::era() const {
  if (v0_engine || minor < 8) return VllmEra::kV0;
  if (minor < 17) return VllmEra::kV1Sort;
  return VllmEra::kV1;
}

double VllmVersion::sampler_bytes_per_logit() const {
  switch (era()) {
    case VllmEra::kV0: return 4.0;       // fp32 logits only
    case VllmEra::kV1Sort: return 38.0;  // + sorted values (4), int64 sort indices (8), probs, cumsum, mask
    case VllmEra::kV1: return 15.0;      // bf16 logits (2), fp32 logits (4), probs (4), logprobs (4), argmax
  }
  return 15.0;
}

VllmVersion ParseVllmVersion(const std::string& text) {
  VllmVersion v;
  v.text = text;
  if (text == "latest" || text.empty()) return ParseVllmVersion(kDefaultVllmVersion);
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
  return v;
}

}  // namespace kvsim
