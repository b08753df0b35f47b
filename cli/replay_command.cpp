// kvsim replay: a request trace (or a synthetic workload) through a KV allocator under a
// vLLM-style scheduler; memory, concurrency, preemptions, waste and latency.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <memory>

#include "kvcache/base/text_format.h"
#include "kvcache/model/model_catalog.h"
#include "reports/chart_recorder.h"
#include "reports/csv_outputs.h"
#include "reports/html_report.h"
#include "reports/bench_json.h"
#include "reports/replay_report.h"
#include "cli/commands.h"
#include "cli/numeric_options.h"
#include "cli/option_rules.h"
#include "cli/deployment_flags.h"
#include "cli/disagg_flags.h"
#include "kvcache/base/interrupt.h"
#include "cli/output.h"
#include "cli/progress_bar.h"
#include "cli/replay_flags.h"
#include "cli/vllm_command_line.h"
#include "sim/run/replay_runner.h"

namespace kvsim {
namespace po = boost::program_options;

int RunReplayCommand(const std::vector<std::string>& given, std::ostream& out, std::ostream& err,
                     const CommandHooks& command_hooks) {
  std::vector<std::string> pasted_line_notes;  // about the pasted server line: warnings in the text and JSON
  const std::vector<std::string> args = ExpandServeCommand(given, err, "replay", &pasted_line_notes);
  const NotesIfRefused notes_if_refused(pasted_line_notes, err, "replay");
  DeploymentOptions dep;
  ReplayFlags flags;
  DisaggFlags disagg;
  std::string bench_json_path;
  po::options_description desc(
      "kvsim replay: replay a request trace through a vLLM-style scheduler and KV-cache allocator\n\n"
      "Usage: kvsim replay [--trace FILE] [model/GPU/server flags as kvsim capacity] [options] [-- vllm serve MODEL ...]\n"
      "With no --trace: the bundled Azure LLM inference conversation trace (2023, 19,366 requests).\n"
      "Ctrl-C (SIGINT, SIGTERM, SIGHUP) stops the replay and writes the outputs so far, marked \"partial\".\n\nOptions",
      110, 60);
  desc.add_options()("help,h", "show this help");
  OutputFlags outputs(desc);
  outputs.Json(flags.options.json_path, "write the summary JSON to FILE (- for standard output)")
      .File("bench-json", bench_json_path,
            "write the summary to FILE in `vllm bench serve`'s result schema (mean_ttft_ms, median_ttft_ms, std_ttft_ms, "
            "p99_ttft_ms, ... in milliseconds; ttft as the client measures it; - for standard output)",
            /*dash_is_stdout=*/true);
  AddReplayOptions(desc, flags, outputs);
  AddDeploymentOptions(desc, dep);
  AddDisaggOptions(desc, disagg);
  po::variables_map vm;
  const po::parsed_options parsed = po::command_line_parser(ExpandShortParallelFlags(args)).options(desc).run();
  RejectPositionalArguments(parsed);
  po::store(parsed, vm);
  po::notify(vm);
  ValidateNumericOptions(vm);
  CheckOptionRules(vm);
  if (vm.count("help")) {
    out << desc << "\nExample:\n  kvsim replay --gpu a100-40gb --rate-scale 4 --json out.json --report out.html\n";
    return kExitOk;
  }
  ApplyDeploymentSwitches(vm, dep);
  const std::string data_dir = DataDirectory();
  const ReplayOptions r = ResolveReplayFlags(flags, data_dir);  // a copy: `outputs` reads the paths in `flags`
  const Deployment d = ResolveDeployment(dep, data_dir);
  const std::optional<DisaggDeployment> pd = ResolveDisaggFlags(disagg, dep, r.replicas, data_dir);
  outputs.Check(args, {r.trace});

  // Observers beside the statistics: the CSV files stream as the replay runs, the charts feed the report.
  std::unique_ptr<TimeSeriesCsv> series;
  std::unique_ptr<RequestsCsv> requests;
  ChartRecorder charts;
  ReplayHooks hooks;
  if (!r.timeseries_path.empty()) hooks.observers.push_back((series = std::make_unique<TimeSeriesCsv>(r.timeseries_path, r.sample_interval_s)).get());
  if (!r.requests_path.empty()) hooks.observers.push_back((requests = std::make_unique<RequestsCsv>(r.requests_path)).get());
  if (!r.report_path.empty()) hooks.observers.push_back(&charts);
  ProgressBar bar(err, !r.quiet && ::isatty(STDERR_FILENO));
  if (command_hooks.progress) hooks.progress = command_hooks.progress;
  else hooks.progress = [&](double p, int64_t now_ns) { bar.Update(p, now_ns); };
  hooks.stop = &StopFlag();
  ReplayResult result = pd ? RunDisaggregatedReplay(*pd, r, hooks) : RunReplay(d, r, hooks);
  bar.Finish();
  std::vector<std::string>& warnings = result.summary.warnings;
  warnings.insert(warnings.begin(), pasted_line_notes.begin(), pasted_line_notes.end());

  const ReplaySummary& summary = result.summary;
  // An interrupted replay's CSVs keep their rows and end with "# partial: <reason>".
  const std::string partial =
      summary.partial ? Format("%s at simulated %.3f s", StopReason().c_str(), summary.throughput.simulated_s) : "";
  if (series) series->Commit(partial);
  if (requests) requests->Commit(partial);
  if (!r.report_path.empty()) WriteFileAtomically(r.report_path, RenderHtmlReport(summary, charts));
  if (!bench_json_path.empty()) WriteOutput(bench_json_path, ReplaySummaryToBenchJson(summary).dump(2) + "\n", out);
  if (!r.json_path.empty()) WriteOutput(r.json_path, ReplaySummaryToJson(summary).dump(2) + "\n", out);
  if (!r.quiet && r.json_path != "-" && bench_json_path != "-") out << RenderReplayText(summary);
  for (const auto& w : summary.warnings) err << "kvsim replay: warning: " << w << "\n";
  if (summary.partial) err << "kvsim replay: " << partial << "; outputs cover the replay so far (marked partial)\n";
  return kExitOk;
}

}  // namespace kvsim
