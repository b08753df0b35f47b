// kvsim calibrate: fits the step model's efficiencies to a user's measurements of one GPU and
// writes a calibration file for --calibration.
#include <boost/program_options.hpp>

#include "kvcache/base/error.h"
#include "kvcache/model/model_catalog.h"
#include "reports/calibration_report.h"
#include "cli/commands.h"
#include "cli/numeric_options.h"
#include "cli/option_rules.h"
#include "cli/deployment_flags.h"
#include "cli/output.h"
#include "sim/timing/profile_fit.h"
#include "sim/sweep/serving_benchmark.h"

namespace kvsim {
namespace po = boost::program_options;

int RunCalibrateCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& /*err*/) {
  DeploymentOptions opts;
  std::vector<std::string> profiles, benches;
  std::string output_path;
  po::options_description desc(
      "kvsim calibrate: fit the step model to measurements of one GPU\n\n"
      "Usage: kvsim calibrate --gpu G --profile MLP.csv [--profile ...] [--bench RESULT.json --model M [server flags]]\n"
      "                       -o calibration.json\n\n"
      "  --profile  per-operator kernel timings in Vidur's profile format (data/profiling/compute/<gpu>/<model>/mlp.csv):\n"
      "             fits the GEMM efficiencies and floor, and the elementwise bandwidth and kernel floor\n"
      "  --bench    a `vllm bench serve --save-result` JSON of the deployment the flags describe: fits the\n"
      "             server's CPU time per step (to the median TPOT) and the client-side TTFT overhead\n\n"
      "Options",
      /*line_length=*/110, /*min_description_length=*/60);
  desc.add_options()("help,h", "show this help")
      ("profile", po::value(&profiles)->composing(), "Vidur mlp.csv profile (repeatable)")
      ("bench", po::value(&benches)->composing(), "vllm bench serve result JSON (repeatable; fitted in turn)");
  OutputFlags outputs(desc);
  outputs.File("output,o", output_path, "write the calibration JSON here (- for standard output)", /*dash_is_stdout=*/true);
  AddDeploymentOptions(desc, opts);
  po::variables_map vm;
  po::store(po::command_line_parser(ExpandShortParallelFlags(args)).options(desc).run(), vm);
  po::notify(vm);
  ValidateNumericOptions(vm);
  CheckOptionRules(vm);
  if (vm.count("help")) {
    out << desc << "\nExample:\n"
        << "  kvsim calibrate --gpu a100-80gb --profile meta-llama__Llama-2-7b-hf.mlp.csv -o a100.json\n"
        << "  kvsim step --gpu a100-80gb --calibration a100.json --decode-seqs 32 --decode-context 1000\n";
    return kExitOk;
  }
  ApplyDeploymentSwitches(vm, opts);
  if (profiles.empty() && benches.empty()) throw Error("nothing to fit: give --profile FILE.csv and/or --bench FILE.json");
  if (output_path.empty()) throw Error("-o/--output: where to write the calibration JSON");
  outputs.Check(args);
  const std::string data_dir = DataDirectory();
  const Deployment d = ResolveDeployment(opts, data_dir);

  std::vector<KernelProfile> loaded;
  for (const std::string& p : profiles) loaded.push_back({p, ReadKernelProfile(p)});
  Calibration c;
  c.gpu_id = d.gpu.id;
  std::vector<CalibrationFit> before;
  if (!loaded.empty()) {
    before = ProfileFitQuality(loaded, d.gpu, KernelEfficiency{});
    c = FitKernelProfiles(loaded, d.gpu, KernelEfficiency{});
  }
  for (const std::string& path : benches) {
    FitServingBenchmark(d, LoadServingBenchmark(path), data_dir, c.efficiency, c.fits);
    c.sources.push_back(path);
  }
  WriteOutput(output_path, CalibrationToJson(c).dump(2) + "\n", out);
  if (output_path != "-") out << RenderCalibrationText(c, before) << "Calibration written to " << output_path << "\n";
  return kExitOk;
}

}  // namespace kvsim
