// Replay throughput on the bundled Azure conversation trace with Llama-3.1-8B-Instruct on an H100
// (vLLM v1 scheduler, paged allocator). BM_Replay/K tiles the trace K times (K = 52 is the
// 1,007,032-request acceptance run; bench/replay_speed.sh also reports peak RSS); BM_Fleet/N
// replays the 1M-request trace on N replicas behind round-robin routing.
#include <benchmark/benchmark.h>

#include "kvcache/model/model_catalog.h"
#include "sim/run/replay_runner.h"

namespace kvsim {
namespace {

Deployment OnH100() {
  DeploymentOptions o;
  o.gpu = "h100";
  return ResolveDeployment(o, DataDirectory());
}

void BM_Replay(benchmark::State& state) {
  const Deployment d = OnH100();
  ReplayOptions r;
  r.window.repeat = state.range(0);
  ValidateReplayOptions(r, DataDirectory());
  int64_t requests = 0;
  for (auto _ : state) requests = RunReplay(d, r).summary.requests.total;
  state.SetItemsProcessed(state.iterations() * requests);
}
BENCHMARK(BM_Replay)->Arg(1)->Arg(52)->Unit(benchmark::kMillisecond)->Iterations(5);

void BM_Fleet(benchmark::State& state) {
  const Deployment d = OnH100();
  ReplayOptions r;
  r.window.repeat = 52;
  r.replicas = state.range(0);
  ValidateReplayOptions(r, DataDirectory());
  int64_t requests = 0;
  for (auto _ : state) requests = RunReplay(d, r).summary.requests.total;
  state.SetItemsProcessed(state.iterations() * requests);
}
BENCHMARK(BM_Fleet)->Arg(1)->Arg(16)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace kvsim
