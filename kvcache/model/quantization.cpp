#include "kvcache/model/quantization.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <initializer_list>
#include <optional>

#include <nlohmann/json.hpp>

#include "kvcache/base/error.h"
#include "kvcache/base/units.h"
#include "kvcache/model/modelopt_mixed_precision.h"

namespace kvsim {
namespace {

std::string Lower(std::string_view text) {
  std::string s(text);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// An integer quantization field within [lo, hi] (`fallback` when absent or null): a group or block
// size of 0 divides by zero later, and a double outside int64 cannot even be converted. Any other
// type is refused rather than replaced by the fallback: "bits": "8" read as the default 4 would
// halve the weights without a word.
int64_t GetInt(const nlohmann::json& j, const char* key, int64_t fallback, int64_t lo, int64_t hi,
               const std::string& what) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_number()) throw Error(what + key + ": expected an integer, got " + it->dump());
  const double v = it->get<double>();
  if (v != std::floor(v) || v < static_cast<double>(lo) || v > static_cast<double>(hi))
    throw Error(what + key + ": " + it->dump() + " is outside the valid range [" + std::to_string(lo) + ", " +
                std::to_string(hi) + "]");
  return static_cast<int64_t>(v);
}

constexpr int64_t kMaxGroup = int64_t{1} << 20;

// A true/false quantization field (`fallback` when absent or null); a string such as "yes" is refused
// by name instead of surfacing as the JSON library's type error.
bool GetBool(const nlohmann::json& j, const char* key, bool fallback, const std::string& what) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) throw Error(what + key + ": expected true/false, got " + it->dump());
  return it->get<bool>();
}

// A name field (`fallback` when absent or null) that must be one of `allowed`, as the library that
// writes it declares them.
std::string GetName(const nlohmann::json& j, const char* key, const std::string& fallback,
                    std::initializer_list<const char*> allowed, const std::string& what) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  std::string list;
  for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
  if (!it->is_string()) throw Error(what + key + ": expected one of " + list + ", got " + it->dump());
  const std::string name = Lower(it->get<std::string>());
  for (const char* a : allowed)
    if (name == a) return name;
  throw Error(what + key + ": '" + it->get<std::string>() + "' is not one of " + list);
}

QuantizationSpec GroupInt(QuantMethod method, int bits, int64_t group, const char* name) {
  QuantizationSpec q;
  q.method = method;
  q.bits = bits;
  q.group_size = group;
  q.name = name;
  return q;
}

QuantizationSpec Fp8(ScaleGranularity scales, const char* name) {
  QuantizationSpec q;
  q.method = QuantMethod::kFp8;
  q.bits = 8;
  q.fp8_scales = scales;
  q.name = name;
  return q;
}

QuantizationSpec Int8(const char* name) {
  QuantizationSpec q;
  q.method = QuantMethod::kInt8;
  q.bits = 8;
  q.fp8_scales = ScaleGranularity::kPerChannel;
  q.name = name;
  return q;
}

// A compressed-tensors `ignore` list that keeps attention, the shared experts and the dense MLPs in
// 16 bits, so only the routed experts are quantized: Kimi-K2-Thinking and Kimi-K2.5 ship INT4 experts
// with ignore ["lm_head", "re:.*self_attn.*", "re:.*shared_experts.*", "re:.*mlp\\.(gate|up|gate_up|down)_proj.*"]
// (vLLM's CompressedTensorsConfig leaves an ignored layer unquantized).
bool IgnoresAllButRoutedExperts(const nlohmann::json& config) {
  auto ignore = config.find("ignore");
  if (ignore == config.end() || !ignore->is_array()) return false;
  bool attention = false, shared = false, dense_mlp = false;
  for (const auto& entry : *ignore) {
    if (!entry.is_string()) continue;
    const std::string pattern = entry.get<std::string>();
    if (pattern.rfind("re:", 0) != 0) continue;  // a single named layer, not a class of them
    attention = attention || pattern.find("self_attn") != std::string::npos;
    shared = shared || pattern.find("shared_experts") != std::string::npos;
    dense_mlp = dense_mlp || pattern.find("mlp\\.(gate|up") != std::string::npos;
  }
  return attention && shared && dense_mlp;
}

