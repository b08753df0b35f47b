// kvsim models / kvsim gpus: what the presets are.
#include <boost/program_options.hpp>
#include <filesystem>

#include "kvcache/budget/capacity_planner.h"
#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "kvcache/model/gpu_catalog.h"
#include "kvcache/model/model_aliases.h"
#include "kvcache/model/model_catalog.h"
#include "kvcache/model/weight_tensors.h"
#include "reports/text_table.h"
#include "cli/commands.h"

namespace kvsim {
namespace po = boost::program_options;
namespace {

bool WantsHelp(const std::vector<std::string>& args, const char* usage, std::ostream& out) {
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") {
      out << usage;
      return true;
    }
  }
  if (!args.empty()) throw Error("unexpected argument '" + args[0] + "' (see --help)");
  return false;
}

const char* AttentionSummary(const ModelSpec& spec) {
  if (spec.has_mla) return "MLA";
  bool sliding = false, chunked = false, state_only = false;
  for (const auto& l : spec.layers) {
    sliding |= l.kind == AttentionKind::kSlidingWindow;
    chunked |= l.kind == AttentionKind::kChunkedLocal;
    state_only |= l.kind == AttentionKind::kStateOnly;
  }
  if (state_only) return "GQA+linear";
  if (chunked) return "GQA+chunked";
  if (sliding) return spec.num_kv_heads == spec.num_attention_heads ? "MHA+SWA" : "GQA+SWA";
  if (spec.num_kv_heads == 1) return "MQA";
  return spec.num_kv_heads == spec.num_attention_heads ? "MHA" : "GQA";
}

}  // namespace

int RunModelsCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (WantsHelp(args, "Usage: kvsim models\n\nLists the model presets (Hugging Face ids) with their shapes.\n", out)) return 0;
  const std::string dir = DataDirectory();
  TextTable table({"preset", "architecture", "params", "layers", "attention", "kv heads", "MoE", "dtype", "quant"});
  std::vector<std::string> ids = ListModelPresets(dir);
  const std::vector<ModelAlias> aliases = LoadModelAliases(dir);
  for (const ModelAlias& a : aliases) ids.push_back(a.id);
  for (const auto& id : ids) {
    try {
      const ModelSpec spec = ResolveModel(id, dir);
      const bool alias = FindModelAlias(aliases, id).has_value();
      table.AddRow({alias ? id + " *" : id, spec.architecture, Format("%.2fB", static_cast<double>(CountParameters(spec)) / 1e9),
                    std::to_string(spec.num_layers), AttentionSummary(spec), std::to_string(spec.num_kv_heads),
                    spec.is_moe() ? Format("%lldx top-%lld", static_cast<long long>(spec.moe.num_experts),
                                           static_cast<long long>(spec.moe.experts_per_token))
                                  : "-",
                    std::string(FormatName(spec.dtype)), spec.checkpoint_quantization.name});
    } catch (const Error& e) {
      err << "kvsim: warning: preset " << id << ": " << e.what() << "\n";
    }
  }
  out << table.Render() << "params in billions (10^9). Presets live in " << dir << "/models.\n";
  if (!aliases.empty())
    out << "* alias: a preset's config.json with the change its card states (" << dir << "/models/ALIASES.tsv).\n";
  return 0;
}

int RunGpusCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& /*err*/) {
  if (WantsHelp(args, "Usage: kvsim gpus\n\nLists the GPU presets usable with --gpu.\n", out)) return 0;
  const std::string path = (std::filesystem::path(DataDirectory()) / "gpus.csv").string();
  const GpuCatalog catalog = GpuCatalog::Load(path);
  TextTable table({"id", "name", "CUDA GiB", "marketed GB", "TB/s", "bf16 TFLOPS", "fp8 TFLOPS", "interconnect"});
  for (const GpuSpec& g : catalog.gpus())
    table.AddRow({g.id, g.name, Format("%.2f", g.cuda_total_gib), Format("%.0f", g.marketed_gb),
                  Format("%.3f", g.mem_bandwidth_bytes_per_s / 1e12), g.bf16_dense_tflops > 0 ? Format("%.1f", g.bf16_dense_tflops) : "-",
                  g.fp8_dense_tflops > 0 ? Format("%.1f", g.fp8_dense_tflops) : "-", NameOf(g.interconnect)});
  out << table.Render() << "CUDA GiB = total memory as torch/CUDA report it (2^30 bytes); dense figures, no sparsity.\n"
      << "interconnect: nvls = NVSwitch with NVLink SHARP, nvlink, pcie, xgmi (AMD); it sizes the NCCL buffers TP adds.\n"
      << "Sources: " << path << "\n";
  return 0;
}

}  // namespace kvsim
