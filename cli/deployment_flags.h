// The model / GPU / server flags every kvsim command shares, declared once. Names follow vLLM's
// flags so users can paste their server command line (--model, --dtype, --quantization,
// --kv-cache-dtype, --tensor-parallel-size/-tp, --pipeline-parallel-size/-pp,
// --gpu-memory-utilization, --max-model-len, --max-num-seqs, --max-num-batched-tokens,
// --block-size, --kv-cache-memory, --enable-prefix-caching), plus kvsim's own --gpu,
// --gpu-memory-gib, --interconnect, --vllm-version and --engine.
#ifndef KVSIM_SIM_CLI_DEPLOYMENT_FLAGS_H_
#define KVSIM_SIM_CLI_DEPLOYMENT_FLAGS_H_

#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "kvcache/budget/deployment.h"

namespace kvsim {

// --model, --gpu, --gpu-memory-gib, --gpu-file: the part of the deployment flags that commands other
// than serving ones (kvsim train) share.
void AddModelAndGpuOptions(boost::program_options::options_description& desc, DeploymentOptions& options);

void AddDeploymentOptions(boost::program_options::options_description& desc, DeploymentOptions& options);

// Flags that switch a default off (--no-enable-prefix-caching). Call after notify().
void ApplyDeploymentSwitches(const boost::program_options::variables_map& vm, DeploymentOptions& options);

// vLLM's -tp / -pp spellings are not single-letter options; rewrite them to the long forms.
std::vector<std::string> ExpandShortParallelFlags(const std::vector<std::string>& args);

}  // namespace kvsim

#endif  // KVSIM_SIM_CLI_DEPLOYMENT_FLAGS_H_