// compressed-tensors: read the first config group's weight scheme.
QuantizationSpec ParseCompressedTensors(const nlohmann::json& config, const std::string& source) {
  auto groups = config.find("config_groups");
  if (groups == config.end() || !groups->is_object() || groups->empty())
    throw Error(source + ": quantization_config.config_groups: missing for compressed-tensors");
  const nlohmann::json& group = groups->begin().value();
  auto weights = group.find("weights");
  if (weights == group.end() || !weights->is_object())
    throw Error(source + ": quantization_config.config_groups.*.weights: missing");
  const std::string what = source + ": quantization_config.config_groups.*.weights.";
  const int bits = static_cast<int>(GetInt(*weights, "num_bits", 8, 1, 64, what));
  // compressed-tensors' QuantizationType and QuantizationStrategy enumerations (quant_args.py): the
  // library refuses any other name, so kvsim does too rather than read it as int8 per channel.
  const std::string type = GetName(*weights, "type", "int", {"int", "float"}, what);
  const std::string strategy = GetName(*weights, "strategy", "channel",
                                       {"tensor", "channel", "group", "block", "token", "tensor_group", "attn_head"}, what);
  if (bits == 8 && type == "float") {
    ScaleGranularity g = strategy == "tensor"  ? ScaleGranularity::kPerTensor
                         : strategy == "block" ? ScaleGranularity::kBlock
                                               : ScaleGranularity::kPerChannel;
    return Fp8(g, "compressed-tensors");
  }
  if (bits == 8) return Int8("compressed-tensors");
  if (bits == 4) {
    // -1 (or 0 in some exports) means one group per output channel.
    int64_t group_size = GetInt(*weights, "group_size", 128, -1, kMaxGroup, what);
    auto q = GroupInt(QuantMethod::kInt4Symmetric, 4, group_size, "compressed-tensors");
    if (!GetBool(*weights, "symmetric", true, what)) q.method = QuantMethod::kGptq;
    q.experts_only = IgnoresAllButRoutedExperts(config);
    return q;
  }
  throw Error(source + ": quantization_config.config_groups.*.weights.num_bits: " +
              std::to_string(bits) + " is not supported (8 or 4)");
}

// The layer index of a module name "<prefix>layers.<N>.mixer.<projection>" whose projection is one of
// a mixer's linear layers (Mamba's in_proj / out_proj, attention's q/k/v/o_proj), else nullopt.
std::optional<int64_t> MixerProjectionLayer(const std::string& name) {
  static const char* const kProjections[] = {"in_proj", "out_proj", "q_proj", "k_proj", "v_proj", "o_proj"};
  const std::string layers = "layers.";
  const size_t at = name.find(layers);
  if (at == std::string::npos) return std::nullopt;
  size_t i = at + layers.size();
  int64_t layer = 0;
  const size_t digits = i;
  while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])) && i - digits < 9)
    layer = layer * 10 + (name[i++] - '0');
  if (i == digits || name.compare(i, 7, ".mixer.") != 0) return std::nullopt;
  const std::string projection = name.substr(i + 7);
  for (const char* p : kProjections)
    if (projection == p) return layer;
  return std::nullopt;
}

}  // namespace

QuantizationSpec Nvfp4() {
  QuantizationSpec q;
  q.method = QuantMethod::kNvfp4;
  q.bits = 4;
  q.group_size = 16;
  q.name = "nvfp4";
  return q;
}

QuantizationSpec BitsAndBytesNf4() {
  QuantizationSpec q;
  q.method = QuantMethod::kBitsAndBytes4;
  q.bits = 4;
  q.double_quant = true;
  q.name = "bitsandbytes";
  return q;
}

