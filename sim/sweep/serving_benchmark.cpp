#include "sim/sweep/serving_benchmark.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "kvcache/base/error.h"
#include "kvcache/base/json_file.h"
#include "kvcache/base/text_format.h"
#include "sim/run/replay_runner.h"

namespace kvsim {
namespace {

constexpr int64_t kMaxReplayedRequests = 4000;  // enough for stable medians, a replay of milliseconds

double Number(const nlohmann::json& j, const std::string& path, const char* field, double lo, double hi) {
  auto it = j.find(field);
  if (it == j.end() || !it->is_number())
    throw Error(path + ": " + field + ": missing or not a number (is this a `vllm bench serve` result file?)");
  const double v = it->get<double>();
  if (!std::isfinite(v) || v < lo || v > hi) throw Error(Format("%s: %s: %g is outside [%g, %g]", path.c_str(), field, v, lo, hi));
  return v;
}

ReplaySummary Replay(const Deployment& d, const ReplayOptions& r) {
  return RunReplay(d, r).summary;
}

}  // namespace

ServingBenchmark LoadServingBenchmark(const std::string& path) {
  const nlohmann::json j = ReadJsonFile(path, "the benchmark result");
  if (!j.is_object()) throw Error(path + ": expected a JSON object");
  ServingBenchmark b;
  b.source = path;
  // vLLM writes an unbounded rate as the string "inf".
  if (auto rate = j.find("request_rate"); rate != j.end() && rate->is_string()) {
    if (rate->get<std::string>() != "inf") throw Error(path + ": request_rate: expected a number or \"inf\"");
  } else {
    b.request_rate = Number(j, path, "request_rate", 0, 1e6);
  }
  b.completed = static_cast<int64_t>(Number(j, path, "completed", 1, 1e9));
  b.mean_input_tokens = Number(j, path, "total_input_tokens", 1, 1e15) / static_cast<double>(b.completed);
  b.mean_output_tokens = Number(j, path, "total_output_tokens", 1, 1e15) / static_cast<double>(b.completed);
  b.median_ttft_s = Number(j, path, "median_ttft_ms", 0, 1e9) / 1e3;
  b.median_tpot_s = Number(j, path, "median_tpot_ms", 0, 1e9) / 1e3;
  if (j.contains("median_itl_ms")) b.median_itl_s = Number(j, path, "median_itl_ms", 0, 1e9) / 1e3;
  if (auto mc = j.find("max_concurrency"); mc != j.end() && mc->is_number())
    b.max_concurrency = static_cast<int64_t>(Number(j, path, "max_concurrency", 1, 1e9));
  if (!(b.median_tpot_s > 0)) throw Error(path + ": median_tpot_ms: must be positive to calibrate the step overhead");
  return b;
}

void FitServingBenchmark(const Deployment& deployment, const ServingBenchmark& b, const std::string& data_dir,
                         KernelEfficiency& e, std::vector<CalibrationFit>& fits) {
  Deployment d = deployment;
  // A client that caps requests in flight keeps at most that many sequences running.
  if (b.max_concurrency > 0)
    d.config.max_num_seqs = std::min<int64_t>(d.config.max_num_seqs.value_or(b.max_concurrency), b.max_concurrency);
  ReplayOptions r;
  r.synthetic = std::min(b.completed, kMaxReplayedRequests);
  r.rate = b.request_rate > 0 ? b.request_rate : 1e6;  // "inf": all at once
  r.prompt_len = Format("fixed:%lld", static_cast<long long>(std::llround(b.mean_input_tokens)));
  r.output_len = Format("fixed:%lld", static_cast<long long>(std::llround(b.mean_output_tokens)));
  r.quiet = true;
  r.omit_wall_time = true;
  ValidateReplayOptions(r, data_dir);
  auto replay_with = [&](double overhead_ms) {
    r.timer.efficiency = e;
    r.timer.efficiency.step_overhead_ms = overhead_ms;
    r.timer.efficiency.client_ttft_ms = 0;
    return Replay(d, r);
  };
  double lo = 0, hi = 50;
  for (int i = 0; i < 30 && hi - lo > 1e-3; ++i) {
    const double mid = (lo + hi) / 2;
    if (replay_with(mid).latency_s.tpot.p50 < b.median_tpot_s) lo = mid;
    else hi = mid;
  }
  e.step_overhead_ms = (lo + hi) / 2;
  const ReplaySummary fitted = replay_with(e.step_overhead_ms);
  e.client_ttft_ms = std::max(0.0, (b.median_ttft_s - fitted.latency_s.client_ttft.p50) * 1e3);
  CalibrationFit tpot{"serving_tpot", b.source, 1, fitted.latency_s.tpot.p50 / b.median_tpot_s, 0, 0};
  const double client_ttft = fitted.latency_s.client_ttft.p50 + e.client_ttft_ms / 1e3;
  CalibrationFit ttft{"serving_ttft", b.source, 1, b.median_ttft_s > 0 ? client_ttft / b.median_ttft_s : 0, 0, 0};
  for (CalibrationFit* f : {&tpot, &ttft}) {
    f->p90_abs_log_error = f->median_ratio > 0 ? std::fabs(std::log(f->median_ratio)) : 0;
    f->within_20_percent = f->median_ratio >= 0.8 && f->median_ratio <= 1.25 ? 1 : 0;
    fits.push_back(*f);
  }
}

}  // namespace kvsim
