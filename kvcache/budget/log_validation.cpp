#include "kvcache/budget/log_validation.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "kvcache/base/error.h"
#include "kvcache/base/line_reader.h"
#include "kvcache/base/text_format.h"
#include "kvcache/base/units.h"
#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/serve_settings.h"
#include "kvcache/model/model_catalog.h"

namespace kvsim {
namespace fs = std::filesystem;
namespace {

std::string PresetFromConfigFile(const std::string& config_file) {
  std::string base = fs::path(config_file).stem().string();
  for (const char* suffix : {".FROM_ISSUE_vllm15120", ".MODIFIED_COPY"})
    if (auto pos = base.find(suffix); pos != std::string::npos) base = base.substr(0, pos);
  if (auto pos = base.find("__"); pos != std::string::npos) base = base.substr(0, pos) + "/" + base.substr(pos + 2);
  return base;
}

std::string ConfigForRow(const std::string& config_file, const std::string& configs_dir, const std::string& logs_dir) {
  if (!configs_dir.empty()) return (fs::path(configs_dir) / fs::path(config_file).filename()).string();
  if (!logs_dir.empty()) {
    const fs::path beside = fs::path(logs_dir) / config_file;
    std::error_code ec;
    if (fs::is_regular_file(beside, ec)) return beside.string();
  }
  return PresetFromConfigFile(config_file);
}

// Maps the log's free-text quantization cell onto a --quantization value; empty = the checkpoint's.
std::string QuantizationFlag(const std::string& cell) {
  std::string s = cell;
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  if (s.empty() || s == "none") return "none";
  if (s.find("(checkpoint)") != std::string::npos) return "";
  if (s.find("bitsandbytes") != std::string::npos) return "bitsandbytes";
  if (s.find("w8a8") != std::string::npos || s.find("int8") != std::string::npos) return "int8";
  if (s.find("fp8") != std::string::npos) return "fp8";
  if (s.find("awq") != std::string::npos) return "awq";
  if (s.find("gptq") != std::string::npos) return "gptq";
  // Any other name would be planned as the checkpoint's own format without a word.
  throw Error("column quantization: '" + PrintableExcerpt(cell) +
              "' names no format kvsim reads from the table (none, fp8, awq, gptq, bitsandbytes, int8/w8a8, or "
              "'NAME (checkpoint)' for the checkpoint's own)");
}

std::string FirstWord(const std::string& cell) { return cell.substr(0, cell.find(' ')); }

// The vLLM minor release current at a date (first release of each minor), for logs that state a
// date but no version. Dates after the last entry fall back to kvsim's default version.
std::string VersionAtDate(const std::string& text) {
  std::string ymd;  // the first YYYY-MM-DD in the text
  for (size_t i = 0; i + 10 <= text.size() && ymd.empty(); ++i) {
    const std::string s = text.substr(i, 10);
    bool ok = s[0] == '2' && s[1] == '0' && s[4] == '-' && s[7] == '-';
    for (size_t k : {2u, 3u, 5u, 6u, 8u, 9u}) ok = ok && std::isdigit(static_cast<unsigned char>(s[k]));
    if (ok) ymd = s;
  }
  if (ymd.empty()) return "";
  static const std::pair<const char*, const char*> releases[] = {
      {"2024-09-04", "0.6"}, {"2025-01-27", "0.7"}, {"2025-03-18", "0.8"}, {"2025-05-15", "0.9"},
      {"2025-07-24", "0.10"}, {"2025-10-02", "0.11"}, {"2025-12-01", ""}};
  std::string version;
  for (const auto& [since, v] : releases)
    if (ymd >= since) version = v;
  return version;
}

// A speculative_config whose draft "model" names a config shipped with the table (as config_file
// does: "configs/org__name.json" beside the CSV or in `configs_dir`) points at that file;
// otherwise the draft is resolved as the flag would resolve it (a preset id or a path).
std::string SpeculativeConfigForRow(const std::string& text, const std::string& configs_dir,
                                    const std::string& logs_dir) {
  const std::string draft = ReadSpeculative(text).draft_model;
  if (draft.empty()) return text;
  const fs::path shipped = !configs_dir.empty() ? fs::path(configs_dir) / fs::path(draft).filename()
                                                : fs::path(logs_dir.empty() ? "." : logs_dir) / draft;
  std::error_code ec;
  if (fs::path(draft).extension() != ".json" || !fs::is_regular_file(shipped, ec)) return text;
  nlohmann::json j = nlohmann::json::parse(text);  // ReadSpeculative parsed it already
  j["model"] = shipped.string();
  return j.dump();
}

std::optional<double> AsDouble(const std::optional<long long>& v) {
  return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
}

}  // namespace

ComparedFigure MetricTally::Add(std::optional<double> logged, std::optional<double> predicted) {
  ComparedFigure f{logged, predicted, false, 0};
  if (!logged) return f;
  ++checked;
  if (!predicted) return f;
  f.relative_error = (*predicted - *logged) / std::max(std::abs(*logged), 1e-9);
  f.within = std::abs(f.relative_error) <= tolerance;
  within += f.within;
  return f;
}

DeploymentOptions OptionsForLogRow(const VllmLogRow& row) {
  DeploymentOptions o;
  o.engine = row.engine == "SGLang" ? "sglang" : "vllm";
  std::optional<VllmVersion> logged;
  try {
    if (!row.vllm_version.empty()) logged = ParseVllmVersion(FirstWord(row.vllm_version));
  } catch (const Error&) {
  }
  // Rows run on the V0 engine of a V1-era release (VLLM_USE_V1=0) get the V0 behaviour.
  if (row.engine == "v0") o.vllm_version = logged && logged->minor < 8 ? logged->text : "v0";
  else if (logged) o.vllm_version = logged->text;
  else if (const std::string dated = VersionAtDate(row.source_detail); !dated.empty()) o.vllm_version = dated;
  o.quantization = QuantizationFlag(row.quantization);
  if (!row.dtype.empty()) o.dtype = FirstWord(row.dtype);
  if (!row.kv_cache_dtype.empty()) o.kv_cache_dtype = row.kv_cache_dtype;
  o.gpu = row.gpu_model;
  if (row.total_gpu_memory_gib) o.gpu_memory_gib = Format("%.4f", *row.total_gpu_memory_gib);
  if (row.tensor_parallel_size) o.tensor_parallel_size = static_cast<int>(*row.tensor_parallel_size);
  if (row.pipeline_parallel_size) o.pipeline_parallel_size = static_cast<int>(*row.pipeline_parallel_size);
  if (row.gpu_memory_utilization) o.gpu_memory_utilization = Format("%.4f", *row.gpu_memory_utilization);
  auto count = [](const std::optional<long long>& v) { return v ? std::to_string(*v) : std::string(); };
  o.max_model_len = count(row.max_model_len);
  o.max_num_seqs = count(row.max_num_seqs);
  o.max_num_batched_tokens = count(row.max_num_batched_tokens);
  o.block_size = count(row.block_size);
  o.enable_lora = row.lora_enabled();
  o.max_loras = row.max_loras;
  o.max_lora_rank = row.max_lora_rank;
  o.speculative_config = row.speculative_config;
  o.enforce_eager = row.enforce_eager;
  if (row.kv_cache_memory_bytes) o.kv_cache_memory = std::to_string(*row.kv_cache_memory_bytes);
  return o;
}

LogValidation ValidateAgainstLogs(const std::vector<VllmLogRow>& rows, const std::string& configs_dir,
                                  const std::string& data_dir, const std::string& logs_dir) {
  LogValidation v;
  ResolveCache cache;
  const std::vector<std::string> presets = ListModelPresets(data_dir);
  for (const VllmLogRow& row : rows) {
    // A row without a config of its own is planned with the preset of its exact model id, if kvsim
    // ships one (a config found after the row was written); otherwise it is skipped.
    const bool preset = row.config_file.empty() &&
                        std::find(presets.begin(), presets.end(), row.model_id) != presets.end();
    if (row.config_file.empty() && !preset) {
      ++v.skipped;
      continue;
    }
    DeploymentOptions o;
    try {
      o = OptionsForLogRow(row);
    } catch (const Error& e) {  // a cell of the row, not a deployment kvsim refuses: bad input
      throw Error("row " + row.row_id + " (line " + std::to_string(row.line) + "): " + e.what());
    }
    o.model = preset ? row.model_id : ConfigForRow(row.config_file, configs_dir, logs_dir);
    o.speculative_config = SpeculativeConfigForRow(o.speculative_config, configs_dir, logs_dir);
    ValidatedRow out{row.row_id, row.model_id, row.gpu_model, o.tensor_parallel_size, o.pipeline_parallel_size,
                     {}, {}, {}, {}, false, ""};
    std::optional<double> w, k, t, b;
    // A config that does not parse is bad input (exit 2), not a row kvsim refuses to plan.
    if (!preset && cache.models.find(o.model) == cache.models.end()) {
      try {
        cache.models.emplace(o.model, ResolveModel(o.model, data_dir));
      } catch (const Error& e) {
        throw Error("row " + row.row_id + ": " + e.what());
      }
    }
    try {
      const Deployment d = ResolveDeployment(o, data_dir, &cache);
      const CapacityResult r = PlanCapacity(d.model, d.gpu, d.config);
      // The logs print rank 0's figures; token and block counts are the minimum over workers.
      w = BytesToGiB(r.stages.front().weights.total_bytes());
      k = BytesToGiB(r.stages.front().kv_cache_bytes);
      t = static_cast<double>(r.gpu_kv_cache_tokens);
      b = static_cast<double>(r.num_gpu_blocks);
      ++v.planned;
      out.planned = true;
      out.note = r.does_not_fit;
    } catch (const Error& e) {
      out.note = e.what();
    }
    out.weights_gib = v.weights.Add(row.weights_gib, w);
    if (row.kv_cache_gib && *row.kv_cache_gib < 0) {
      // vLLM refused to start; kvsim agrees when it says the deployment does not fit.
      const bool agrees = out.planned && !out.note.empty();
      ++v.refusals.checked;
      if (agrees) ++v.refusals.within;
      out.note = Format("vLLM refused to start (KV cache %.2f GiB); kvsim: %s", *row.kv_cache_gib,
                        agrees ? "does not fit either" : "plans it (!)");
    } else {
      out.kv_cache_gib = v.kv_cache.Add(row.kv_cache_gib, k);
      out.tokens = v.tokens.Add(AsDouble(row.gpu_kv_cache_tokens), t);
      out.blocks = v.blocks.Add(AsDouble(row.num_gpu_blocks), b);
    }
    v.rows.push_back(std::move(out));
  }
  return v;
}

}  // namespace kvsim
