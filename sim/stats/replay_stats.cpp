#include "sim/stats/replay_stats.h"

#include <algorithm>
#include <cmath>

namespace kvsim {
namespace {

double R6(double x) { return std::round(x * 1e6) / 1e6; }

WasteShares Shares(const Int128 sums[kNumWasteCategories]) {
  Int128 total = 0;
  for (int i = 0; i < kNumWasteCategories; ++i) total += sums[i];
  WasteShares w{};
  for (int i = 0; i < kNumWasteCategories; ++i)
    w[static_cast<size_t>(i)] = R6(total > 0 ? ToDouble(sums[i]) / ToDouble(total) : 0.0);
  return w;
}

double Ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

}  // namespace

// One step is a run of one (one rule for both, so a run equals its steps one by one). speed: without
// building a StepRun, whose copy of the sample was most of a step's cost here.
void ReplayStatistics::OnStep(const StepSample& s) {
  AddRunTotals(s, s.duration_ns, 0, 0, 0, 0);
  itl_.AddNs(s.duration_ns, s.later_tokens);
  peak_used_blocks_ = std::max(peak_used_blocks_, s.used_blocks);
}

void ReplayStatistics::OnStepRun(const StepRun& run) {
  const StepSample& s = run.first;
  AddRunTotals(s, run.duration_sum, run.step_duration_sum, run.added_duration_sum, run.token_slots_per_step, run.block_slots);
  if (run.durations_nondecreasing) itl_.AddSortedRunNs(run.durations, run.steps, s.later_tokens, run.duration_sum);
  else itl_.AddRunNs(run.durations, run.steps, s.later_tokens);
  // Blocks are only added during a run: the last step uses the most.
  peak_used_blocks_ = std::max(peak_used_blocks_, s.used_blocks + (run.added_blocks ? run.added_blocks[run.steps - 1] : 0));
}

// The integrals over the run in closed form: step j holds j·token_slots_per_step more
// token slots (as many fewer reserved) and added_blocks[j] more blocks (reserved, not free).
// speed: always inlined into OnStep and OnStepRun, where OnStep's zero sums fold away; whether the
// compiler chose to depended on how the unity build batched the files.
[[gnu::always_inline]] inline void ReplayStatistics::AddRunTotals(const StepSample& s, int64_t duration_sum, Int128 step_duration_sum,
                                    Int128 added_duration_sum, int64_t token_slots_per_step, int64_t block_slots) {
  const Int128 s0 = duration_sum, s1 = step_duration_sum, s2 = added_duration_sum;
  Int128 integral[kNumWasteCategories];
  for (int i = 0; i < kNumWasteCategories; ++i) integral[i] = static_cast<Int128>(s.kv.slots(static_cast<WasteCategory>(i))) * s0;
  const Int128 decoded = token_slots_per_step * s1, crossed = block_slots * s2;
  integral[static_cast<int>(WasteCategory::kTokenStates)] += decoded;
  integral[static_cast<int>(WasteCategory::kReserved)] += crossed - decoded;
  integral[static_cast<int>(WasteCategory::kFree)] -= crossed;
  time_total_ns_ += duration_sum;
  running_time_integral_ += static_cast<Int128>(s.running) * s0;
  for (int i = 0; i < kNumWasteCategories; ++i) waste_[i] += integral[i];
  if (s.waiting > 0) {
    time_saturated_ns_ += duration_sum;
    for (int i = 0; i < kNumWasteCategories; ++i) waste_saturated_[i] += integral[i];
  }
  peak_running_ = std::max(peak_running_, s.running);
  peak_waiting_ = std::max(peak_waiting_, s.waiting);
  preemptions_ = s.preemptions_total;
  end_ns_ = std::max(end_ns_, s.start_ns + duration_sum);
}

void ReplayStatistics::AddStepsOf(const ReplayStatistics& replica) {
  running_time_integral_ += replica.running_time_integral_;
  time_total_ns_ += replica.time_total_ns_;
  time_saturated_ns_ += replica.time_saturated_ns_;
  for (int i = 0; i < kNumWasteCategories; ++i) {
    waste_[i] += replica.waste_[i];
    waste_saturated_[i] += replica.waste_saturated_[i];
  }
  peak_running_ = std::max(peak_running_, replica.peak_running_);
  peak_waiting_ = std::max(peak_waiting_, replica.peak_waiting_);
  peak_used_blocks_ = std::max(peak_used_blocks_, replica.peak_used_blocks_);
  preemptions_ += replica.preemptions_;  // each replica counts its own
  end_ns_ = std::max(end_ns_, replica.end_ns_);
  itl_.Merge(replica.itl_);
}

void ReplayStatistics::OnRequestDone(const RequestRecord& r) {
  ++total_;
  last_arrival_ns_ = std::max(last_arrival_ns_, r.arrival_ns);
  if (!r.rejected_reason.empty()) {
    ++rejected_;
    ++rejected_by_reason_[r.rejected_reason];
    return;
  }
  ++finished_;
  output_tokens_ += r.output_tokens;
  const RequestLatencies l = LatenciesOf(r);
  queue_.Add(l.queue_s);
  const double tokenization = o_.tokenize_s_per_token * static_cast<double>(r.prompt_tokens);
  const double ttft = l.ttft_s + o_.client_ttft_s + tokenization;
  server_ttft_.Add(l.ttft_s);
  ttft_.Add(ttft);
  ReplaySummary::TtftComponents& c = ttft_sums_;
  c.api_server += o_.client_ttft_s, c.tokenization += tokenization;
  // speed: the engine's parts summed in ns (exact integers; four divisions fewer per request).
  const TtftPartsNs parts = TtftPartsOf(r);
  ttft_parts_ns_.step_in_flight += parts.step_in_flight, ttft_parts_ns_.async_scheduling += parts.async_scheduling;
  ttft_parts_ns_.wait += parts.wait, ttft_parts_ns_.prefill += parts.prefill;
  e2e_.Add(l.e2e_s);
  if (l.has_tpot) tpot_.Add(l.tpot_s);
  // SLOs are set on what clients measure.
  if ((o_.slo_ttft_s <= 0 || ttft <= o_.slo_ttft_s) && (o_.slo_tpot_s <= 0 || l.tpot_s <= o_.slo_tpot_s))
    ++goodput_requests_;
}

void ReplayStatistics::OnPrefixLookup(int64_t queried_tokens, int64_t hit_tokens) {
  prefix_queried_ += queried_tokens;
  prefix_hit_ += hit_tokens;
}

void ReplayStatistics::OnPrefixRelookup(int64_t queried_tokens, int64_t hit_tokens) {
  readmit_queried_ += queried_tokens;
  readmit_hit_ += hit_tokens;
}

void ReplayStatistics::FillSummary(ReplaySummary& s) const {
  s.requests = {total_, finished_, rejected_, preemptions_, rejected_by_reason_};
  const double time_total = static_cast<double>(time_total_ns_);
  s.concurrency = {peak_running_, R6(Ratio(ToDouble(running_time_integral_), time_total)), peak_waiting_};
  const int64_t usable = std::max<int64_t>(1, o_.usable_blocks);
  s.kv = {o_.num_blocks, o_.block_size, peak_used_blocks_,
          R6(static_cast<double>(peak_used_blocks_) / static_cast<double>(usable))};
  s.waste = Shares(waste_);
  s.waste_saturated = Shares(waste_saturated_);
  s.saturated_time_fraction = R6(Ratio(static_cast<double>(time_saturated_ns_), time_total));
  s.prefix_cache = {prefix_queried_, prefix_hit_,
                    R6(Ratio(static_cast<double>(prefix_hit_), static_cast<double>(prefix_queried_))), readmit_queried_,
                    readmit_hit_, R6(Ratio(static_cast<double>(readmit_hit_), static_cast<double>(readmit_queried_)))};
  s.sim.exact_quantiles = queue_.exact() && ttft_.exact() && server_ttft_.exact() && tpot_.exact() && e2e_.exact();
  const LatencySummary ttft = ttft_.Summary();
  s.latency_s = {queue_.Summary(), ttft, ttft, server_ttft_.Summary(), tpot_.Summary(),
                 itl_.Summary(), e2e_.Summary(), {}};
  const double n = static_cast<double>(std::max<int64_t>(1, finished_));
  const ReplaySummary::TtftComponents& c = ttft_sums_;
  const TtftPartsNs& p = ttft_parts_ns_;
  auto mean_s = [n](int64_t sum_ns) { return R6(static_cast<double>(sum_ns) / 1e9 / n); };
  s.latency_s.ttft_components = {R6(c.api_server / n), R6(c.tokenization / n), mean_s(p.step_in_flight),
                                 mean_s(p.async_scheduling), mean_s(p.wait), mean_s(p.prefill)};
  const double span_s = static_cast<double>(end_ns_) / 1e9;
  // Arrivals per second of the trace as replayed: when finished requests/s stays well below it the
  // deployment does not keep up and queues grow whatever the scheduler does.
  const double arrival_span_s = static_cast<double>(last_arrival_ns_) / 1e9;
  s.throughput = {R6(Ratio(static_cast<double>(finished_), span_s)), R6(Ratio(static_cast<double>(output_tokens_), span_s)),
                  R6(span_s), R6(Ratio(static_cast<double>(total_), arrival_span_s))};
  s.goodput = {R6(Ratio(static_cast<double>(goodput_requests_), span_s)),
               R6(Ratio(static_cast<double>(goodput_requests_), static_cast<double>(finished_))), o_.slo_ttft_s,
               o_.slo_tpot_s};
}

}  // namespace kvsim
