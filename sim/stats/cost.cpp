#include "sim/stats/cost.h"

#include <cmath>

#include "kvcache/base/check.h"

namespace kvsim {

CostSummary ComputeCost(const ReplaySummary& s, double gpu_hourly_usd, int64_t replicas) {
  KVSIM_CHECK(gpu_hourly_usd > 0 && replicas >= 1, "ComputeCost needs a positive price and replicas");
  const int64_t gpus = replicas * s.config.settings.tensor_parallel_size * s.config.settings.pipeline_parallel_size;
  return ComputeCostOfPools(s, {{gpus, gpu_hourly_usd}});
}

CostSummary ComputeCostOfPools(const ReplaySummary& s, const std::vector<PricedGpus>& pools) {
  auto r6 = [](double x) { return std::round(x * 1e6) / 1e6; };
  CostSummary c;
  const double hours = s.throughput.simulated_s / 3600.0;
  double usd_per_hour = 0;
  for (const PricedGpus& p : pools) {
    KVSIM_CHECK(p.gpus >= 1 && p.hourly_usd > 0, "a priced pool needs GPUs and a positive price");
    c.gpus += p.gpus;
    usd_per_hour += static_cast<double>(p.gpus) * p.hourly_usd;
  }
  c.gpu_hourly_usd = usd_per_hour / static_cast<double>(c.gpus);
  c.gpu_hours = r6(static_cast<double>(c.gpus) * hours);
  c.usd = r6(usd_per_hour * hours);
  const double output_tokens = s.throughput.output_tokens_per_s * s.throughput.simulated_s;
  c.usd_per_million_output_tokens = output_tokens > 0 ? r6(c.usd / (output_tokens / 1e6)) : 0.0;
  c.output_tokens_per_s_per_gpu = r6(s.throughput.output_tokens_per_s / static_cast<double>(c.gpus));
  return c;
}

}  // namespace kvsim
