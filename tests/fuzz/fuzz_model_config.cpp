// libFuzzer target: a config.json through the loader, then the capacity plan (weights, KV layout,
// blocks) that every command derives from it. Only kvsim::Error may escape the loader; anything
// else (a crash, a sanitizer report, another exception) is a finding.
#include <cstdint>
#include <string>

#include "kvcache/base/error.h"
#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/deployment.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static kvsim::ResolveCache cache;  // the GPU catalogue, read once
  const std::string path = kvsim::fuzz::WriteScratchFile(data, size, "-config.json");
  kvsim::DeploymentOptions options;
  options.model = path;
  options.max_model_len = "4096";  // keeps the plan's own loops short; the config's fields are what is fuzzed
  cache.models.clear();
  try {
    const kvsim::Deployment d = kvsim::ResolveDeployment(options, KVSIM_FUZZ_DATA_DIR, &cache);
    (void)kvsim::PlanCapacity(d.model, d.gpu, d.config);
  } catch (const kvsim::Error&) {
  }
  return 0;
}
