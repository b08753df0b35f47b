// kvsim compare: the same trace through two or more deployments, side by side.
#include <boost/program_options.hpp>
#include <memory>

#include "kvcache/base/error.h"
#include "kvcache/model/model_catalog.h"
#include "reports/compare_report.h"
#include "sim/cli/commands.h"
#include "sim/cli/numeric_options.h"
#include "sim/cli/output.h"
#include "sim/cli/shared_flags.h"
#include "sim/cli/variant_parser.h"
#include "sim/sweep.h"

namespace kvsim {
namespace po = boost::program_options;

int RunCompareCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& /*err*/) {
  constexpr const char* kNames[] = {"a", "b", "c", "d", "e", "f", "g", "h"};
  std::vector<std::string> variant_args(std::size(kNames));
  std::string json_path, report_path;
  int jobs = DefaultJobs();
  po::options_description own(
      "kvsim compare: replay the same trace through two or more deployments and print them side by side.\n"
      "Every other option is a kvsim replay option shared by all deployments; --a, --b, ... add or\n"
      "override options for one deployment.\n\n"
      "Usage: kvsim compare --a \"OPTIONS\" --b \"OPTIONS\" [--c ...] [shared replay options]\n\nCompare options",
      110, 60);
  own.add_options()("help,h", "show this help");
  for (size_t i = 0; i < std::size(kNames); ++i)
    own.add_options()(kNames[i], po::value(&variant_args[i]),
                      (std::string("options of deployment ") + kNames[i] + (i >= 2 ? " (optional)" : "")).c_str());
  AddJobsOption(own, jobs);
  own.add_options()("json", po::value(&json_path), "write every deployment's summary to FILE.json")
      ("report", po::value(&report_path), "write one HTML page with the charts overlaid");
  po::variables_map vm;
  po::parsed_options parsed = po::command_line_parser(args).options(own).allow_unregistered().run();
  po::store(parsed, vm);
  po::notify(vm);
  ValidateNumericOptions(vm);
  if (vm.count("help")) {
    out << own << "\nExample:\n  kvsim compare --gpu l4 --a \"--quantization none\" --b \"--quantization awq\"\n";
    return kExitOk;
  }
  ValidateJobs(jobs);
  const std::vector<std::string> base = po::collect_unrecognized(parsed.options, po::include_positional);
  const std::string data_dir = DataDirectory();
  std::vector<Variant> variants;
  for (size_t i = 0; i < std::size(kNames); ++i)
    if (vm.count(kNames[i]))
      variants.push_back(ParseVariant(std::string(kNames[i]) + ": " + variant_args[i], base,
                                      SplitOptionString(variant_args[i]), data_dir));
  if (variants.size() < 2) throw Error("give at least two deployments: --a \"OPTIONS\" --b \"OPTIONS\"");

  std::vector<ChartRecorder> charts(variants.size());
  const std::vector<VariantRun> runs = RunVariants(variants, jobs, [&](size_t i) {
    return report_path.empty() ? std::vector<ReplayObserver*>{} : std::vector<ReplayObserver*>{&charts[i]};
  });
  std::vector<ComparedDeployment> compared;
  for (size_t i = 0; i < variants.size(); ++i) {
    if (!runs[i].result) throw Error("deployment " + variants[i].label + ": " + runs[i].error);
    compared.push_back({variants[i].label, &runs[i].result->summary, &charts[i]});
  }
  out << "kvsim compare: " << compared[0].summary->config.trace << "\n" << RenderCompareTable(compared);
  if (!json_path.empty()) WriteOutput(json_path, CompareToJson(compared).dump(2) + "\n", out);
  if (!report_path.empty()) WriteOutput(report_path, RenderCompareHtml(compared), out);
  return kExitOk;
}

}  // namespace kvsim
