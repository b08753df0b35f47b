#include "kvcache/budget/serve_settings.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

#include "kvcache/base/csv_cells.h"
#include "kvcache/base/enum_names.h"
#include "kvcache/base/error.h"
#include "kvcache/base/json_file.h"
#include "kvcache/base/line_reader.h"
#include "kvcache/base/quantity_parse.h"
#include "kvcache/base/units.h"
#include "kvcache/budget/all2all_backend.h"
#include "kvcache/budget/compilation_config_keys.h"
#include "kvcache/budget/serving_engine.h"
#include "kvcache/budget/speculative_config.h"
#include "kvcache/model/model_catalog.h"

namespace kvsim {
namespace {

nlohmann::json ParseJsonFlag(const std::string& text, const std::string& flag) {
  std::string why;
  std::optional<nlohmann::json> j = ParseJsonText(text, &why);
  if (!j) throw Error(flag + ": '" + PrintableExcerpt(text, 200) + "' is not valid JSON (" + why + ")");
  if (!j->is_object()) throw Error(flag + ": '" + PrintableExcerpt(text, 200) + "' is not a JSON object");
  return std::move(*j);
}

int64_t JsonCount(const nlohmann::json& j, const std::string& key, const std::string& flag) {
  if (j.is_number_integer() && j.get<int64_t>() >= 0) return j.get<int64_t>();
  if (j.is_string()) return ParseTokenCount(j.get<std::string>(), flag + " " + key);
  throw Error(flag + ": '" + key + "' must be a non-negative integer");
}


MultimodalSettings ReadMultimodal(const DeploymentOptions& o) {
  MultimodalSettings m;
  m.skip_profiling = o.skip_mm_profiling;
  if (!o.limit_mm_per_prompt.empty()) {
    const nlohmann::json limits = ParseJsonFlag(o.limit_mm_per_prompt, "--limit-mm-per-prompt");
    for (auto it = limits.begin(); it != limits.end(); ++it) {
      // vLLM also takes {"image": {"count": 2, "width": ..., "height": ...}}.
      const nlohmann::json& v = it.value();
      const bool nested = v.is_object() && v.contains("count");
      m.limit_per_prompt[it.key()] = JsonCount(nested ? v["count"] : v, it.key(), "--limit-mm-per-prompt");
    }
  }
  if (!o.mm_processor_kwargs.empty()) {
    const nlohmann::json j = ParseJsonFlag(o.mm_processor_kwargs, "--mm-processor-kwargs");
    if (j.contains("max_pixels")) m.max_pixels = JsonCount(j["max_pixels"], "max_pixels", "--mm-processor-kwargs");
  }
  return m;
}

std::vector<int64_t> ReadCaptureSizes(const nlohmann::json& list, const std::string& flag) {
  if (!list.is_array()) throw Error(flag + ": cudagraph_capture_sizes must be a list of batch sizes");
  // An empty list is not "vLLM's pattern" (what kvsim plans when no list is given): refused rather than
  // read as the default.
  if (list.empty())
    throw Error(flag + ": cudagraph_capture_sizes is an empty list; give the batch sizes, or cudagraph_mode \"NONE\" for no graphs");
  std::vector<int64_t> sizes;
  for (const nlohmann::json& item : list) {
    // pydantic's lax mode reads the text of a whole number ("8", as the dotted `+` form gives) as one.
    nlohmann::json n = item;
    if (item.is_string() && !item.get<std::string>().empty() &&
        item.get<std::string>().find_first_not_of("0123456789") == std::string::npos && item.get<std::string>().size() < 10)
      n = std::stoll(item.get<std::string>());
    if (!n.is_number_integer() || n.get<int64_t>() < 1 || n.get<int64_t>() > 1 << 20)
      throw Error(flag + ": cudagraph_capture_sizes holds '" + item.dump() + "'; each must be a batch size from 1 to 1048576");
    sizes.push_back(n.get<int64_t>());
  }
  return sizes;
}

// --compilation-config as vLLM takes it: a JSON object, or (-O3) an optimization level. Its keys are
// checked as compilation_config_keys.h says; the graph-capture ones are read here.
void ReadCompilationConfig(const std::string& text, CudaGraphSettings& g) {
  const std::string flag = "--compilation-config";
  if (text.empty()) return;
  if (text.size() == 1 && text[0] >= '0' && text[0] <= '3') {
    if (text == "0") g.mode = CudaGraphMode::kNone;  // no compilation: vLLM captures no graphs
    return;
  }
  const nlohmann::json j = ParseJsonFlag(text, flag);
  CompilationKeyReport keys = CheckCompilationConfigKeys(j, flag);
  g.compilation_keys_without_effect = std::move(keys.without_effect);
  g.compilation_keys_not_modelled = std::move(keys.not_modelled);
  if (auto it = j.find("cudagraph_mode"); it != j.end() && !it->is_null()) {
    const std::string name = it->is_string() ? it->get<std::string>() : it->dump();
    std::string upper;
    for (char ch : name) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    g.mode = ParseEnum<CudaGraphMode>(upper, flag + " cudagraph_mode");
  }
  // vLLM's CompilationMode (vllm/config/compilation.py; "level" is its older name): 0 NONE,
  // 1 STOCK_TORCH_COMPILE, 2 DYNAMO_TRACE_ONCE, 3 VLLM_COMPILE, by number or name. Any other value
  // fails vLLM's validation, so it is refused here rather than read as the default.
  for (const char* key : {"level", "mode"}) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) continue;
    static constexpr const char* kModes[] = {"NONE", "STOCK_TORCH_COMPILE", "DYNAMO_TRACE_ONCE", "VLLM_COMPILE"};
    int64_t mode = -1;
    if (it->is_number_integer()) {
      mode = it->get<int64_t>();
    } else if (it->is_string()) {
      std::string upper;
      for (char ch : it->get<std::string>()) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      for (int64_t m = 0; m < 4; ++m)
        if (upper == kModes[m] || upper == std::to_string(m)) mode = m;
    }
    if (mode < 0 || mode > 3)
      throw Error(flag + ": '" + key + "' is " + it->dump() +
                  "; vLLM's compilation mode is 0-3 (NONE, STOCK_TORCH_COMPILE, DYNAMO_TRACE_ONCE, VLLM_COMPILE)");
    if (mode == 0 && !g.mode) g.mode = CudaGraphMode::kNone;
  }
  if (auto it = j.find("cudagraph_capture_sizes"); it != j.end() && !it->is_null()) g.capture_sizes = ReadCaptureSizes(*it, flag);
  if (auto it = j.find("max_cudagraph_capture_size"); it != j.end() && !it->is_null())
    g.max_capture_size = JsonCount(*it, "max_cudagraph_capture_size", flag);
}

