// End-to-end serving measurements: the result JSON `vllm bench serve --save-result` writes (request
// rate, token counts, TTFT/TPOT/ITL statistics in milliseconds), and the fit of the step model's
// host-side constants to them. The kernels set the GPU time of a step; what a benchmark adds is the
// server's CPU time per step (scheduling, input preparation, output processing) and what a client
// sees beyond the engine (HTTP, the API server, tokenization, streaming). kvsim replays the
// benchmark's workload (its request count, rate and mean prompt/output lengths) and
//   step_overhead_ms  is searched (bisection) until the replay's median TPOT equals the measured one;
//   client_ttft_ms    is the measured median TTFT less the replay's median server TTFT and prompt
//                     tokenization (clamped at 0).
#ifndef KVSIM_SIM_SERVING_BENCHMARK_H_
#define KVSIM_SIM_SERVING_BENCHMARK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "kvcache/budget/deployment.h"
#include "sim/timing/calibration.h"
#include "sim/run/replay_options.h"

namespace kvsim {

struct ServingBenchmark {
  std::string source;
  double request_rate = 0;       // requests/s; 0: all sent at once ("inf")
  int64_t completed = 0;
  double mean_input_tokens = 0, mean_output_tokens = 0;
  double median_ttft_s = 0, median_tpot_s = 0, median_itl_s = 0;
  int64_t max_concurrency = 0;   // the client's cap on requests in flight; 0: none
};

// Throws kvsim::Error naming the file and field for a missing file, malformed JSON or a field that
// is missing or out of range.
ServingBenchmark LoadServingBenchmark(const std::string& path);

// Fits step_overhead_ms and client_ttft_ms of `efficiency` to the benchmark on `deployment`, and
// appends how close the fitted replay comes ("serving_tpot", "serving_ttft") to `fits`.
void FitServingBenchmark(const Deployment& deployment, const ServingBenchmark& bench, const std::string& data_dir,
                         KernelEfficiency& efficiency, std::vector<CalibrationFit>& fits);

}  // namespace kvsim

#endif  // KVSIM_SIM_SERVING_BENCHMARK_H_
