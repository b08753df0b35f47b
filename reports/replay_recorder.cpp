#include "reports/replay_recorder.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "kvcache/error.h"

namespace kvsim {
namespace {

constexpr const char* kCategories[6] = {"token_states", "reserved", "internal_fragmentation",
                                        "external_fragmentation", "cached", "free"};

void Slots(const KvAccounting& a, double out[6]) {
  out[0] = static_cast<double>(a.token_slots);
  out[1] = static_cast<double>(a.reserved_slots);
  out[2] = static_cast<double>(a.internal_fragmentation_slots);
  out[3] = static_cast<double>(a.external_fragmentation_slots);
  out[4] = static_cast<double>(a.cached_slots);
  out[5] = static_cast<double>(a.free_slots);
}

double R6(double x) { return std::round(x * 1e6) / 1e6; }

std::string Seconds(int64_t ns) {
  if (ns < 0) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", static_cast<double>(ns) / 1e9);
  return buf;
}

void OpenTemp(const std::string& path, std::ofstream& out, std::string& tmp, const char* header) {
  if (path.empty()) return;
  tmp = path + ".tmp." + std::to_string(::getpid());
  out.open(tmp, std::ios::trunc);
  if (!out) throw Error(path + ": cannot write");
  out << header << "\n";
}

void CloseTemp(const std::string& path, std::ofstream& out, const std::string& tmp) {
  if (path.empty() || !out.is_open()) return;
  out.flush();
  const bool ok = static_cast<bool>(out);
  out.close();
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw Error(path + ": write failed");
  }
}

}  // namespace

void LogHistogram::Add(double seconds) {
  // Bucket i covers (1e-4 × 1.02^(i−1), 1e-4 × 1.02^i]; bucket 0 everything up to 0.1 ms.
  int i = seconds <= 1e-4 ? 0 : static_cast<int>(std::ceil(std::log(seconds / 1e-4) / std::log(1.02)));
  i = std::min(std::max(i, 0), kBuckets - 1);
  ++counts_[i];
  ++count_;
}

std::vector<std::pair<double, double>> LogHistogram::Cdf() const {
  std::vector<std::pair<double, double>> out;
  int64_t cumulative = 0;
  for (int i = 0; i < kBuckets && count_ > 0; ++i) {
    if (counts_[i] == 0) continue;
    cumulative += counts_[i];
    out.emplace_back(1e-4 * std::pow(1.02, i), static_cast<double>(cumulative) / static_cast<double>(count_));
  }
  return out;
}

ReplayRecorder::ReplayRecorder(RecorderOptions o) : o_(std::move(o)) {
  OpenTemp(o_.timeseries_path, series_, series_tmp_,
           "time_s,running,waiting,used_blocks,token_states,reserved,internal_fragmentation,external_fragmentation,"
           "cached,free,preemptions");
  OpenTemp(o_.requests_path, requests_, requests_tmp_,
           "id,arrival_s,admitted_s,first_token_s,finished_s,prompt_tokens,output_tokens,cached_tokens,preemptions,"
           "status");
}

ReplayRecorder::~ReplayRecorder() {
  // A run that did not Finish leaves no half-written outputs behind.
  if (series_.is_open()) series_.close(), std::remove(series_tmp_.c_str());
  if (requests_.is_open()) requests_.close(), std::remove(requests_tmp_.c_str());
}

void ReplayRecorder::OnStep(const StepSample& s) {
  if (first_ns_ < 0) first_ns_ = s.start_ns;
  const double dt = static_cast<double>(s.duration_ns);
  double slots[6];
  Slots(s.kv, slots);
  time_total_ns_ += dt;
  running_time_integral_ += static_cast<double>(s.running) * dt;
  for (int i = 0; i < 6; ++i) waste_[i] += slots[i] * dt;
  if (s.waiting > 0) {
    time_saturated_ns_ += dt;
    for (int i = 0; i < 6; ++i) waste_saturated_[i] += slots[i] * dt;
  }
  peak_running_ = std::max(peak_running_, s.running);
  peak_waiting_ = std::max(peak_waiting_, s.waiting);
  peak_used_blocks_ = std::max(peak_used_blocks_, s.used_blocks);
  preemptions_ = s.preemptions_total;
  end_ns_ = s.start_ns + s.duration_ns;
  if (o_.keep_charts) AddChartSample(s);
  if (series_.is_open()) {
    if (o_.sample_interval_s <= 0) {
      WriteSeriesRow(s, s.start_ns);
    } else if (s.start_ns >= next_sample_ns_) {
      WriteSeriesRow(s, s.start_ns);
      const int64_t step = static_cast<int64_t>(o_.sample_interval_s * 1e9);
      next_sample_ns_ = (s.start_ns / step + 1) * step;
    }
  }
}

