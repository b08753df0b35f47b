#include "reports/bench_json.h"

#include <string>

namespace kvsim {

nlohmann::json ReplaySummaryToBenchJson(const ReplaySummary& s) {
  nlohmann::json j;
  j["backend"] = "kvsim";
  j["model_id"] = s.config.settings.model;
  j["completed"] = s.requests.finished;
  j["num_prompts"] = s.requests.total;
  j["failed"] = s.requests.rejected;
  j["duration"] = s.throughput.simulated_s;
  j["request_throughput"] = s.throughput.requests_per_s;
  j["output_throughput"] = s.throughput.output_tokens_per_s;
  j["request_goodput"] = s.goodput.requests_per_s;
  // vLLM's names: e2el is the end-to-end latency; percentiles as --metric-percentiles 90,99 writes them.
  const std::pair<const char*, const LatencySummary*> metrics[] = {
      {"ttft", &s.latency_s.ttft}, {"tpot", &s.latency_s.tpot}, {"itl", &s.latency_s.itl}, {"e2el", &s.latency_s.e2e}};
  for (const auto& [name, l] : metrics) {
    const std::string m = name;
    j["mean_" + m + "_ms"] = l->mean * 1e3;
    j["median_" + m + "_ms"] = l->p50 * 1e3;
    if (l->has_std) j["std_" + m + "_ms"] = l->std * 1e3;
    j["p90_" + m + "_ms"] = l->p90 * 1e3;
    j["p99_" + m + "_ms"] = l->p99 * 1e3;
  }
  return j;
}

}  // namespace kvsim
