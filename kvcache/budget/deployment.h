// A deployment: a model, a GPU and the server settings under vLLM's flag names. Settings arrive as
// text (command-line flags, a vLLM log row) and are resolved here into typed values, with every
// model config and the GPU table read through an optional cache shared by many resolutions.
#ifndef KVSIM_KVCACHE_BUDGET_DEPLOYMENT_H_
#define KVSIM_KVCACHE_BUDGET_DEPLOYMENT_H_

#include <map>
#include <optional>
#include <string>

#include "kvcache/budget/deployment_settings.h"
#include "kvcache/model/gpu_catalog.h"
#include "kvcache/model/model_spec.h"

namespace kvsim {

// What resolving reads from disk (model configs, the GPU table), kept for reuse when many
// deployments are resolved in one run (sweeps, comparisons, validation). Not thread-safe.
struct ResolveCache {
  std::map<std::string, ModelSpec> models;
  std::optional<GpuCatalog> gpus;
};

// Throws kvsim::Error naming the option for any value that does not parse. With `cache`, model
// specs and the GPU table are read once.
Deployment ResolveDeployment(const DeploymentOptions& options, const std::string& data_dir,
                             ResolveCache* cache = nullptr);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BUDGET_DEPLOYMENT_H_
