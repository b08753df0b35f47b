// Replay throughput on the bundled Azure conversation trace. BM_Replay/K tiles the trace K times
// (K = 52 is the 1,007,032-request acceptance run; the script bench/replay_speed.sh also reports
// peak RSS). Default deployment: Llama-3.1-8B on an A100-80GB, vLLM v1 scheduler, paged allocator.
#include <benchmark/benchmark.h>

#include <sstream>
#include <string>

#include "sim/cli/commands.h"

namespace kvsim {
namespace {

void BM_Replay(benchmark::State& state) {
  const std::vector<std::string> args = {"kvsim", "replay", "--repeat", std::to_string(state.range(0)), "--quiet"};
  for (auto _ : state) {
    std::ostringstream out, err;
    if (RunKvsim(args, out, err) != 0) state.SkipWithError(err.str().c_str());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0) * 19366);
}
BENCHMARK(BM_Replay)->Arg(1)->Arg(52)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace kvsim