// vLLM 0.12's optimization levels (vllm/config/vllm.py OPTIMIZATION_LEVEL_00..03) are defaults
// under the user's own settings: -O0 captures no graphs, -O1 piecewise ones, -O2/-O3 the release's
// default mode. An explicit cudagraph_mode in --compilation-config wins.
void ApplyOptimizationLevel(const std::string& text, CudaGraphSettings& g) {
  if (text.empty()) return;
  if (text.size() != 1 || text[0] < '0' || text[0] > '3')
    throw Error("--optimization-level: '" + text + "' is not 0, 1, 2 or 3");
  if (g.mode) return;
  if (text == "0") g.mode = CudaGraphMode::kNone;
  if (text == "1") g.mode = CudaGraphMode::kPiecewise;
}

CudaGraphSettings ReadCudaGraphs(const DeploymentOptions& o) {
  CudaGraphSettings g;
  ReadCompilationConfig(o.compilation_config, g);
  ApplyOptimizationLevel(o.optimization_level, g);
  if (!o.cudagraph_capture_sizes.empty()) {
    nlohmann::json list = nlohmann::json::array();
    std::vector<std::string> items;
    SplitCsvLine(o.cudagraph_capture_sizes, items, ',');
    for (const std::string& item : items) list.push_back(ParseTokenCount(item, "--cudagraph-capture-sizes"));
    g.capture_sizes = ReadCaptureSizes(list, "--cudagraph-capture-sizes");
  }
  if (!o.max_cudagraph_capture_size.empty())
    g.max_capture_size = ParseTokenCount(o.max_cudagraph_capture_size, "--max-cudagraph-capture-size");
  // vLLM takes the largest listed size as the maximum and checks a maximum given beside the list
  // against it (vllm/config/compilation.py, max_cudagraph_capture_size); two that differ are refused.
  if (g.max_capture_size && !g.capture_sizes.empty()) {
    const int64_t largest = *std::max_element(g.capture_sizes.begin(), g.capture_sizes.end());
    if (*g.max_capture_size != largest)
      throw Error("max_cudagraph_capture_size (--max-cudagraph-capture-size) " + std::to_string(*g.max_capture_size) +
                  " differs from the largest of cudagraph_capture_sizes (--cudagraph-capture-sizes), " +
                  std::to_string(largest) + "; vLLM requires them equal: give one of them");
  }
  if (o.cuda_graph_estimate == "on" || o.cuda_graph_estimate == "1") g.estimate_in_budget = true;
  else if (o.cuda_graph_estimate == "off" || o.cuda_graph_estimate == "0") g.estimate_in_budget = false;
  else if (o.cuda_graph_estimate != "auto" && !o.cuda_graph_estimate.empty())
    throw Error("--cuda-graph-estimate: '" + o.cuda_graph_estimate + "' is not on, off or auto");
  if (!o.cuda_graph_memory.empty()) {
    const double bytes = ParseByteAmount(o.cuda_graph_memory, "--cuda-graph-memory");
    if (!(bytes >= 0 && bytes < 1e15)) throw Error("--cuda-graph-memory: must be a non-negative amount (e.g. 0.9GiB)");
    g.total_bytes = bytes;
  }
  return g;
}

}  // namespace

