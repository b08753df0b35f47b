// Replay throughput on the bundled Azure conversation trace. BM_Replay/K tiles the trace K times
// (K = 52 is the 1,007,032-request acceptance run; the script bench/replay_speed.sh also reports
// peak RSS). Default deployment: Llama-3.1-8B on an A100-80GB, vLLM v1 scheduler, paged allocator.
#include <benchmark/benchmark.h>

#include "kvcache/model/model_catalog.h"
#include "sim/replay_runner.h"

namespace kvsim {
namespace {

void BM_Replay(benchmark::State& state) {
  const Deployment d = ResolveDeployment(DeploymentOptions{}, DataDirectory());
  ReplayOptions r;
  r.window.repeat = state.range(0);
  ValidateReplayOptions(r, DataDirectory());
  int64_t requests = 0;
  for (auto _ : state) requests = RunReplay(d, r).summary.requests.total;
  state.SetItemsProcessed(state.iterations() * requests);
}
BENCHMARK(BM_Replay)->Arg(1)->Arg(52)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace kvsim
