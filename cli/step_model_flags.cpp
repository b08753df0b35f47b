#include "cli/step_model_flags.h"

#include <cmath>

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "sim/timing/calibration.h"

namespace kvsim {
namespace po = boost::program_options;

void AddStepModelOptions(po::options_description& desc, StepModelFlags& f) {
  const KernelEfficiency e;
  desc.add_options()
      ("calibration", po::value(&f.calibration), "kernel efficiencies fitted by `kvsim calibrate` (a JSON file)")
      ("compute-efficiency", po::value(&f.compute_efficiency),
       Format("step model: share of the dense tensor peak a large GEMM sustains, (0, 1] (default %g)", e.gemm_compute).c_str())
      ("memory-efficiency", po::value(&f.memory_efficiency),
       Format("step model: share of HBM bandwidth a weight-streaming GEMM sustains, (0, 1] (default %g)", e.gemm_memory).c_str())
      ("step-overhead-ms", po::value(&f.step_overhead_ms),
       Format("step model: the server's CPU time per step, ms, [0, 1000] (default %g)", e.step_overhead_ms).c_str());
}

void ApplyStepModelFlags(const StepModelFlags& f, StepModelOptions& options) {
  if (!f.calibration.empty()) {
    const Calibration c = LoadCalibration(f.calibration);
    options.efficiency = c.efficiency;
    options.calibration = f.calibration;
    options.calibration_gpu = c.gpu_id;
  }
  auto share = [](const boost::optional<double>& v, const char* flag, double& into) {
    if (!v) return;
    if (!std::isfinite(*v) || *v <= 0 || *v > 1) throw Error(Format("--%s: %g is outside (0, 1]", flag, *v));
    into = *v;
  };
  share(f.compute_efficiency, "compute-efficiency", options.efficiency.gemm_compute);
  share(f.memory_efficiency, "memory-efficiency", options.efficiency.gemm_memory);
  if (f.step_overhead_ms) {
    const double ms = *f.step_overhead_ms;
    if (!std::isfinite(ms) || ms < 0 || ms > 1000) throw Error(Format("--step-overhead-ms: %g is outside [0, 1000]", ms));
    options.efficiency.step_overhead_ms = ms;
  }
}

}  // namespace kvsim
