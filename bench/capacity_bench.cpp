// How fast kvsim answers `capacity`: the planner alone, and the whole command (reading the preset
// config.json and gpus.csv from disk, planning, rendering). The acceptance bar is 50 ms per answer.
#include <benchmark/benchmark.h>

#include <sstream>

#include "kvcache/capacity_planner.h"
#include "kvcache/model_catalog.h"
#include "sim/cli/commands.h"
#include "sim/cli/deployment_options.h"

namespace kvsim {
namespace {

void BM_PlanCapacity(benchmark::State& state, const char* model, int tp) {
  DeploymentOptions o;
  o.model = model;
  o.gpu = "h100";
  o.tensor_parallel_size = tp;
  const Deployment d = ResolveDeployment(o, DataDirectory());
  for (auto _ : state) benchmark::DoNotOptimize(PlanCapacity(d.model, d.gpu, d.config));
}
BENCHMARK_CAPTURE(BM_PlanCapacity, llama_8b, "meta-llama/Llama-3.1-8B-Instruct", 1);
BENCHMARK_CAPTURE(BM_PlanCapacity, qwen3_235b_moe_tp8, "Qwen/Qwen3-235B-A22B-FP8", 8);

void BM_CapacityCommand(benchmark::State& state) {
  const std::vector<std::string> args = {"kvsim", "capacity", "--model", "Qwen/Qwen3-235B-A22B-FP8", "--gpu", "h100",
                                         "-tp", "8"};
  for (auto _ : state) {
    std::ostringstream out, err;
    benchmark::DoNotOptimize(RunKvsim(args, out, err));
  }
}
BENCHMARK(BM_CapacityCommand)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace kvsim