SpeculativeSettings ReadSpeculative(const std::string& text) {
  if (text.empty()) return SpeculativeSettings();
  return SpeculativeFromJson(ParseJsonFlag(text, "--speculative-config"));
}

// vLLM's LoRAConfig (vllm/config/lora.py, v0.11) checks: the rank one of its kernel sizes,
// max_cpu_loras >= max_loras, the extra vocabulary 256 or 512.
LoraSettings ReadLora(const DeploymentOptions& o) {
  LoraSettings l;
  if (!o.enable_lora) {
    for (const auto& [flag, text] : {std::pair<const char*, const std::string&>{"--max-loras", o.max_loras},
                                     {"--max-lora-rank", o.max_lora_rank}, {"--max-cpu-loras", o.max_cpu_loras},
                                     {"--lora-extra-vocab-size", o.lora_extra_vocab_size}})
      if (!text.empty()) throw Error(std::string(flag) + " needs --enable-lora (vLLM builds no LoRA config without it)");
    if (o.fully_sharded_loras) throw Error("--fully-sharded-loras needs --enable-lora (vLLM builds no LoRA config without it)");
    if (o.lora_dtype != "auto") throw Error("--lora-dtype needs --enable-lora (vLLM builds no LoRA config without it)");
    return l;
  }
  l.enabled = true;
  if (!o.max_loras.empty()) l.max_loras = ParseTokenCount(o.max_loras, "--max-loras");
  if (l.max_loras < 1 || l.max_loras > 4096) throw Error("--max-loras: must be between 1 and 4096");
  if (!o.max_lora_rank.empty()) l.max_lora_rank = ParseTokenCount(o.max_lora_rank, "--max-lora-rank");
  bool rank_known = false;
  for (const int64_t r : {1, 8, 16, 32, 64, 128, 256, 320, 512}) rank_known = rank_known || r == l.max_lora_rank;
  if (!rank_known) throw Error("--max-lora-rank: " + std::to_string(l.max_lora_rank) + " is not one vLLM takes (1, 8, 16, 32, 64, 128, 256, 320, 512)");
  if (!o.max_cpu_loras.empty()) {
    l.max_cpu_loras = ParseTokenCount(o.max_cpu_loras, "--max-cpu-loras");
    if (*l.max_cpu_loras < l.max_loras || *l.max_cpu_loras > 1000000)
      throw Error("--max-cpu-loras: " + std::to_string(*l.max_cpu_loras) + " must be at least --max-loras (" +
                  std::to_string(l.max_loras) + "), as vLLM requires");
  }
  if (o.lora_dtype != "auto" && o.lora_dtype != "float16" && o.lora_dtype != "bfloat16" && o.lora_dtype != "fp16" &&
      o.lora_dtype != "bf16")
    throw Error("--lora-dtype: '" + o.lora_dtype + "' is not known (auto, float16, bfloat16)");
  l.lora_dtype = o.lora_dtype;
  l.fully_sharded = o.fully_sharded_loras;
  if (!o.lora_extra_vocab_size.empty()) {
    l.extra_vocab_size = ParseTokenCount(o.lora_extra_vocab_size, "--lora-extra-vocab-size");
    if (l.extra_vocab_size != 256 && l.extra_vocab_size != 512)
      throw Error("--lora-extra-vocab-size: must be 256 or 512, as vLLM 0.11 takes it");
  }
  return l;
}

