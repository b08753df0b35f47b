#include "kvcache/model/modelopt_mixed_precision.h"

#include <array>
#include <cctype>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "kvcache/base/error.h"

namespace kvsim {
namespace {

enum class ModuleClass { kAttention, kMlp, kExperts, kLmHead };
constexpr std::array<const char*, 4> kClassNames = {"attention and mixer projections", "MLPs and shared experts",
                                                    "routed experts", "lm_head"};

bool Contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// Where a module named in quantized_layers sits (Qwen's model.language_model.layers.N.{self_attn,
// linear_attn,mlp}.*, Nemotron's backbone.layers.N.mixer.*), or nullopt.
std::optional<ModuleClass> ClassOf(const std::string& name) {
  if (name == "lm_head" || Contains(name, ".lm_head")) return ModuleClass::kLmHead;
  if (Contains(name, "shared_expert")) return ModuleClass::kMlp;
  if (Contains(name, ".experts")) return ModuleClass::kExperts;
  if (Contains(name, "self_attn.") || Contains(name, "linear_attn.")) return ModuleClass::kAttention;
  for (const char* p : {"mixer.in_proj", "mixer.out_proj", "mixer.q_proj", "mixer.k_proj", "mixer.v_proj", "mixer.o_proj"})
    if (Contains(name, p)) return ModuleClass::kAttention;
  if (Contains(name, "mlp.") || Contains(name, "mixer.up_proj") || Contains(name, "mixer.down_proj")) return ModuleClass::kMlp;
  return std::nullopt;
}

}  // namespace

MixedPrecisionFormats ReadModelOptMixedPrecision(const nlohmann::json& config, const std::string& source) {
  const std::string what = source + ": quantization_config.quantized_layers";
  auto layers = config.find("quantized_layers");
  if (layers == config.end() || !layers->is_object() || layers->empty())
    throw Error(what + ": MIXED_PRECISION names each module's format there; missing or empty");
  std::array<std::set<std::string>, 4> formats;
  for (auto it = layers->begin(); it != layers->end(); ++it) {
    const std::optional<ModuleClass> c = ClassOf(it.key());
    if (!c) throw Error(what + ": '" + it.key() + "' is not a module kvsim can place (attention, MLP, experts, lm_head)");
    const auto algo = it.value().is_object() ? it.value().find("quant_algo") : it.value().end();
    if (!it.value().is_object() || algo == it.value().end() || !algo->is_string())
      throw Error(what + "." + it.key() + ".quant_algo: missing or not a string");
    std::string name = algo->get<std::string>();
    for (char& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    if (name == "W4A16_NVFP4") name = "NVFP4";
    if (name != "NVFP4" && name != "FP8")
      throw Error(what + "." + it.key() + ".quant_algo: '" + algo->get<std::string>() +
                  "' is not modelled (FP8, NVFP4, W4A16_NVFP4)");
    formats[static_cast<size_t>(*c)].insert(name);
  }
  for (size_t c = 0; c < formats.size(); ++c)
    if (formats[c].size() > 1)
      throw Error(what + ": the " + kClassNames[c] + " are in both FP8 and NVFP4; kvsim sizes one format per class of module");
  const auto& attention = formats[static_cast<size_t>(ModuleClass::kAttention)];
  const auto& mlp = formats[static_cast<size_t>(ModuleClass::kMlp)];
  const auto& experts = formats[static_cast<size_t>(ModuleClass::kExperts)];
  const auto& head = formats[static_cast<size_t>(ModuleClass::kLmHead)];
  if (!mlp.empty() && !experts.empty() && mlp != experts)
    throw Error(what + ": the MLPs are in " + *mlp.begin() + " and the routed experts in " + *experts.begin() +
                "; kvsim sizes both in one format");
  const std::set<std::string>& main = experts.empty() ? mlp : experts;
  if (main.empty()) throw Error(what + ": names no MLP or expert; kvsim sizes a checkpoint by its MLPs' format");
  MixedPrecisionFormats f;
  f.main_fp8 = *main.begin() == "FP8";
  if (!head.empty() && head != main)
    throw Error(what + ": lm_head is in " + *head.begin() + " and the MLPs in " + *main.begin() +
                "; kvsim sizes both in one format");
  f.lm_head_quantized = !head.empty();
  if (mlp.empty()) {
    if (!attention.empty())
      throw Error(what + ": quantizes the attention and the experts but no MLP, which kvsim does not model");
    f.experts_only = true;
  }
  f.attention_unquantized = attention.empty();
  f.attention_fp8 = !attention.empty() && *attention.begin() == "FP8" && !f.main_fp8;
  return f;
}

}  // namespace kvsim
