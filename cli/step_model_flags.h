// The step model's flags, declared once for every command that times steps (step, replay, compare,
// sweep): a calibration file and explicit overrides of its efficiencies.
#ifndef KVSIM_SIM_CLI_STEP_MODEL_FLAGS_H_
#define KVSIM_SIM_CLI_STEP_MODEL_FLAGS_H_

#include <string>

#include <boost/optional.hpp>
#include <boost/program_options.hpp>

#include "sim/timing/step_model.h"

namespace kvsim {

struct StepModelFlags {
  std::string calibration;  // --calibration FILE
  // Boost parses boost::optional; unset: the calibration's (or the default) value.
  boost::optional<double> compute_efficiency, memory_efficiency, step_overhead_ms;
};

void AddStepModelOptions(boost::program_options::options_description& desc, StepModelFlags& flags);

// Loads the calibration (if any) into `options`, then applies the explicit overrides over it.
// Throws kvsim::Error naming the file or the flag and its accepted range.
void ApplyStepModelFlags(const StepModelFlags& flags, StepModelOptions& options);

}  // namespace kvsim

#endif  // KVSIM_SIM_CLI_STEP_MODEL_FLAGS_H_
