// kvsim compare: the same trace through two or more deployments, side by side.
#include <boost/program_options.hpp>
#include <csignal>
#include <memory>

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "kvcache/model/model_catalog.h"
#include "reports/compare_report.h"
#include "cli/commands.h"
#include "kvcache/base/interrupt.h"
#include "cli/numeric_options.h"
#include "cli/option_rules.h"
#include "cli/output.h"
#include "cli/pasted_shell_text.h"
#include "cli/shared_flags.h"
#include "cli/variant_parser.h"
#include "cli/vllm_command_line.h"
#include "sim/sweep/sweep.h"
#include "sim/sweep/sweep_ranks.h"

namespace kvsim {
namespace po = boost::program_options;
namespace {

// "does not fit: ... short by 3.60 GiB ..." -> "does not fit: needs 3.60 GiB more (...)".
std::string NeedsMore(const std::string& reason) {
  const size_t at = reason.find("short by ");
  if (at == std::string::npos) return reason;
  const size_t end = reason.find(" GiB", at);
  const std::string gib = reason.substr(at + 9, end == std::string::npos ? std::string::npos : end - at - 9);
  return "does not fit: needs " + gib + " GiB more (" + reason.substr(std::string("does not fit: ").size()) + ")";
}

// compare replays the same requests through every deployment: a workload flag inside one deployment's
// options (--a "--synthetic 10", --b "--rate-scale 2") gave it other requests, whose figures were then
// differenced against the rest under a heading naming a's workload alone. LoRA adapters drawn per
// request stay a deployment's own (a LoRA deployment beside the base model is a fair comparison).
void RefuseDifferentRequests(const std::vector<Variant>& variants) {
  for (size_t i = 1; i < variants.size(); ++i) {
    ReplayOptions a = variants.front().replay, b = variants[i].replay;
    b.adapters = a.adapters;
    b.adapter_popularity = a.adapter_popularity;
    b.reader.adapter_column = a.reader.adapter_column;
    if (!SameTraceInput(a, b) || a.window.rate_scale != b.window.rate_scale)
      throw Error("deployment " + variants[i].label + " replays other requests than deployment " + variants.front().label +
                  " (a workload option in its own options); give the workload once, outside --a/--b/..., or vary it "
                  "with kvsim sweep");
  }
}

}  // namespace

int RunCompareCommand(const std::vector<std::string>& given, std::ostream& out, std::ostream& err) {
  const std::vector<std::string> args = ExpandServeCommand(given, err, "compare");
  constexpr const char* kNames[] = {"a", "b", "c", "d", "e", "f", "g", "h"};
  std::vector<std::string> variant_args(std::size(kNames));
  std::string json_path, report_path;
  int jobs = DefaultJobs();
  po::options_description own(
      "kvsim compare: replay the same trace through two or more deployments and print them side by side.\n"
      "Every other option is a kvsim replay option shared by all deployments; --a, --b, ... add or\n"
      "override options for one deployment.\n\n"
      "Usage: kvsim compare --a \"OPTIONS\" --b \"OPTIONS\" [--c ...] [shared replay options] [-- vllm serve MODEL ...]\n"
      "A deployment's OPTIONS may be a whole server command line: --a \"vllm serve MODEL -tp 2\".\n"
      "A deployment that does not fit is reported as such; the others are still compared.\n\nCompare options",
      110, 60);
  own.add_options()("help,h", "show this help");
  for (size_t i = 0; i < std::size(kNames); ++i)
    own.add_options()(kNames[i], po::value(&variant_args[i]),
                      (std::string("options of deployment ") + kNames[i] + (i >= 2 ? " (optional)" : "")).c_str());
  AddJobsOption(own, jobs);
  OutputFlags outputs(own);
  outputs.Json(json_path, "write every deployment's summary to FILE.json")
      .File("report", report_path, "write one HTML page with the charts overlaid", /*dash_is_stdout=*/true);
  po::variables_map vm;
  po::parsed_options parsed = po::command_line_parser(args).options(own).allow_unregistered().run();
  po::store(parsed, vm);
  po::notify(vm);
  ValidateNumericOptions(vm);
  CheckOptionRules(vm);
  if (vm.count("help")) {
    out << own << "\nExample:\n  kvsim compare --gpu l4 --a \"--quantization none\" --b \"--quantization awq\"\n";
    return kExitOk;
  }
  ValidateJobs(jobs);
  outputs.Check(args);
  const std::vector<std::string> base = po::collect_unrecognized(parsed.options, po::include_positional);
  const std::string data_dir = DataDirectory();
  std::vector<Variant> variants;
  // The columns and the "b - a" difference are named by letter: a gap (--a and --c without --b)
  // would print c's figures under a heading that says b.
  for (size_t i = 1; i < std::size(kNames); ++i)
    if (vm.count(kNames[i]) && !vm.count(kNames[i - 1]))
      throw Error("--" + std::string(kNames[i]) + " is given without --" + std::string(kNames[i - 1]) +
                  ": name the deployments --a, --b, --c, ... in order");
  for (size_t i = 0; i < std::size(kNames); ++i)
    if (vm.count(kNames[i])) {
      // A deployment may be a serve line pasted with its prompt or comments, which a shell would drop.
      const std::string what = "--" + std::string(kNames[i]);
      const PastedShellText spec = WithoutShellCommentsAndPrompt(variant_args[i], what);
      variants.push_back(ParseVariant(std::string(kNames[i]) + ": " + variant_args[i], base,
                                      SplitOptionString(spec.text, what), data_dir));
      variants.back().warnings.insert(variants.back().warnings.begin(), spec.notes.begin(), spec.notes.end());
    }
  if (variants.size() < 2) throw Error("give at least two deployments: --a \"OPTIONS\" --b \"OPTIONS\"");
  RefuseDifferentRequests(variants);

  std::vector<ChartRecorder> charts(variants.size());
  std::vector<VariantRun> runs;
  // Under mpirun/srun the deployments run across the ranks (sim/sweep/sweep_ranks.h); with --report the
  // charts stay on rank 0, which then runs every deployment itself.
  const std::unique_ptr<RankFarm> farm = JoinMpiJob(jobs);
  if (farm && report_path.empty()) {
    const std::optional<RankedGrid> ranked = EvaluatePointsOnRanks(*farm, variants, SweepCriteria{}, false);
    if (!ranked) return kExitOk;  // a worker rank: rank 0 writes
    if (ranked->partial) {
      err << "kvsim compare: " << ranked->reason << "; deployments not finished: " << Join(ranked->lost, "; ") << "\n";
      return 128 + (ranked->signal ? ranked->signal : SIGTERM);
    }
    for (const PointOutcome& p : ranked->finished) {
      VariantRun& run = runs.emplace_back();
      run.error = p.error;
      if (p.summary) run.result.emplace().summary = *p.summary;
    }
  } else {
    if (farm && !farm->leader()) return kExitOk;
    // Interrupted: the deployments that finished are written, the others listed with the reason.
    runs = RunVariants(variants, jobs, [&](size_t i) {
      return report_path.empty() ? std::vector<ReplayObserver*>{} : std::vector<ReplayObserver*>{&charts[i]};
    }, &StopFlag());
  }
  std::vector<ComparedDeployment> compared;
  std::vector<std::string> not_fitting;  // reported, not fatal
  std::vector<UnfinishedPoint> unfinished;
  for (size_t i = 0; i < variants.size(); ++i) {
    if (runs[i].interrupted) {
      unfinished.push_back({variants[i].label, StopReason()});
    } else if (!runs[i].result) {
      if (runs[i].error.rfind("does not fit", 0) != 0) throw Error("deployment " + variants[i].label + ": " + runs[i].error);
      not_fitting.push_back("deployment " + variants[i].label + ": " + NeedsMore(runs[i].error));
    } else {
      compared.push_back({variants[i].label, &runs[i].result->summary, &charts[i]});
    }
  }
  if (!compared.empty())
    out << "kvsim compare: " << compared[0].summary->config.trace << "\n" << RenderCompareTable(compared);
  for (const ComparedDeployment& c : compared)
    for (const std::string& w : c.summary->warnings) out << "deployment " << c.label << ": warning: " << w << "\n";
  for (const auto& line : not_fitting) out << line << "\n";
  if (compared.empty() && unfinished.empty()) {
    // Named outputs are written or the command fails: an exit 0 would leave an old file standing as this run's.
    if (!json_path.empty() || !report_path.empty())
      throw Error(std::string(json_path.empty() ? "--report " + report_path : "--json " + json_path) +
                  ": no deployment fits, so there is nothing to write (" + Join(not_fitting, "; ") + ")");
    return kExitOk;
  }
  if (!json_path.empty()) WriteOutput(json_path, CompareToJson(compared, unfinished).dump(2) + "\n", out);
  if (!report_path.empty() && !compared.empty()) WriteOutput(report_path, RenderCompareHtml(compared), out);
  if (!unfinished.empty())
    err << "kvsim compare: " << StopReason() << "; " << compared.size() << " of " << variants.size()
        << " deployments finished and were written (marked partial)\n";
  return kExitOk;
}

}  // namespace kvsim