// vLLM's human_readable_int_or_auto strips the text and compares it lower-cased: " AUTO " is auto too.
bool IsAutoMaxModelLen(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\n"), last = text.find_last_not_of(" \t\n");
  std::string word = first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
  for (char& ch : word) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return word == "auto" || word == "-1";
}

void ReadServeSettings(const DeploymentOptions& o, DeploymentConfig& c) {
  c.max_model_len_auto = IsAutoMaxModelLen(o.max_model_len);
  if (!o.num_gpu_blocks_override.empty()) {
    c.num_gpu_blocks_override = ParseTokenCount(o.num_gpu_blocks_override, "--num-gpu-blocks-override");
    if (*c.num_gpu_blocks_override < 1) throw Error("--num-gpu-blocks-override: must be at least 1");
  }
  if (!o.cpu_offload_gb.empty()) {
    const double gib = ParseFiniteNumber(o.cpu_offload_gb, "--cpu-offload-gb");
    if (!(gib >= 0 && gib < 1e6)) throw Error("--cpu-offload-gb: must be a non-negative number of GiB");
    c.cpu_offload_bytes = GiBToBytes(gib);
  }
  if (o.data_parallel_size < 1 || o.data_parallel_size > 1024)
    throw Error("--data-parallel-size: " + std::to_string(o.data_parallel_size) + " must be between 1 and 1024");
  c.data_parallel_size = o.data_parallel_size;
  if (o.decode_context_parallel_size < 1 || o.decode_context_parallel_size > 1024)
    throw Error("--decode-context-parallel-size: " + std::to_string(o.decode_context_parallel_size) +
                " must be between 1 and 1024");
  c.decode_context_parallel_size = o.decode_context_parallel_size;
  c.enable_expert_parallel = o.enable_expert_parallel;
  c.all2all_backend = ReadAll2AllBackend(o.all2all_backend, ParseVllmVersion(o.vllm_version).minor, c.data_parallel_size,
                                         c.enable_expert_parallel);
  c.disable_sliding_window = o.disable_sliding_window;
  c.speculative = ReadSpeculative(o.speculative_config);
  c.lora = ReadLora(o);
  c.multimodal = ReadMultimodal(o);
  c.cuda_graphs = ReadCudaGraphs(o);
  // VLLM_USE_V2_MODEL_RUNNER set picks the runner over the release's capability check (vllm/envs.py:
  // "If unset, use config defaults"); the V0 engine has neither.
  if (o.model_runner != "auto") {
    c.model_runner = ParseEnum<ModelRunner>(o.model_runner, "--model-runner");
    if (ParseVllmVersion(o.vllm_version).v0_engine)
      throw Error("--model-runner " + o.model_runner + ": the V0 engine (--vllm-version v0) has its own model runner, not V1's or V2's");
  }
}

nlohmann::json ConfigOverrides(const DeploymentOptions& o) {
  nlohmann::json overrides = o.hf_overrides.empty() ? nlohmann::json::object() : ParseJsonFlag(o.hf_overrides, "--hf-overrides");
  // vLLM's --rope-scaling set the config's rope_scaling (and wins over one in --hf-overrides).
  if (!o.rope_scaling.empty()) overrides["rope_scaling"] = ParseJsonFlag(o.rope_scaling, "--rope-scaling");
  return overrides;
}

void ResolveDraftModel(DeploymentConfig& c, const std::string& data_dir) {
  if (c.speculative.draft_model.empty() || c.speculative.draft) return;
  c.speculative.draft = std::make_shared<const ModelSpec>(
      ResolveModel(c.speculative.draft_model, data_dir, "--speculative-config: draft \"model\"",
                   "it as the draft: --speculative-config '{\"model\": \"./config.json\", ...}'"));
}

}  // namespace kvsim
