// kvsim replay: a request trace (or a synthetic workload) through a KV allocator under a
// vLLM-style scheduler; memory, concurrency, preemptions, waste and latency.
#include <boost/program_options.hpp>
#include <unistd.h>

#include "kvcache/error.h"
#include "kvcache/model_catalog.h"
#include "reports/atomic_file.h"
#include "reports/html_report.h"
#include "reports/replay_summary.h"
#include "sim/cli/commands.h"
#include "sim/cli/deployment_options.h"
#include "sim/cli/progress_bar.h"
#include "sim/replay_runner.h"

namespace kvsim {
namespace po = boost::program_options;

int RunReplayCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  DeploymentOptions dep;
  ReplayOptions r;
  po::options_description desc(
      "kvsim replay: replay a request trace through a vLLM-style scheduler and KV-cache allocator\n\n"
      "Usage: kvsim replay [--trace FILE] [model/GPU/server flags as kvsim capacity] [options]\n"
      "With no --trace: the bundled Azure LLM inference conversation trace (2023, 19,366 requests).\n"
      "Ctrl-C stops the replay and writes the outputs so far, marked \"partial\".\n\nOptions",
      110, 60);
  desc.add_options()("help,h", "show this help")
      ("json", po::value(&r.json_path), "write the summary JSON to FILE (- for standard output)");
  AddReplayOptions(desc, r);
  AddDeploymentOptions(desc, dep);
  po::variables_map vm;
  po::store(po::command_line_parser(ExpandShortParallelFlags(args)).options(desc).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    out << desc << "\nExample:\n  kvsim replay --gpu a100-40gb --rate-scale 4 --json out.json --report out.html\n";
    return 0;
  }
  if (vm.count("no-enable-prefix-caching")) dep.enable_prefix_caching = false;
  const std::string data_dir = DataDirectory();
  ValidateReplayOptions(r, data_dir);
  const Deployment d = ResolveDeployment(dep, data_dir);

  ProgressBar bar(err, !r.quiet && ::isatty(STDERR_FILENO));
  const ScopedInterruptFlag interrupted;
  ReplayResult result = RunReplay(d, r, nullptr, [&](double p, int64_t now_ns) { bar.Update(p, now_ns); },
                                  &interrupted.flag());
  bar.Finish();
  const nlohmann::json& summary = result.summary;
  if (!r.report_path.empty()) WriteFileAtomically(r.report_path, RenderHtmlReport(summary, *result.recorder));
  if (r.json_path == "-") {
    out << summary.dump(2) << "\n";
  } else {
    if (!r.json_path.empty()) WriteFileAtomically(r.json_path, summary.dump(2) + "\n");
    if (!r.quiet) out << RenderReplayText(summary);
  }
  for (const auto& w : summary["warnings"]) err << "kvsim replay: warning: " << w.get<std::string>() << "\n";
  if (summary.contains("partial")) err << "kvsim replay: interrupted; outputs cover the replay so far (marked partial)\n";
  return 0;
}

}  // namespace kvsim
