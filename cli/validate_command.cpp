// kvsim validate: replays the settings of real vLLM start-up logs through the capacity planner and
// compares what kvsim predicts with what the server printed.
#include <boost/program_options.hpp>
#include <filesystem>

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "kvcache/budget/log_validation.h"
#include "kvcache/model/model_catalog.h"
#include "reports/validation_report.h"
#include "cli/commands.h"
#include "cli/numeric_options.h"
#include "cli/option_rules.h"

namespace kvsim {
namespace po = boost::program_options;

int RunValidateCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& /*err*/) {
  const std::string data_dir = DataDirectory();
  std::string logs = (std::filesystem::path(data_dir) / "validation" / "vllm_memory_logs_dev.csv").string();
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
      ("configs", po::value(&configs_dir), "directory of org__name.json configs (default: a row's config_file beside the CSV, else the preset)")
      ("min-weights-pass", po::value(&min_weights)->default_value(min_weights, Format("%g", min_weights)), "required share of rows with weights within 2%")
      ("min-kv-pass", po::value(&min_kv)->default_value(min_kv, Format("%g", min_kv)), "required share of rows with KV GiB / tokens within 5%");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).run(), vm);
  po::notify(vm);
  ValidateNumericOptions(vm);
  CheckOptionRules(vm);
  if (vm.count("help")) {
    out << desc;
    return kExitOk;
  }
  if (!configs_dir.empty() && !std::filesystem::is_directory(configs_dir))
    throw Error("--configs: '" + configs_dir + "' is not a directory");
  const std::string logs_dir = std::filesystem::path(logs).parent_path().string();
  const std::vector<VllmLogRow> rows = ReadVllmLogRows(logs);
  LogValidation v;
  try {
    v = ValidateAgainstLogs(rows, configs_dir, data_dir, logs_dir.empty() ? "." : logs_dir);
  } catch (const Error& e) {  // "row ID (line N): ...": the table it is a row of
    const std::string what = e.what();
    throw Error(what.rfind("row ", 0) == 0 ? logs + ": " + what : what);
  }
  out << RenderValidationText(v, min_weights, min_kv);
  return v.Passes(min_weights, min_kv) ? kExitOk : kExitThresholdMissed;
}

}  // namespace kvsim
