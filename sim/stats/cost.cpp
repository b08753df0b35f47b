#include "sim/stats/cost.h"

#include <cmath>

#include "kvcache/base/check.h"

namespace kvsim {

CostSummary ComputeCost(const ReplaySummary& s, double gpu_hourly_usd, int64_t replicas) {
  KVSIM_CHECK(gpu_hourly_usd > 0 && replicas >= 1, "ComputeCost needs a positive price and replicas");
  auto r6 = [](double x) { return std::round(x * 1e6) / 1e6; };
  CostSummary c;
  c.gpu_hourly_usd = gpu_hourly_usd;
  c.gpus = replicas * s.config.settings.tensor_parallel_size * s.config.settings.pipeline_parallel_size;
  const double hours = s.throughput.simulated_s / 3600.0;
  c.gpu_hours = r6(static_cast<double>(c.gpus) * hours);
  c.usd = r6(static_cast<double>(c.gpus) * hours * gpu_hourly_usd);
  const double output_tokens = s.throughput.output_tokens_per_s * s.throughput.simulated_s;
  c.usd_per_million_output_tokens = output_tokens > 0 ? r6(c.usd / (output_tokens / 1e6)) : 0.0;
  c.output_tokens_per_s_per_gpu = r6(s.throughput.output_tokens_per_s / static_cast<double>(c.gpus));
  return c;
}

}  // namespace kvsim