double LinearWeightBytes(const QuantizationSpec& spec, int64_t out, int64_t in, double dtype_bytes) {
  const double elements = static_cast<double>(out) * static_cast<double>(in);
  const double rows = static_cast<double>(out);
  const double cols = static_cast<double>(in);
  switch (spec.method) {
    case QuantMethod::kNone:
      return elements * dtype_bytes;
    case QuantMethod::kFp8:
    case QuantMethod::kInt8:
      switch (spec.fp8_scales) {
        case ScaleGranularity::kPerTensor: return elements + 4.0;
        case ScaleGranularity::kPerChannel: return elements + rows * 4.0;
        case ScaleGranularity::kBlock:
          return elements + static_cast<double>(CeilDiv(out, spec.block_rows) *
                                                CeilDiv(in, spec.block_cols)) * 4.0;
      }
      return elements;
    case QuantMethod::kGptq:
    case QuantMethod::kAwq:
    case QuantMethod::kInt4Symmetric: {
      const double groups = spec.group_size > 0 ? static_cast<double>(CeilDiv(in, spec.group_size)) : 1.0;
      const double packed = elements * spec.bits / 8.0;
      const double scales = groups * rows * 2.0;
      const double zeros = spec.method == QuantMethod::kInt4Symmetric ? 0.0 : groups * rows * spec.bits / 8.0;
      const double g_idx = spec.method == QuantMethod::kGptq ? cols * 4.0 : 0.0;
      return packed + scales + zeros + g_idx;
    }
    case QuantMethod::kBitsAndBytes4: {
      const double blocks = elements / 64.0;
      if (spec.double_quant) return elements * 0.5 + blocks * 1.0 + blocks / 256.0 * 4.0;
      return elements * 0.5 + blocks * 4.0;
    }
    case QuantMethod::kBitsAndBytes8:
      return elements + rows * 4.0;
    case QuantMethod::kMxfp4:
      return elements * 0.5 + elements / 32.0;
    case QuantMethod::kNvfp4:
      return elements * 0.5 + elements / 16.0 + 8.0;
  }
  return elements * dtype_bytes;
}

QuantizationSpec AttentionFormat(const QuantizationSpec& spec) {
  return spec.attention_fp8 ? Fp8(ScaleGranularity::kPerTensor, "modelopt") : spec;
}

