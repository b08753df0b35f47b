#include "kvcache/budget/speculative_config.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>
#include <vector>

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "kvcache/model/quantization.h"

namespace kvsim {
namespace {

constexpr const char* kFlag = "--speculative-config";

// SpeculativeMethod in vllm/config/speculative.py that kvsim models (speculative_memory.h says how).
constexpr const char* kModelledMethods[] = {"ngram", "ngram_gpu", "suffix", "eagle", "eagle3", "mtp",
                                            "draft_model", "medusa", "mlp_speculator"};
// MTPModelTypes: vLLM takes each as "mtp" (with a deprecation warning), so kvsim does too.
constexpr const char* kMtpAliases[] = {
    "deepseek_mtp", "dots3_note_mtp", "mimo_mtp", "mimo_v2_mtp", "glm4_moe_mtp", "glm4_moe_lite_mtp", "glm_ocr_mtp",
    "ernie_mtp", "nemotron_h_mtp", "exaone_moe_mtp", "exaone4_5_mtp", "qwen3_next_mtp", "qwen4_exp_mtp",
    "qwen3_5_mtp", "longcat_flash_mtp", "bailing_hybrid_v3_mtp", "minimax_m3_mtp", "bailing_hybrid_mtp",
    "kimi_k3_mtp", "pangu_ultra_moe_mtp", "step3p5_mtp", "hy_v3_mtp", "hy_v4_mtp", "gemma4_mtp", "inkling_mtp",
    "glm5_next_mtp"};
// Methods vLLM has whose drafter kvsim has no model of: refused, never run as something else.
struct UnmodelledMethod {
  const char* name;
  const char* why;
};
constexpr UnmodelledMethod kUnmodelledMethods[] = {
    {"dflash", "a block-diffusion drafter that proposes all K tokens in one non-causal pass over K extra slots"},
    {"dspark", "a parallel drafter with Markov and confidence heads over K - 1 extra slots"},
    {"custom_class", "a user-supplied proposer class whose weights and passes are unknown"},
    {"extract_hidden_states", "a hidden-state extraction pass, not a proposer"}};

// SpeculativeConfig fields that move nothing kvsim computes, each with why: which checkpoint
// revision (the shapes are the config kvsim reads), kernels and communication patterns, the n-gram
// and suffix matchers' windows (their acceptance is --spec-acceptance), the draft's own length cap,
// sampling on the default path, and sparse-index reuse across MTP iterations.
constexpr const char* kKeysWithoutEffect[] = {
    "revision", "code_revision", "attention_backend", "moe_backend", "disable_padded_drafter_batch",
    "disable_eagle_block_drop", "use_local_argmax_reduction", "draft_load_config", "prompt_lookup_max",
    "prompt_lookup_min", "suffix_decoding_max_tree_depth", "suffix_decoding_max_cached_requests",
    "suffix_decoding_max_spec_factor", "suffix_decoding_min_token_prob", "max_model_len",
    "index_share_for_mtp_iteration", "rejection_sample_method", "draft_sample_method", "parallel_drafting",
    "use_heterogeneous_vocab", "enable_adaptive_verification"};
// Fields that would change memory or time in ways kvsim does not model, with the reason.
struct RefusedKey {
  const char* key;
  const char* why;
};
constexpr RefusedKey kRefusedKeys[] = {
    {"tensor_parallel_size", "vLLM refuses it: pass \"draft_tensor_parallel_size\" instead"},
    {"kv_cache_dtype", "kvsim stores the drafter's KV layers in the target's pool at the target's --kv-cache-dtype"},
    {"num_speculative_tokens_per_batch_size", "kvsim runs one num_speculative_tokens at every batch size"},
    {"synthetic_acceptance_rates", "give the acceptance with --spec-acceptance"},
    {"synthetic_acceptance_length", "give the acceptance with --spec-acceptance"},
    {"dspark_draft_topk", "vLLM takes it with method \"dspark\" only, which kvsim does not model"},
    {"target_model_config", "the engine sets it from the target, not the user"},
    {"target_parallel_config", "the engine sets it from the target, not the user"},
    {"draft_model_config", "the engine builds it from \"model\""},
    {"draft_parallel_config", "the engine builds it from \"draft_tensor_parallel_size\""}};

bool In(const std::string& s, const char* const* begin, const char* const* end) {
  return std::any_of(begin, end, [&](const char* x) { return s == x; });
}

std::vector<std::string> AllKeys() {
  std::vector<std::string> keys = {"method", "model", "num_speculative_tokens", "draft_tensor_parallel_size",
                                   "quantization", "enforce_eager"};
  keys.insert(keys.end(), std::begin(kKeysWithoutEffect), std::end(kKeysWithoutEffect));
  for (const RefusedKey& r : kRefusedKeys) keys.push_back(r.key);
  return keys;
}

std::string MethodList() {
  std::vector<std::string> names(std::begin(kModelledMethods), std::end(kModelledMethods));
  names.push_back("<family>_mtp");
  return Join(names, ", ");
}

// A positive JSON integer (vLLM's Field(gt=0) / ge=1), or an error naming the key.
// vLLM validates the flag's JSON with pydantic (TypeAdapter(SpeculativeConfig).validate_json) in lax
// mode, where an integer field also takes a number with no fractional part (3.0) and the text of a
// whole number ("3").
int64_t PositiveInt(const nlohmann::json& j, const std::string& key, int64_t most) {
  nlohmann::json n = j;
  if (j.is_number_float()) {
    const double d = j.get<double>();
    if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 0x1p53) n = static_cast<int64_t>(d);
  } else if (j.is_string()) {
    const std::string& t = j.get_ref<const std::string&>();
    if (!t.empty() && t.size() < 19 && t.find_first_not_of("0123456789") == std::string::npos) n = std::stoll(t);
  }
  if (!n.is_number_integer() || n.get<int64_t>() < 1 || n.get<int64_t>() > most)
    throw Error(std::string(kFlag) + ": \"" + key + "\" is " + j.dump() + "; vLLM takes an integer >= 1" +
                (most < (int64_t{1} << 40) ? Format(" (kvsim: at most %lld)", static_cast<long long>(most)) : ""));
  return n.get<int64_t>();
}

void RequireBool(const nlohmann::json& j, const std::string& key) {
  if (!j.is_boolean()) throw Error(std::string(kFlag) + ": \"" + key + "\" is " + j.dump() + "; it takes true or false");
}

std::string RequireString(const nlohmann::json& j, const std::string& key) {
  if (!j.is_string()) throw Error(std::string(kFlag) + ": \"" + key + "\" is " + j.dump() + "; it takes a string");
  return j.get<std::string>();
}

// The values of no-effect keys that would have an effect are refused here.
void CheckKeyWithoutEffect(const std::string& key, const nlohmann::json& v, const std::string& method) {
  const std::string f = std::string(kFlag) + ": ";
  if (key == "prompt_lookup_max" || key == "prompt_lookup_min" || key == "max_model_len" ||
      key == "suffix_decoding_max_tree_depth")
    PositiveInt(v, key, int64_t{1} << 40);
  if (key == "disable_padded_drafter_batch" || key == "disable_eagle_block_drop" ||
      key == "use_local_argmax_reduction" || key == "parallel_drafting" || key == "use_heterogeneous_vocab" ||
      key == "enable_adaptive_verification" || key == "index_share_for_mtp_iteration")
    if (!v.is_null()) RequireBool(v, key);
  if (key == "parallel_drafting" && v == true && method != "eagle" && method != "eagle3" && method != "draft_model")
    throw Error(f + "\"parallel_drafting\": vLLM takes it with EAGLE and draft-model methods only");
  if (key == "parallel_drafting" && v == true)
    throw Error(f + "\"parallel_drafting\": true drafts all tokens in one pass over K - 1 extra KV slots per "
                    "request (max_num_new_slots_for_drafting), which kvsim does not model");
  // It changes the drafter's time, which kvsim times with a first pass of 1 + k tokens per request
  // (vllm/v1/spec_decode/eagle.py propose(), padded batch).
  if (key == "disable_padded_drafter_batch" && v == true && method != "ngram" && method != "suffix")
    throw Error(f + "\"disable_padded_drafter_batch\": true makes the drafter's first pass cover 1 + accepted "
                    "tokens per request instead of 1 + k, which kvsim does not model; leave it false");
  if (key == "enable_adaptive_verification" && v == true)
    throw Error(f + "\"enable_adaptive_verification\": vLLM takes it with method \"dspark\" only");
  if (key == "index_share_for_mtp_iteration" && !v.is_null() && method != "mtp")
    throw Error(f + "\"index_share_for_mtp_iteration\": vLLM takes it with method \"mtp\" only");
  if (key == "use_heterogeneous_vocab" && v == true && method != "draft_model")
    throw Error(f + "\"use_heterogeneous_vocab\": vLLM takes it with method \"draft_model\" only");
  if (key == "rejection_sample_method") {
    const std::string m = RequireString(v, key);
    if (m == "synthetic" || m == "block")
      throw Error(f + "\"rejection_sample_method\": \"" + m + "\" changes which drafts are accepted; give the "
                      "acceptance with --spec-acceptance and leave it \"standard\"");
    if (m != "standard") throw Error(f + "\"rejection_sample_method\": '" + m + "' is not standard, synthetic or block");
  }
  if (key == "draft_sample_method") {
    const std::string m = RequireString(v, key);
    if (m == "probabilistic")
      throw Error(f + "\"draft_sample_method\": \"probabilistic\" keeps the drafter's full logits for the "
                      "rejection test (more GPU memory, which kvsim does not model); leave it \"greedy\"");
    if (m != "greedy") throw Error(f + "\"draft_sample_method\": '" + m + "' is not greedy or probabilistic");
  }
}

}  // namespace

