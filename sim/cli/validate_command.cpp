// kvsim validate: replays the settings of real vLLM start-up logs through the capacity planner and
// compares what kvsim predicts with what the server printed.
#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <filesystem>

#include "kvcache/error.h"
#include "kvcache/model_catalog.h"
#include "kvcache/serving_engine.h"
#include "kvcache/units.h"
#include "reports/text_table.h"
#include "sim/cli/commands.h"
#include "sim/cli/deployment_options.h"
#include "sim/cli/vllm_log_rows.h"

namespace kvsim {
namespace po = boost::program_options;
namespace fs = std::filesystem;
namespace {

// A metric compared on every row that logged it.
struct Tally {
  const char* label;
  double tolerance;  // relative
  int checked = 0;
  int within = 0;

  // Returns the cell text "logged/kvsim (±x.x%)" and counts the row.
  std::string Compare(std::optional<double> logged, std::optional<double> predicted, const char* fmt) {
    if (!logged) return "";
    ++checked;
    if (!predicted) return Format(fmt, *logged) + "/-";
    const double err = (*predicted - *logged) / std::max(std::abs(*logged), 1e-9);
    const bool ok = std::abs(err) <= tolerance;
    within += ok;
    return Format(fmt, *logged) + "/" + Format(fmt, *predicted) + Format(" %+.1f%%", 100 * err) + (ok ? "" : " !");
  }
  double rate() const { return checked ? static_cast<double>(within) / checked : 1.0; }
  std::string Summary() const {
    return Format("%s within %.0f%%: %d/%d rows (%.1f%%)", label, 100 * tolerance, within, checked, 100 * rate());
  }
};

std::string PresetFromConfigFile(const std::string& config_file) {
  std::string base = fs::path(config_file).stem().string();
  for (const char* suffix : {".FROM_ISSUE_vllm15120", ".MODIFIED_COPY"})
    if (auto pos = base.find(suffix); pos != std::string::npos) base = base.substr(0, pos);
  if (auto pos = base.find("__"); pos != std::string::npos) base.replace(pos, 2, "/");
  return base;
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
  return "";
}

std::string FirstWord(const std::string& cell) {
  auto end = cell.find(' ');
  return cell.substr(0, end);
}

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

DeploymentOptions OptionsForRow(const VllmLogRow& row) {
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
  return o;
}

}  // namespace

int RunValidateCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& /*err*/) {
  const std::string data_dir = DataDirectory();
  std::string logs = (fs::path(data_dir) / "validation" / "vllm_memory_logs_dev.csv").string();
  std::string configs_dir;
  double min_weights = 0.9, min_kv = 0.8;
  po::options_description desc(
      "kvsim validate: compare kvsim's capacity figures with what real vLLM servers logged at start-up\n\n"
      "Usage: kvsim validate [--logs FILE] [--configs DIR] [--min-weights-pass F] [--min-kv-pass F]\n\n"
      "Every row with a model config is planned with the row's settings (vLLM defaults for blank cells).\n"
      "Weights must be within 2%, KV cache GiB and GPU KV cache tokens within 5%. Exit 1 when a pass\n"
      "rate is below its minimum.\n\nOptions");
  desc.add_options()("help,h", "show this help")
      ("logs", po::value(&logs)->default_value(logs), "CSV of logged start-up figures")
      ("configs", po::value(&configs_dir), "directory of org__name.json configs (default: the presets)")
      ("min-weights-pass", po::value(&min_weights)->default_value(min_weights, Format("%g", min_weights)), "required share of rows with weights within 2%")
      ("min-kv-pass", po::value(&min_kv)->default_value(min_kv, Format("%g", min_kv)), "required share of rows with KV GiB / tokens within 5%");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    out << desc;
    return 0;
  }

  Tally weights{"weights", 0.02}, kv{"KV cache GiB", 0.05}, tokens{"GPU KV cache tokens", 0.05},
      blocks{"GPU blocks (not gated)", 0.05};
  TextTable table({"row", "model", "gpu x tp/pp", "weights GiB log/kvsim", "KV GiB log/kvsim", "tokens log/kvsim",
                   "blocks log/kvsim", "note"});
  int planned = 0, skipped = 0;
  for (const VllmLogRow& row : ReadVllmLogRows(logs)) {
    if (row.config_file.empty()) {
      ++skipped;
      continue;
    }
    DeploymentOptions o = OptionsForRow(row);
    o.model = configs_dir.empty() ? PresetFromConfigFile(row.config_file)
                                  : (fs::path(configs_dir) / fs::path(row.config_file).filename()).string();
    std::string note;
    std::optional<double> w, k, t, b;
    try {
      const Deployment d = ResolveDeployment(o, data_dir);
      const CapacityResult r = PlanCapacity(d.model, d.gpu, d.config);
      // The logs print rank 0's figures; token and block counts are the minimum over workers.
      w = BytesToGiB(r.stages.front().weights.total_bytes());
      k = BytesToGiB(r.stages.front().kv_cache_bytes);
      t = static_cast<double>(r.gpu_kv_cache_tokens);
      b = static_cast<double>(r.num_gpu_blocks);
      ++planned;
      note = r.does_not_fit.substr(0, 40);
    } catch (const Error& e) {
      note = e.what();
      if (note.size() > 60) note = note.substr(0, 57) + "...";
    }
    auto opt = [](const std::optional<long long>& v) { return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt; };
    table.AddRow({row.row_id, row.model_id.substr(0, 36),
                  (row.gpu_model.empty() ? std::string("?") : row.gpu_model.substr(0, 22)) + " x" +
                      std::to_string(o.tensor_parallel_size) + "/" + std::to_string(o.pipeline_parallel_size),
                  weights.Compare(row.weights_gib, w, "%.2f"), kv.Compare(row.kv_cache_gib, k, "%.2f"),
                  tokens.Compare(opt(row.gpu_kv_cache_tokens), t, "%.0f"), blocks.Compare(opt(row.num_gpu_blocks), b, "%.0f"),
                  note});
  }
  out << table.Render() << "('!' marks a figure outside its tolerance; " << skipped
      << " rows without a model config skipped; " << planned << " rows planned)\n";
  const bool pass = weights.rate() >= min_weights && kv.rate() >= min_kv && tokens.rate() >= min_kv;
  out << "summary: " << weights.Summary() << "; " << kv.Summary() << "; " << tokens.Summary() << "; " << blocks.Summary()
      << " -> " << (pass ? "PASS" : "FAIL") << "\n";
  return pass ? 0 : 1;
}

}  // namespace kvsim
