#include "kvcache/budget/compilation_config_keys.h"

#include <algorithm>
#include <cctype>

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"

namespace kvsim {
// Named so that the unity build, which joins this file with speculative_config.cpp, keeps the tables apart.
namespace compilation_keys {

// The fields of vLLM's CompilationConfig (vllm/config/compilation.py, vllm-project/vllm commit ee525ce4,
// the newest the project reads), declared once. The graph-capture fields are read in serve_settings.cpp.
constexpr const char* kModelledKeys[] = {"level", "mode", "cudagraph_mode", "cudagraph_capture_sizes",
                                         "max_cudagraph_capture_size"};
// Paths, the compile cache, the Inductor backend and its options, custom-op and fusion choices, graph
// splitting and warm-up: they choose kernels and how long start-up compiles, not what is allocated.
// use_inductor is 0.11's switch between Inductor and eager (replaced by "backend"), still in published
// recipes (vllm-project/recipes inclusionAI/Ring-1T-FP8.md).
constexpr const char* kKeysWithoutEffect[] = {
    "debug_dump_path", "cache_dir", "compile_cache_save_format", "backend", "custom_ops", "splitting_ops",
    "compile_mm_encoder", "compile_sizes", "compile_ranges_split_points", "inductor_compile_config", "inductor_passes",
    "cudagraph_num_of_warmups", "cudagraph_copy_inputs", "use_inductor_graph_partition", "pass_config",
    "dynamic_shapes_config", "use_inductor"};
struct ExplainedKey {
  const char* key;
  const char* why;
};
// With --enable-lora vLLM captures each graph twice (with and without active adapters) unless this is
// false; kvsim counts one set.
constexpr ExplainedKey kNotModelledKeys[] = {
    {"cudagraph_specialize_lora", "with LoRA, vLLM captures graphs with and without adapters; kvsim counts one set"}};
// Keys of older releases that set the graphs, which cudagraph_mode replaced: refused rather than read
// as something the newest release no longer has.
constexpr ExplainedKey kReplacedKeys[] = {
    {"use_cudagraph", "an older release's switch, replaced by cudagraph_mode (\"NONE\" turns graphs off)"},
    {"full_cuda_graph", "an older release's switch, replaced by cudagraph_mode (\"FULL\" or \"FULL_AND_PIECEWISE\")"},
    {"cuda_graph_sizes", "the older --cuda-graph-sizes flag (SchedulerConfig), not a key of CompilationConfig; give "
                         "cudagraph_capture_sizes"}};

// PassConfig's fields (the same file and commit): fusions and sequence parallelism, each a kernel
// choice. fuse_minimax_qk_norm is a later release's, in vllm-project/recipes MiniMax/MiniMax-M2.md; the
// enable_* names are 0.11's for the same passes.
constexpr const char* kPassConfigKeys[] = {
    "fuse_norm_quant", "fuse_act_quant", "fuse_attn_quant", "eliminate_noops", "enable_sp", "fuse_gemm_comms",
    "fuse_allreduce_rms", "fuse_act_padding", "fuse_rope_kvcache", "fi_allreduce_fusion_max_size_mb",
    "enable_qk_norm_rope_fusion", "fuse_minimax_qk_norm", "enable_fusion", "enable_attn_fusion", "enable_noop",
    "enable_sequence_parallelism", "enable_async_tp", "enable_fi_allreduce_fusion"};
// DynamicShapesConfig's fields: how torch.compile treats dynamic shapes.
constexpr const char* kDynamicShapesKeys[] = {"type", "evaluate_guards", "assume_32_bit_indexing"};

template <size_t N>
bool In(const std::string& key, const char* const (&list)[N]) {
  return std::any_of(std::begin(list), std::end(list), [&](const char* k) { return key == k; });
}

template <size_t N>
void AddNames(std::vector<std::string>& out, const char* const (&list)[N]) {
  out.insert(out.end(), std::begin(list), std::end(list));
}

std::string DidYouMean(const std::string& key, const std::vector<std::string>& known) {
  const std::vector<std::string> close = ClosestMatches(key, known, 1);
  return close.empty() ? std::string() : " (did you mean " + close.front() + "?)";
}

// A nested config (pass_config, dynamic_shapes_config): an object whose keys are all fields, as
// pydantic builds it from a dict; null keeps the default.
template <size_t N>
void CheckNested(const nlohmann::json& value, const std::string& name, const char* const (&fields)[N],
                 const std::string& flag, const std::string& what, CompilationKeyReport& report) {
  if (value.is_null()) return;
  if (!value.is_object())
    throw Error(flag + ": '" + name + "' is " + value.dump() + "; vLLM's " + what + " takes a JSON object of its fields");
  std::vector<std::string> known;
  AddNames(known, fields);
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (!In(it.key(), fields))
      throw Error(flag + ": '" + name + "." + it.key() + "' is not a field of vLLM's " + what +
                  DidYouMean(it.key(), known) + "; vLLM refuses unknown keys (extra=\"forbid\")");
    report.without_effect.push_back(name + "." + it.key());
  }
}

}  // namespace compilation_keys

CompilationKeyReport CheckCompilationConfigKeys(const nlohmann::json& config, const std::string& flag) {
  CompilationKeyReport report;
  std::vector<std::string> known;
  compilation_keys::AddNames(known, compilation_keys::kModelledKeys);
  compilation_keys::AddNames(known, compilation_keys::kKeysWithoutEffect);
  for (const compilation_keys::ExplainedKey& k : compilation_keys::kNotModelledKeys) known.push_back(k.key);
  for (auto it = config.begin(); it != config.end(); ++it) {
    const std::string& key = it.key();
    if (compilation_keys::In(key, compilation_keys::kModelledKeys)) continue;
    for (const compilation_keys::ExplainedKey& k : compilation_keys::kReplacedKeys)
      if (key == k.key) throw Error(flag + ": '" + key + "' is " + k.why);
    if (key == "pass_config") {
      compilation_keys::CheckNested(it.value(), key, compilation_keys::kPassConfigKeys, flag, "PassConfig", report);
      if (it.value().is_null() || it.value().empty()) report.without_effect.push_back(key);
      continue;
    }
    if (key == "dynamic_shapes_config") {
      compilation_keys::CheckNested(it.value(), key, compilation_keys::kDynamicShapesKeys, flag, "DynamicShapesConfig", report);
      if (it.value().is_null() || it.value().empty()) report.without_effect.push_back(key);
      continue;
    }
    if (compilation_keys::In(key, compilation_keys::kKeysWithoutEffect)) {
      report.without_effect.push_back(key);
      continue;
    }
    bool explained = false;
    for (const compilation_keys::ExplainedKey& k : compilation_keys::kNotModelledKeys)
      if (key == k.key) report.not_modelled.push_back(key + " (" + k.why + ")"), explained = true;
    if (explained) continue;
    throw Error(flag + ": '" + key + "' is not a field of vLLM's CompilationConfig" + compilation_keys::DidYouMean(key, known) +
                "; vLLM refuses unknown keys (extra=\"forbid\")");
  }
  return report;
}

}  // namespace kvsim