SpeculativeSettings SpeculativeFromJson(const nlohmann::json& j) {
  const std::string f = std::string(kFlag) + ": ";
  SpeculativeSettings s;
  if (j.contains("model") && !j["model"].is_null()) {
    s.draft_model = RequireString(j["model"], "model");
    // An empty name would be read as "no model" (a head kvsim derives), but vLLM tries to load it.
    if (s.draft_model.find_first_not_of(" \t") == std::string::npos)
      throw Error(f + "\"model\" is " + j["model"].dump() + "; it names no model (leave it out, or give an id or a path)");
  }
  if (j.contains("method") && !j["method"].is_null()) s.method = RequireString(j["method"], "method");
  // vLLM's inference when no method is given: "ngram" as the model means n-gram, any other model a
  // draft model.
  if (s.method.empty() && (s.draft_model == "ngram" || s.draft_model == "[ngram]")) {
    s.method = "ngram";
    s.draft_model.clear();
  }
  if (s.method.empty() && !s.draft_model.empty()) s.method = "draft_model";
  if (s.method.empty()) throw Error(f + "give \"method\" (" + MethodList() + ") or \"model\"");
  if (s.method == "[ngram]") s.method = "ngram";
  if (In(s.method, std::begin(kMtpAliases), std::end(kMtpAliases))) s.method = "mtp";
  for (const UnmodelledMethod& u : kUnmodelledMethods)
    if (s.method == u.name)
      throw Error(f + "method \"" + s.method + "\" is " + u.why + "; kvsim does not model it (it models " +
                  MethodList() + ")");
  if (!In(s.method, std::begin(kModelledMethods), std::end(kModelledMethods))) {
    std::vector<std::string> known(std::begin(kModelledMethods), std::end(kModelledMethods));
    known.insert(known.end(), std::begin(kMtpAliases), std::end(kMtpAliases));
    const auto close = ClosestMatches(s.method, known);
    throw Error(f + "method '" + s.method + "' is not one vLLM knows (" + MethodList() + ")" +
                (close.empty() ? "" : "; did you mean " + Join(close, ", ") + "?"));
  }
  const bool no_weights = s.method == "ngram" || s.method == "ngram_gpu" || s.method == "suffix";
  if (no_weights && !s.draft_model.empty() && s.draft_model != "ngram" && s.draft_model != "ngram_gpu" &&
      s.draft_model != "suffix")
    throw Error(f + "method \"" + s.method + "\" loads no draft model, yet \"model\" is '" + s.draft_model + "'");
  if (no_weights) s.draft_model.clear();

  if (j.contains("num_speculative_tokens") && !j["num_speculative_tokens"].is_null())
    s.num_speculative_tokens = PositiveInt(j["num_speculative_tokens"], "num_speculative_tokens", 64);
  else if (s.method == "suffix")
    s.num_speculative_tokens = j.contains("suffix_decoding_max_tree_depth")
                                   ? PositiveInt(j["suffix_decoding_max_tree_depth"], "suffix_decoding_max_tree_depth", 64)
                                   : 24;  // suffix_decoding_max_tree_depth's default, vLLM's fallback
  else
    throw Error(f + "give \"num_speculative_tokens\" (k >= 1): vLLM requires it for method \"" + s.method +
                "\" (kvsim does not read a draft config's n_predict)");

  if (j.contains("draft_tensor_parallel_size") && !j["draft_tensor_parallel_size"].is_null())
    s.draft_tensor_parallel_size = static_cast<int>(PositiveInt(j["draft_tensor_parallel_size"], "draft_tensor_parallel_size", 1024));
  if (j.contains("quantization") && !j["quantization"].is_null()) {
    s.quantization = RequireString(j["quantization"], "quantization");
    if (no_weights)
      throw Error(f + "\"quantization\" sets the drafter's weights, and method \"" + s.method + "\" has none");
  }
  // The drafter's passes without CUDA graphs (EagleProposer.use_cuda_graph is off): timed with every
  // kernel launched from Python. n-gram and suffix matching have no GPU drafter for it to change.
  if (j.contains("enforce_eager") && !j["enforce_eager"].is_null()) {
    RequireBool(j["enforce_eager"], "enforce_eager");
    s.enforce_eager = j["enforce_eager"].get<bool>();
  }

  const std::vector<std::string> all = AllKeys();
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    for (const RefusedKey& r : kRefusedKeys)
      if (key == r.key) throw Error(f + "\"" + key + "\": " + r.why);
    if (In(key, std::begin(kKeysWithoutEffect), std::end(kKeysWithoutEffect))) {
      CheckKeyWithoutEffect(key, it.value(), s.method);
      continue;
    }
    if (std::find(all.begin(), all.end(), key) != all.end()) continue;
    const auto close = ClosestMatches(key, all);
    throw Error(f + "\"" + key + "\" is not a field of vLLM's SpeculativeConfig" +
                (close.empty() ? "" : "; did you mean " + Join(close, ", ") + "?"));
  }
  if (j.contains("prompt_lookup_min") && j.contains("prompt_lookup_max") && j["prompt_lookup_min"].is_number_integer() &&
      j["prompt_lookup_max"].is_number_integer() &&
      j["prompt_lookup_min"].get<int64_t>() > j["prompt_lookup_max"].get<int64_t>())
    throw Error(f + "prompt_lookup_min " + j["prompt_lookup_min"].dump() + " must be <= prompt_lookup_max " +
                j["prompt_lookup_max"].dump() + ", as vLLM requires");
  return s;
}

