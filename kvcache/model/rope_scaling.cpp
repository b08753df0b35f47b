#include "kvcache/model/rope_scaling.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kvcache/base/checked_math.h"
#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "kvcache/model/config_field_reader.h"
#include "kvcache/model/config_limits.h"

namespace kvsim {
namespace {

using nlohmann::json;

// The keys vLLM's get_rope indexes for each scaling type (rope_parameters["factor"], ...): a config
// without one raises KeyError there, and transformers' rope validation refuses the same configs
// (llama3 needs all four of its keys). longrope's original_max_position_embeddings is not asked for: Phi-3
// keeps it at the top level of its config.
void RequireRopeKeys(const json& rs, const std::string& kind, const std::string& where) {
  struct Needs {
    const char* kind;
    std::vector<const char*> keys;
  };
  static const Needs kNeeds[] = {
      {"llama3", {"factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"}},
      {"linear", {"factor"}},
      {"ntk", {"factor"}},
      {"yarn", {"factor"}},
      {"deepseek_yarn", {"factor"}},
      {"longrope", {"short_factor", "long_factor"}},
      {"su", {"short_factor", "long_factor"}}};
  auto present = [&](const char* key) { return rs.contains(key) && !rs[key].is_null(); };
  std::vector<std::string> missing;
  for (const Needs& n : kNeeds)
    if (kind == n.kind)
      for (const char* key : n.keys)
        if (!present(key)) missing.emplace_back(key);
  // Dynamic NTK takes either an alpha (DynamicNTKAlphaRotaryEmbedding) or a factor; with neither get_rope raises.
  if (kind == "dynamic" && !present("alpha") && !present("factor")) missing.emplace_back("factor (or alpha)");
  if (!missing.empty())
    throw Error(where + ": rope_type '" + kind + "' needs " + Join(missing, ", ") +
                ", which vLLM's get_rope reads (KeyError without it) and transformers' rope validation requires");
}

}  // namespace

bool HasMropeSection(const json& text) {
  for (const char* key : {"rope_scaling", "rope_parameters"}) {
    auto rs = text.find(key);
    if (rs != text.end() && rs->is_object() && rs->contains("mrope_section")) return true;
  }
  return false;
}

// vLLM's derived max_model_len: the position limit, stretched by a RoPE scaling factor except
// for the types that already state the scaled length (llama3, longrope, su, mrope).
int64_t DeriveMaxModelLen(const json& text, int64_t max_pos, const std::string& source, const std::string& prefix) {
  const FieldReader fields(text, source, prefix);
  const json* rs = fields.Object("rope_scaling");
  // Transformers v5 configs spell it rope_parameters (vLLM's patch_rope_parameters reads both).
  if (!rs) rs = fields.Object("rope_parameters");
  if (!rs) return max_pos;
  FieldReader r(*rs, source, prefix + "rope_scaling.");
  std::string kind = r.String("rope_type", r.String("type", ""));
  // vLLM's patch_rope_scaling_dict refuses both spellings naming different types: which one a config
  // meant cannot be told (yarn x4 or linear x4 change the context the KV cache must hold).
  if (const std::string legacy = r.String("type", ""); !legacy.empty() && r.Has("rope_type") && legacy != kind)
    throw Error(source + ": " + prefix + "rope_scaling: rope_type '" + kind + "' and type '" + legacy +
                "' disagree (type is the older name of rope_type); vLLM refuses it: give one");
  // The scaling types vLLM's get_rope builds (vllm/model_executor/layers/rotary_embedding); it raises
  // "Unknown RoPE scaling type" for any other, so such a config never serves.
  static constexpr const char* kRopeTypes[] = {"default", "linear", "dynamic", "ntk", "yarn", "deepseek_yarn",
                                               "longrope", "su", "llama3", "llama4", "mrope"};
  if (!kind.empty() && std::find(std::begin(kRopeTypes), std::end(kRopeTypes), kind) == std::end(kRopeTypes))
    throw Error(source + ": " + prefix + "rope_scaling.rope_type: '" + kind + "' is not a RoPE scaling vLLM builds (" +
                Join(std::vector<std::string>(std::begin(kRopeTypes), std::end(kRopeTypes)), ", ") + ")");
  auto factor = rs->find("factor");
  // vLLM reads the type before the factor and refuses a rope_scaling without one ("must have a 'type'
  // or 'rope_type' key"); taking the factor alone would stretch the context on a guess.
  if (kind.empty() && factor != rs->end() && !factor->is_null())
    throw Error(source + ": " + prefix + "rope_scaling: has a factor but no rope_type (or type); vLLM refuses it");
  RequireRopeKeys(*rs, kind, source + ": " + prefix + "rope_scaling");
  if (kind == "llama3" || kind == "longrope" || kind == "su" || kind == "mrope" || kind == "default")
    return max_pos;
  const std::string what = source + ": " + prefix + "rope_scaling.factor";
  if (factor == rs->end() || factor->is_null()) return max_pos;
  // vLLM multiplies the position limit by it: a string is a type error there, not "no scaling".
  if (!factor->is_number()) throw Error(what + ": expected a number, got " + factor->dump());
  const double f = factor->get<double>();
  const FieldRange positions = ConfigFieldRange("max_position_embeddings");
  if (!(f > 0)) throw Error(what + ": " + factor->dump() + " must be positive");
  const int64_t base = kind == "yarn" ? r.Optional({"original_max_position_embeddings"}, max_pos) : max_pos;
  return RoundToInt64OrThrow(std::trunc(static_cast<double>(base) * f), positions.lo, positions.hi,
                             what + " x max_position_embeddings");
}

}  // namespace kvsim
