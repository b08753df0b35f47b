// How fast kvsim answers `capacity`: the planner alone, and the whole answer as the command builds
// it (reading the preset config.json and gpus.csv from disk, planning, rendering the table). The
// acceptance bar is 50 ms per answer.
#include <benchmark/benchmark.h>

#include "kvcache/budget/capacity_planner.h"
#include "kvcache/model/model_catalog.h"
#include "reports/capacity_report.h"

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

void BM_CapacityAnswer(benchmark::State& state) {
  DeploymentOptions o;
  o.model = "Qwen/Qwen3-235B-A22B-FP8";
  o.gpu = "h100";
  o.tensor_parallel_size = 8;
  for (auto _ : state) {
    const Deployment d = ResolveDeployment(o, DataDirectory());
    benchmark::DoNotOptimize(RenderCapacityText(PlanCapacity(d.model, d.gpu, d.config)));
  }
}
BENCHMARK(BM_CapacityAnswer)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace kvsim