void ReplayRecorder::AddChartSample(const StepSample& s) {
  const double cap = static_cast<double>(std::max<int64_t>(1, s.kv.capacity_slots));
  double slots[6];
  Slots(s.kv, slots);
  const double used = (slots[0] + slots[1] + slots[2]) / cap;
  const double t = static_cast<double>(s.start_ns / chart_interval_ns_ * chart_interval_ns_) / 1e9;
  if (chart_.empty() || t > chart_.back().t_s) {
    if (chart_.size() >= kMaxChartPoints) {
      // Halve the resolution: merge neighbours, keeping each pair's peak.
      std::vector<ChartPoint> merged;
      chart_interval_ns_ *= 2;
      for (const ChartPoint& p : chart_) {
        const double bucket = static_cast<double>(static_cast<int64_t>(p.t_s * 1e9) / chart_interval_ns_ * chart_interval_ns_) / 1e9;
        if (merged.empty() || merged.back().t_s != bucket) {
          merged.push_back(p);
          merged.back().t_s = bucket;
          continue;
        }
        ChartPoint& m = merged.back();
        if (p.used_fraction > m.used_fraction) std::copy(p.fractions, p.fractions + 6, m.fractions), m.used_fraction = p.used_fraction;
        m.running_max = std::max(m.running_max, p.running_max);
        m.waiting_max = std::max(m.waiting_max, p.waiting_max);
        m.preemptions = std::max(m.preemptions, p.preemptions);
      }
      chart_ = std::move(merged);
      AddChartSample(s);
      return;
    }
    chart_.push_back(ChartPoint{});
    chart_.back().t_s = t;
  }
  ChartPoint& p = chart_.back();
  if (used > p.used_fraction) {
    for (int i = 0; i < 6; ++i) p.fractions[i] = slots[i] / cap;
    p.used_fraction = used;
  }
  p.running_max = std::max(p.running_max, s.running);
  p.waiting_max = std::max(p.waiting_max, s.waiting);
  p.preemptions = s.preemptions_total;
}

void ReplayRecorder::WriteSeriesRow(const StepSample& s, int64_t t_ns) {
  const double cap = static_cast<double>(std::max<int64_t>(1, s.kv.capacity_slots));
  char buf[256];
  std::snprintf(buf, sizeof buf, "%.6f,%lld,%lld,%lld,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%lld", static_cast<double>(t_ns) / 1e9,
                static_cast<long long>(s.running), static_cast<long long>(s.waiting),
                static_cast<long long>(s.used_blocks), static_cast<double>(s.kv.token_slots) / cap,
                static_cast<double>(s.kv.reserved_slots) / cap, static_cast<double>(s.kv.internal_fragmentation_slots) / cap,
                static_cast<double>(s.kv.external_fragmentation_slots) / cap, static_cast<double>(s.kv.cached_slots) / cap,
                static_cast<double>(s.kv.free_slots) / cap, static_cast<long long>(s.preemptions_total));
  series_ << buf << "\n";
}

void ReplayRecorder::OnRequestDone(const RequestRecord& r) {
  ++total_;
  last_arrival_ns_ = std::max(last_arrival_ns_, r.arrival_ns);
  if (!r.rejected_reason.empty()) {
    ++rejected_;
    ++rejected_by_reason_[r.rejected_reason];
  } else {
    ++finished_;
    output_tokens_ += r.output_tokens;
    const double ttft = static_cast<double>(r.first_token_ns - r.arrival_ns) / 1e9;
    const double e2e = static_cast<double>(r.finished_ns - r.arrival_ns) / 1e9;
    const double tpot = r.output_tokens > 1
                            ? static_cast<double>(r.finished_ns - r.first_token_ns) / 1e9 / static_cast<double>(r.output_tokens - 1)
                            : 0.0;
    queue_.Add(static_cast<double>(r.admitted_ns - r.arrival_ns) / 1e9);
    ttft_.Add(ttft);
    e2e_.Add(e2e);
    if (r.output_tokens > 1) tpot_.Add(tpot);
    if ((o_.slo_ttft_s <= 0 || ttft <= o_.slo_ttft_s) && (o_.slo_tpot_s <= 0 || tpot <= o_.slo_tpot_s)) ++goodput_requests_;
    if (o_.keep_charts) {
      ttft_hist_.Add(ttft);
      e2e_hist_.Add(e2e);
      if (r.output_tokens > 1) tpot_hist_.Add(tpot);
    }
  }
  if (requests_.is_open()) {
    requests_ << r.id << ',' << Seconds(r.arrival_ns) << ',' << Seconds(r.admitted_ns) << ','
              << Seconds(r.first_token_ns) << ',' << Seconds(r.finished_ns) << ',' << r.prompt_tokens << ','
              << r.output_tokens << ',' << r.cached_tokens << ',' << r.preemptions << ','
              << (r.rejected_reason.empty() ? std::string("finished") : "rejected: " + r.rejected_reason) << "\n";
  }
}