QuantizationSpec ParseQuantizationConfig(const nlohmann::json& config, const std::string& source) {
  if (!config.is_object()) throw Error(source + ": quantization_config: expected an object");
  auto method_it = config.find("quant_method");
  if (method_it == config.end() || !method_it->is_string())
    throw Error(source + ": quantization_config.quant_method: missing");
  const std::string method = Lower(method_it->get<std::string>());
  if (method == "fp8") {
    auto block = config.find("weight_block_size");
    if (block != config.end() && !block->is_null()) {
      const std::string what = source + ": quantization_config.weight_block_size";
      if (!block->is_array() || block->size() != 2)
        throw Error(what + ": expected [rows, cols], got " + block->dump());
      if (!(*block)[0].is_number() || !(*block)[1].is_number())
        throw Error(what + ": expected two integers, got " + block->dump());
      const nlohmann::json pair = {{"rows", (*block)[0]}, {"cols", (*block)[1]}};
      auto q = Fp8(ScaleGranularity::kBlock, "fp8");
      q.block_rows = GetInt(pair, "rows", 0, 1, kMaxGroup, what + ".");
      q.block_cols = GetInt(pair, "cols", 0, 1, kMaxGroup, what + ".");
      if (q.block_rows == 0 || q.block_cols == 0) throw Error(what + ": expected two integers, got " + block->dump());
      return q;
    }
    return Fp8(ScaleGranularity::kPerTensor, "fp8");
  }
  if (method == "gptq" || method == "awq") {
    const std::string what = source + ": quantization_config.";
    const char* const bits_key = config.contains("w_bit") ? "w_bit" : "bits";
    // vLLM's AWQ and GPTQ configs read the width with get_from_keys, which refuses a config without it;
    // assuming 4 bits would plan an 8-bit checkpoint at half its weights.
    if (!config.contains(bits_key) || config[bits_key].is_null())
      throw Error(what + "bits: missing; a " + method + " checkpoint states its weight width (vLLM refuses one without it)");
    const int bits = static_cast<int>(GetInt(config, bits_key, 4, 1, 64, what));
    const char* const group_key = config.contains("group_size") ? "group_size" : "q_group_size";
    const int64_t group = GetInt(config, group_key, 128, -1, kMaxGroup, what);
    // vLLM's own checks when it builds the config (vllm/model_executor/layers/quantization/awq.py,
    // gptq.py): AWQ kernels are 4-bit only, GPTQ's 2, 3, 4 or 8; a group size of 0 divides the
    // input dimension by zero (-1 is one group per column).
    if (method == "awq" && bits != 4)
      throw Error(what + bits_key + ": " + std::to_string(bits) + " bits; vLLM runs AWQ checkpoints of 4 bits only");
    if (method == "gptq" && bits != 2 && bits != 3 && bits != 4 && bits != 8)
      throw Error(what + bits_key + ": " + std::to_string(bits) + " bits; vLLM runs GPTQ checkpoints of 2, 3, 4 or 8 bits");
    if (group == 0)
      throw Error(what + group_key + ": 0 is not a group size (a positive number of columns, or -1 for one group per column)");
    return GroupInt(method == "gptq" ? QuantMethod::kGptq : QuantMethod::kAwq, bits, group, method == "gptq" ? "gptq" : "awq");
  }
  if (method == "bitsandbytes") {
    const std::string what = source + ": quantization_config.";
    const bool eight = GetBool(config, "load_in_8bit", false, what);
    const bool four = GetBool(config, "load_in_4bit", false, what);
    // transformers' BitsAndBytesConfig refuses the pair: the weights are one or the other.
    if (eight && four)
      throw Error(what + "load_in_4bit and load_in_8bit are both true; a bitsandbytes checkpoint is one or the other");
    QuantizationSpec q;
    if (eight) {
      q.method = QuantMethod::kBitsAndBytes8;
      q.bits = 8;
    } else {
      q.method = QuantMethod::kBitsAndBytes4;
      q.bits = 4;
      q.double_quant = GetBool(config, "bnb_4bit_use_double_quant", false, what);
    }
    q.name = "bitsandbytes";
    return q;
  }
  if (method == "mxfp4") {
    QuantizationSpec q;
    q.method = QuantMethod::kMxfp4;
    q.bits = 4;
    q.experts_only = true;  // gpt-oss keeps self_attn, router, embeddings and lm_head in bf16
    q.name = "mxfp4";
    return q;
  }
  if (method == "modelopt" || method == "modelopt_fp4") {
    // ModelOpt checkpoints (hf_quant_config's quantization block): quant_algo NVFP4 or FP8.
    std::string algo = method == "modelopt_fp4" ? "nvfp4" : "";
    if (auto a = config.find("quant_algo"); a != config.end() && !a->is_null())
      algo = a->is_string() ? Lower(a->get<std::string>()) : a->dump();
    QuantizationSpec q;
    if (algo == "nvfp4") {
      q = Nvfp4();
    } else if (algo == "fp8") {
      q = Fp8(ScaleGranularity::kPerTensor, "modelopt");
    } else if (algo == "mixed_precision") {
      const MixedPrecisionFormats f = ReadModelOptMixedPrecision(config, source);
      q = f.main_fp8 ? Fp8(ScaleGranularity::kPerTensor, "modelopt") : Nvfp4();
      q.attention_fp8 = f.attention_fp8;
      q.attention_unquantized = f.attention_unquantized;
      q.experts_only = f.experts_only;
      q.lm_head_quantized = f.lm_head_quantized;
    } else {
      throw Error(source + ": quantization_config.quant_algo: '" + algo +
                  "' is not supported for modelopt (NVFP4, FP8, MIXED_PRECISION)");
    }
    // vLLM's ModelOpt configs (modelopt.py is_layer_excluded) leave every module exclude_modules names in
    // the model dtype: "self_attn" (every layer's "model.layers.N.self_attn*" in NVIDIA's DeepSeek FP4
    // checkpoints) keeps all attention 16-bit; a layer's mixer projection named by index (Nemotron-3)
    // keeps that layer's attention or SSM projections 16-bit. The same list in a config.json's own
    // quantization_config is "ignore" (ModelOptQuantConfigBase.from_config reads either). Attention and
    // the shared experts both excluded leave only the routed experts quantized, as NVIDIA's GLM-5.2
    // NVFP4 release does (its list also names the dense layers 0-2 whole; a checkpoint that kept its
    // dense MLPs quantized would be counted here a little larger than it is).
    bool shared_experts = false;
    for (const char* key : {"exclude_modules", "ignore"}) {
      auto ex = config.find(key);
      if (ex == config.end() || !ex->is_array()) continue;
      for (const auto& m : *ex) {
        if (!m.is_string()) continue;
        const std::string name = m.get<std::string>();
        if (name.find("self_attn") != std::string::npos) q.attention_unquantized = true;
        if (name.find("shared_experts") != std::string::npos) shared_experts = true;
        if (const std::optional<int64_t> layer = MixerProjectionLayer(name))
          q.unquantized_mixer_layers.push_back(*layer);
      }
    }
    if (q.attention_unquantized && shared_experts) q.experts_only = true;
    if (auto kv = config.find("kv_cache_quant_algo"); kv != config.end() && !kv->is_null()) {
      const std::string kv_algo = kv->is_string() ? Lower(kv->get<std::string>()) : kv->dump();
      if (kv_algo != "fp8")
        throw Error(source + ": quantization_config.kv_cache_quant_algo: '" + kv_algo +
                    "' is not supported for modelopt (FP8, or null for none)");
      q.kv_cache_dtype = "fp8";
    }
    std::sort(q.unquantized_mixer_layers.begin(), q.unquantized_mixer_layers.end());
    q.unquantized_mixer_layers.erase(std::unique(q.unquantized_mixer_layers.begin(), q.unquantized_mixer_layers.end()),
                                     q.unquantized_mixer_layers.end());
    return q;
  }
  if (method == "compressed-tensors") return ParseCompressedTensors(config, source);
  throw Error(source + ": quantization_config.quant_method: '" + method +
              "' is not supported (fp8, gptq, awq, bitsandbytes, mxfp4, modelopt, compressed-tensors)");
}

