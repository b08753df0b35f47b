// kvsim capacity: the static memory answer for one deployment.
#include <boost/program_options.hpp>

#include "kvcache/base/error.h"
#include "kvcache/budget/capacity_planner.h"
#include "kvcache/model/model_catalog.h"
#include "cli/enum_option.h"
#include "workloads/request_lengths.h"
#include "workloads/synthetic.h"
#include "workloads/trace_readers.h"
#include "reports/capacity_report.h"
#include "cli/commands.h"
#include "cli/numeric_options.h"
#include "cli/option_rules.h"
#include "cli/deployment_flags.h"
#include "cli/offload_flags.h"
#include "kvcache/offload/offload_capacity.h"
#include "cli/output.h"
#include "cli/vllm_command_line.h"

namespace kvsim {
namespace po = boost::program_options;
namespace {

// --trace: the concurrency row at the trace's mean request length (prompts the server would reject
// left out), kept in length order among the 1k/4k/16k rows.
void AddTraceMeanRow(const std::string& path, const std::string& format, CapacityResult& result) {
  TraceReaderOptions reader;
  reader.path = path;
  reader.format = format == "auto" ? std::nullopt : std::optional<TraceFormat>(ParseEnum<TraceFormat>(format, "--trace-format"));
  // A lengths file has no arrival times; they do not matter for lengths.
  std::unique_ptr<RequestSource> source = OpenTraceReader(reader, ArrivalGenerator(ArrivalKind::kPoisson, 1.0, 1.0, 0));
  const int64_t max_len = result.settings.max_model_len;
  const RequestLengths lengths = MeasureRequestLengths(*source, max_len);
  if (lengths.requests == 0)
    throw Error("--trace " + path + ": no request has a prompt shorter than max-model-len " + std::to_string(max_len));
  const int64_t mean = std::max<int64_t>(1, std::llround(lengths.mean_final_tokens));
  result.trace_mean_tokens = mean;
  if (mean >= max_len) return;  // the max-model-len row is it
  auto& rows = result.concurrency_at;
  const auto at = std::lower_bound(rows.begin(), rows.end(), mean, [](const auto& row, int64_t t) { return row.first < t; });
  if (at == rows.end() || at->first != mean) rows.insert(at, {mean, ConcurrencyAt(result, mean)});
}

}  // namespace

int RunCapacityCommand(const std::vector<std::string>& given, std::ostream& out, std::ostream& err) {
  std::vector<std::string> pasted_line_notes;  // about the pasted server line: in the answer's text and JSON
  const std::vector<std::string> args = ExpandServeCommand(given, err, "capacity", &pasted_line_notes);
  const NotesIfRefused notes_if_refused(pasted_line_notes, err, "capacity");
  DeploymentOptions opts;
  std::string json_path, trace_path, trace_format = "auto";
  po::options_description desc(
      "kvsim capacity: how much GPU memory a vLLM-style deployment needs and how many requests it holds\n\n"
      "Usage: kvsim capacity [--model ID|PATH] [--gpu GPU] [vLLM server flags] [--json [FILE]]\n"
      "       kvsim capacity [--gpu GPU] -- vllm serve MODEL [every vllm serve flag]   (or --vllm-cmd \"vllm serve ...\")\n\n"
      "Options",
      /*line_length=*/110, /*min_description_length=*/60);
  desc.add_options()("help,h", "show this help");
  OutputFlags outputs(desc);
  outputs.Json(json_path, "print JSON instead of the table, or write it to FILE", OutputFlags::JsonAlone::kPrintsInsteadOfTable);
  desc.add_options()
      ("trace", po::value(&trace_path),
       "a request trace (any format replay reads): also the max concurrency at its mean request length "
       "(prompt + output, capped at max-model-len; longer prompts left out)")
      ("trace-format", po::value(&trace_format)->default_value(trace_format), ("auto | " + Choices<TraceFormat>()).c_str());
  AddDeploymentOptions(desc, opts);
  OffloadFlags offload;
  AddOffloadOptions(desc, offload);
  po::variables_map vm;
  const po::parsed_options parsed = po::command_line_parser(ExpandShortParallelFlags(args)).options(desc).run();
  RejectPositionalArguments(parsed);
  po::store(parsed, vm);
  po::notify(vm);
  ValidateNumericOptions(vm);
  CheckOptionRules(vm);
  if (vm.count("help")) {
    out << desc << "\nExample:\n  kvsim capacity --model meta-llama/Llama-3.1-8B-Instruct --gpu h100 --max-model-len 32768\n";
    return kExitOk;
  }
  ApplyDeploymentSwitches(vm, opts);
  outputs.Check(args);
  const Deployment d = ResolveDeployment(opts, DataDirectory());
  CapacityResult result = PlanCapacity(d.model, d.gpu, d.config);
  result.notes.insert(result.notes.begin(), pasted_line_notes.begin(), pasted_line_notes.end());
  if (!result.does_not_fit.empty()) throw Error(result.does_not_fit);
  AddOffloadTiers(ResolveOffloadFlags(offload), result);
  // The tiers' links time their loads and stores: a replay's answer, not a memory one.
  if (!offload.host_link.empty() || !offload.disk.empty())
    result.notes.push_back("--kv-host-link/--kv-disk: link figures time the tiers' transfers in `kvsim replay`; "
                           "they do not change memory");
  if (!trace_path.empty()) AddTraceMeanRow(trace_path, trace_format, result);
  WriteAnswer(json_path, RenderCapacityText(result), [&] { return CapacityToJson(result); }, out);
  return kExitOk;
}

}  // namespace kvsim