void ReplayRecorder::OnPrefixLookup(int64_t queried_tokens, int64_t hit_tokens) {
  prefix_queried_ += queried_tokens;
  prefix_hit_ += hit_tokens;
}

void ReplayRecorder::Finish() {
  CloseTemp(o_.timeseries_path, series_, series_tmp_);
  CloseTemp(o_.requests_path, requests_, requests_tmp_);
}

nlohmann::json ReplayRecorder::Summary() const {
  nlohmann::json j;
  j["requests"] = {{"total", total_}, {"finished", finished_}, {"rejected", rejected_}, {"preemptions", preemptions_},
                   {"rejected_by_reason", rejected_by_reason_}};
  j["concurrency"] = {{"peak_running", peak_running_},
                      {"mean_running", R6(time_total_ns_ > 0 ? running_time_integral_ / time_total_ns_ : 0.0)},
                      {"peak_waiting", peak_waiting_}};
  const int64_t usable = std::max<int64_t>(1, o_.num_blocks - 1);
  j["kv"] = {{"num_blocks", o_.num_blocks}, {"block_size", o_.block_size}, {"peak_used_blocks", peak_used_blocks_},
             {"peak_used_fraction", R6(static_cast<double>(peak_used_blocks_) / static_cast<double>(usable))}};
  auto fractions = [](const double sums[6]) {
    double total = 0;
    for (int i = 0; i < 6; ++i) total += sums[i];
    nlohmann::json w = nlohmann::json::object();
    for (int i = 0; i < 6; ++i) w[kCategories[i]] = R6(total > 0 ? sums[i] / total : 0.0);
    return w;
  };
  j["waste"] = fractions(waste_);
  j["waste_saturated"] = fractions(waste_saturated_);
  j["waste_saturated"]["saturated_time_fraction"] = R6(time_total_ns_ > 0 ? time_saturated_ns_ / time_total_ns_ : 0.0);
  j["prefix_cache"] = {{"queried_tokens", prefix_queried_}, {"hit_tokens", prefix_hit_},
                       {"hit_rate", R6(prefix_queried_ > 0 ? static_cast<double>(prefix_hit_) / static_cast<double>(prefix_queried_) : 0.0)}};
  j["latency_s"] = {{"queue", queue_.ToJson()}, {"ttft", ttft_.ToJson()}, {"tpot", tpot_.ToJson()}, {"e2e", e2e_.ToJson()}};
  const double span_s = static_cast<double>(end_ns_) / 1e9;
  j["throughput"] = {{"requests_per_s", R6(span_s > 0 ? static_cast<double>(finished_) / span_s : 0.0)},
                     {"output_tokens_per_s", R6(span_s > 0 ? static_cast<double>(output_tokens_) / span_s : 0.0)},
                     {"simulated_s", R6(span_s)}};
  // Arrivals per second of the trace as replayed: when finished requests/s stays well below it the
  // deployment does not keep up and queues grow whatever the scheduler does.
  const double arrival_span_s = static_cast<double>(last_arrival_ns_) / 1e9;
  j["throughput"]["offered_requests_per_s"] = R6(arrival_span_s > 0 ? static_cast<double>(total_) / arrival_span_s : 0.0);
  j["goodput"] = {{"requests_per_s", R6(span_s > 0 ? static_cast<double>(goodput_requests_) / span_s : 0.0)},
                  {"fraction", R6(finished_ > 0 ? static_cast<double>(goodput_requests_) / static_cast<double>(finished_) : 0.0)},
                  {"slo_ttft_s", o_.slo_ttft_s}, {"slo_tpot_s", o_.slo_tpot_s}};
  return j;
}

}  // namespace kvsim
