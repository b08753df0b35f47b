// kvsim capacity: the static memory answer for one deployment.
#include <boost/program_options.hpp>

#include "kvcache/base/error.h"
#include "kvcache/budget/capacity_planner.h"
#include "kvcache/model/model_catalog.h"
#include "reports/capacity_report.h"
#include "sim/cli/commands.h"
#include "sim/cli/numeric_options.h"
#include "sim/cli/deployment_flags.h"
#include "sim/cli/output.h"
#include "sim/cli/vllm_command_line.h"

namespace kvsim {
namespace po = boost::program_options;

int RunCapacityCommand(const std::vector<std::string>& given, std::ostream& out, std::ostream& err) {
  const std::vector<std::string> args = ExpandServeCommand(given, err, "capacity");
  DeploymentOptions opts;
  std::string json_path;
  po::options_description desc(
      "kvsim capacity: how much GPU memory a vLLM-style deployment needs and how many requests it holds\n\n"
      "Usage: kvsim capacity [--model ID|PATH] [--gpu GPU] [vLLM server flags] [--json [FILE]]\n"
      "       kvsim capacity [--gpu GPU] -- vllm serve MODEL [every vllm serve flag]   (or --vllm-cmd \"vllm serve ...\")\n\n"
      "Options",
      /*line_length=*/110, /*min_description_length=*/60);
  desc.add_options()("help,h", "show this help")
      ("json", po::value(&json_path)->implicit_value("-"), "print JSON instead of the table, or write it to FILE");
  AddDeploymentOptions(desc, opts);
  po::variables_map vm;
  const po::parsed_options parsed = po::command_line_parser(ExpandShortParallelFlags(args)).options(desc).run();
  RejectPositionalArguments(parsed);
  po::store(parsed, vm);
  po::notify(vm);
  ValidateNumericOptions(vm);
  if (vm.count("help")) {
    out << desc << "\nExample:\n  kvsim capacity --model meta-llama/Llama-3.1-8B-Instruct --gpu h100 --max-model-len 32768\n";
    return kExitOk;
  }
  ApplyDeploymentSwitches(vm, opts);
  CheckCommandOutputs(args, {{"--json", json_path}});
  const Deployment d = ResolveDeployment(opts, DataDirectory());
  const CapacityResult result = PlanCapacity(d.model, d.gpu, d.config);
  if (!result.does_not_fit.empty()) throw Error(result.does_not_fit);
  WriteAnswer(json_path, RenderCapacityText(result), [&] { return CapacityToJson(result); }, out);
  return kExitOk;
}

}  // namespace kvsim
