// Replay throughput on the bundled Azure conversation trace with Llama-3.1-8B-Instruct on an H100
// (vLLM v1 scheduler, paged allocator). BM_Replay/K tiles the trace K times (K = 52 is the
// 1,007,032-request acceptance run; bench/replay_speed.sh also reports peak RSS); BM_Fleet/N
// replays the 1M-request trace on N replicas behind round-robin routing.
#include <benchmark/benchmark.h>

#include <string>

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

// The Mooncake conversation trace (12,031 requests whose prompts share prefixes: hash_ids, one per
// 512 tokens) on the replay's defaults (Llama-3.1-8B-Instruct, A100-80GB). BM_Mooncake/1 with
// prefix caching, /0 without (the same replay: the cost of looking blocks up, registering and
// evicting them); BM_MooncakeTiled/K tiles the trace K times with prefix caching (K = 10:
// 120,310 requests), for the replay's growth with the trace.
ReplayOptions MooncakeReplay(int64_t repeat) {
  ReplayOptions r;
  r.trace = std::string(KVSIM_SHARED_DIR) + "/traces/mooncake/conversation_trace.jsonl";
  r.window.repeat = repeat;
  ValidateReplayOptions(r, DataDirectory());
  return r;
}

Deployment OnA100(bool prefix_caching) {
  DeploymentOptions o;
  o.enable_prefix_caching = prefix_caching;
  return ResolveDeployment(o, DataDirectory());
}

void BM_Mooncake(benchmark::State& state) {
  const Deployment d = OnA100(state.range(0) != 0);
  const ReplayOptions r = MooncakeReplay(1);
  int64_t requests = 0;
  for (auto _ : state) requests = RunReplay(d, r).summary.requests.total;
  state.SetItemsProcessed(state.iterations() * requests);
}
BENCHMARK(BM_Mooncake)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(5);

void BM_MooncakeTiled(benchmark::State& state) {
  const Deployment d = OnA100(true);
  const ReplayOptions r = MooncakeReplay(state.range(0));
  int64_t requests = 0;
  for (auto _ : state) requests = RunReplay(d, r).summary.requests.total;
  state.SetItemsProcessed(state.iterations() * requests);
}
BENCHMARK(BM_MooncakeTiled)->Arg(1)->Arg(10)->Unit(benchmark::kMillisecond)->Iterations(5);

}  // namespace
}  // namespace kvsim
