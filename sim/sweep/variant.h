// One deployment to replay in a comparison or a sweep: a label, the resolved deployment and the
// replay options (the CLI builds them from option sets, cli/variant_parser.h).
#ifndef KVSIM_SIM_VARIANT_H_
#define KVSIM_SIM_VARIANT_H_

#include <optional>
#include <string>
#include <vector>

#include "kvcache/budget/deployment.h"
#include "sim/disagg/disagg_runner.h"
#include "sim/run/replay_options.h"

namespace kvsim {

struct Variant {
  std::string label;
  Deployment deployment;
  ReplayOptions replay;
  // Set: prefill and decode pools (--prefill-replicas/--decode-replicas), `deployment` being the prefill one.
  std::optional<DisaggDeployment> disagg;
  // What its pasted server line says that kvsim does not model (the command layer's notes): they
  // lead its summary's warnings, so the text and JSON answer carry them.
  std::vector<std::string> warnings;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_VARIANT_H_