void CheckSpeculativeAgainstTarget(const SpeculativeSettings& s, const ModelSpec& target, int tp) {
  if (s.method.empty()) return;
  const std::string f = std::string(kFlag) + ": ";
  const std::string name = target.name.empty() ? target.architecture : target.name;
  if (s.method == "mtp" && s.draft_model.empty()) {
    // vLLM's MTP drafter is the target's own checkpoint rewritten to its <family>_mtp class
    // (SpeculativeConfig.hf_config_override), whose layer count is num_nextn_predict_layers.
    if (target.mtp_layers == 0)
      throw Error(f + "method \"mtp\" runs the model's own multi-token-prediction layers, and " + name + " (" +
                  target.model_type + ") has none (num_nextn_predict_layers is 0 or absent in its config); vLLM "
                  "refuses it. Use eagle3 with a head, ngram, or a draft model");
    if (s.num_speculative_tokens > target.mtp_layers && s.num_speculative_tokens % target.mtp_layers != 0)
      throw Error(f + Format("num_speculative_tokens %lld must be a multiple of the %lld MTP layers of ",
                             static_cast<long long>(s.num_speculative_tokens),
                             static_cast<long long>(target.mtp_layers)) + name + ", as vLLM requires");
  }
  if (s.draft_tensor_parallel_size != 0 && s.draft_tensor_parallel_size != 1 && s.draft_tensor_parallel_size != tp)
    throw Error(f + Format("draft_tensor_parallel_size %d must be 1 or the target's tensor parallel size %d, as "
                           "vLLM requires", s.draft_tensor_parallel_size, tp));
  if (!s.quantization.empty()) {
    // Checked against the checkpoint it applies to: formats such as compressed-tensors take theirs.
    const QuantizationSpec& base = s.draft && s.method != "mtp" ? s.draft->checkpoint_quantization
                                                                : target.checkpoint_quantization;
    try {
      ParseQuantizationFlag(s.quantization, base);
    } catch (const Error& e) {
      throw Error(f + "\"quantization\": " + e.what());
    }
  }
}

}  // namespace kvsim