QuantizationSpec ParseQuantizationFlag(std::string_view flag, const QuantizationSpec& checkpoint) {
  const std::string f = Lower(flag);
  if (f == "none" || f.empty()) return QuantizationSpec{};
  if (f == "fp8") {
    // A checkpoint already in fp8 keeps its scale layout; on-the-fly fp8 uses per-tensor scales.
    if (checkpoint.method == QuantMethod::kFp8) return checkpoint;
    return Fp8(ScaleGranularity::kPerTensor, "fp8");
  }
  if (f == "int8" || f == "w8a8") return Int8("int8");
  if (f == "int4") return GroupInt(QuantMethod::kAwq, 4, 128, "int4");
  if (f == "awq" || f == "awq_marlin") {
    if (checkpoint.method == QuantMethod::kAwq) return checkpoint;
    return GroupInt(QuantMethod::kAwq, 4, 128, "awq");
  }
  if (f == "gptq" || f == "gptq_marlin") {
    if (checkpoint.method == QuantMethod::kGptq) return checkpoint;
    return GroupInt(QuantMethod::kGptq, 4, 128, "gptq");
  }
  if (f == "bitsandbytes") {
    if (checkpoint.method == QuantMethod::kBitsAndBytes4 || checkpoint.method == QuantMethod::kBitsAndBytes8)
      return checkpoint;
    return BitsAndBytesNf4();
  }
  if (f == "mxfp4") {
    if (checkpoint.method == QuantMethod::kMxfp4) return checkpoint;
    QuantizationSpec q;
    q.method = QuantMethod::kMxfp4;
    q.bits = 4;
    q.name = "mxfp4";
    return q;
  }
  if (f == "nvfp4" || f == "modelopt_fp4") {
    if (checkpoint.method == QuantMethod::kNvfp4) return checkpoint;
    return Nvfp4();
  }
  if (f == "compressed-tensors" || f == "modelopt") {
    if (checkpoint.method == QuantMethod::kNone)
      throw Error("--quantization " + std::string(flag) +
                  ": the checkpoint declares no quantization_config to take the format from");
    return checkpoint;
  }
  throw Error("--quantization: '" + std::string(flag) +
              "' is not known (none, fp8, int8, int4, awq, gptq, bitsandbytes, mxfp4, nvfp4, modelopt, compressed-tensors)");
}

}  // namespace kvsim
