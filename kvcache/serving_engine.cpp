#include "kvcache/serving_engine.h"

#include <cstdio>
#include <regex>

#include "kvcache/error.h"

namespace kvsim {

Engine ParseEngine(const std::string& name) {
  if (name == "vllm") return Engine::kVllm;
  if (name == "sglang") return Engine::kSglang;
  if (name == "trtllm" || name == "tensorrt-llm") return Engine::kTrtllm;
  throw Error("--engine: '" + name + "' is not known (vllm, sglang, trtllm)");
}

const char* EngineName(Engine engine) {
  switch (engine) {
    case Engine::kVllm: return "vllm";
    case Engine::kSglang: return "sglang";
    case Engine::kTrtllm: return "trtllm";
  }
  return "?";
}

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
  static const std::regex pattern(R"(^[vV]?0\.(\d+)(?:\.(\d+))?.*$)");
  std::smatch m;
  if (!std::regex_match(text, m, pattern))
    throw Error("--vllm-version: '" + text + "' is not a vLLM version (e.g. 0.19, v0.11.0, 0.6.4, v0)");
  v.minor = std::stoi(m[1].str());
  v.patch = m[2].matched ? std::stoi(m[2].str()) : 0;
  v.v0_engine = v.minor < 8;
  return v;
}

}  // namespace kvsim
