// LoRA adapters for a replay with --enable-lora (sim/engine/lora_adapters.h): what one adapter
// weighs on a GPU and on disk, the load times over the host link and the disk, the punica kernels'
// timer, and the summary section.
//
// Adapters are taken at --max-lora-rank and to wrap every projection of the decoder layers that
// vLLM wraps (qkv, o, gate_up, down; the slots' shapes of kvcache/budget/lora_memory.h), without
// embedding or lm_head weights of their own; that is what a slot's load copies. A host-cache miss
// first reads the whole checkpoint (every TP shard) from disk at --adapter-disk-read GB/s.
#ifndef KVSIM_SIM_RUN_LORA_SETUP_H_
#define KVSIM_SIM_RUN_LORA_SETUP_H_

#include <optional>

#include "kvcache/budget/deployment.h"
#include "sim/engine/lora_adapters.h"
#include "sim/run/replay_options.h"
#include "sim/stats/lora_summary.h"
#include "sim/timing/lora_host.h"
#include "sim/timing/lora_kernels.h"

namespace kvsim {

struct LoraRun {
  LoraReplayOptions options;             // max_loras 0 when LoRA is off
  std::optional<LoraKernelTimer> kernels; // none under a fixed step time
  std::optional<LoraHostTimer> host;      // likewise
  LoraSummary summary;                   // the settings and per-adapter figures; counts added at the end
};

// Throws kvsim::Error for --adapters or --adapter-column without --enable-lora, or a GPU without a
// host-link figure. The result's options.kernels and options.host point into the result: keep it
// where it is. `eager_launch_s`: the step model's StepModel::EagerLaunchSeconds.
void MakeLoraRun(const Deployment& d, const ReplayOptions& r, const CapacityResult& cap, const StepModelOptions& timer,
                 double eager_launch_s, LoraRun& out);

// The summary section from the run's figures and the replicas' counters summed.
LoraSummary SummarizeLora(const LoraRun& run, const LoraCounters& total, int64_t requests);

}  // namespace kvsim

#endif  // KVSIM_SIM_RUN_LORA_SETUP_H_
