// The replay's flags (trace, workload shaping, scheduler, allocator, step time, outputs), shared
// by `kvsim replay`, `kvsim compare` and `kvsim sweep` and declared once here.
#ifndef KVSIM_SIM_CLI_REPLAY_FLAGS_H_
#define KVSIM_SIM_CLI_REPLAY_FLAGS_H_

#include <optional>
#include <string>

#include <boost/program_options.hpp>

#include "cli/offload_flags.h"
#include "cli/output.h"
#include "cli/step_model_flags.h"
#include "sim/run/replay_options.h"

namespace kvsim {

// What the flags fill: the typed options plus the values that need more than one flag to resolve.
struct ReplayFlags {
  ReplayOptions options;
  std::string trace_format = "auto";
  std::string delimiter = "auto";
  StepModelFlags step_model;
  OffloadFlags offload;
  std::string gpu_hourly_cost;  // "USD" or "GPU=USD,..."
  std::string shared_prefix, conversations;  // "K:LEN", "T:THINK_S"
  // Given on the command line (empty: the synthetic workload's defaults): a trace has its own lengths.
  std::string prompt_len, output_len;
};

// The output files among them (--timeseries, --requests, --report) join `outputs`, declared on `desc`.
void AddReplayOptions(boost::program_options::options_description& desc, ReplayFlags& flags, OutputFlags& outputs);

// The typed options, validated (kvsim::Error naming the option), with the default trace filled in.
ReplayOptions ResolveReplayFlags(ReplayFlags flags, const std::string& data_dir);

}  // namespace kvsim

#endif  // KVSIM_SIM_CLI_REPLAY_FLAGS_H_
