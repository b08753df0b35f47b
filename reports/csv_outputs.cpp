#include "reports/csv_outputs.h"

#include <algorithm>
#include <cstdio>

#include "kvcache/base/checked_math.h"
#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"

namespace kvsim {
namespace {

// 0 (every step) or 1 ns .. 10^9 s: the clock counts whole nanoseconds, so a smaller interval would
// truncate to 0 (every step, not what was asked), and a larger one does not fit in 64 bits.
int64_t IntervalNs(double s) {
  if (s == 0) return 0;
  if (!(s >= 1e-9 && s <= 1e9))
    throw Error(Format("--sample-interval: %g s is outside [1e-09, 1e+09] s (or 0 for every step); the clock counts whole ns", s));
  return RoundToInt64OrThrow(s * 1e9, 1, 1000000000LL * 1000000000LL, "--sample-interval");
}

std::string Seconds(int64_t ns) {
  if (ns < 0) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", static_cast<double>(ns) / 1e9);
  return buf;
}

}  // namespace

void CommitCsv(AtomicOutputFile& file, const std::string& partial_reason) {
  if (!partial_reason.empty()) file.stream() << "# partial: " << partial_reason << "\n";
  file.Commit();
}

TimeSeriesCsv::TimeSeriesCsv(const std::string& path, double sample_interval_s)
    : file_(path),
      interval_ns_(IntervalNs(sample_interval_s)) {
  file_.stream() << "time_s,running,waiting,used_blocks,token_states,reserved,internal_fragmentation,"
                    "external_fragmentation,cached,free,preemptions\n";
}

void TimeSeriesCsv::OnStep(const StepSample& s) {
  if (interval_ns_ <= 0) {
    WriteRow(s);
  } else if (s.start_ns >= next_sample_ns_) {
    WriteRow(s);
    next_sample_ns_ = (s.start_ns / interval_ns_ + 1) * interval_ns_;
  }
}

void TimeSeriesCsv::OnStepRun(const StepRun& run) {
  if (interval_ns_ <= 0) {
    ReplayObserver::OnStepRun(run);  // a row per step
    return;
  }
  int64_t start = run.first.start_ns;
  for (int64_t j = 0; j < run.steps; start += run.durations[j++])
    if (start >= next_sample_ns_) OnStep(run.Step(j, start));
}

void TimeSeriesCsv::WriteRow(const StepSample& s) {
  const double cap = static_cast<double>(std::max<int64_t>(1, s.kv.capacity_slots));
  char buf[256];
  std::snprintf(buf, sizeof buf, "%.6f,%lld,%lld,%lld,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%lld", static_cast<double>(s.start_ns) / 1e9,
                static_cast<long long>(s.running), static_cast<long long>(s.waiting),
                static_cast<long long>(s.used_blocks), static_cast<double>(s.kv.token_slots) / cap,
                static_cast<double>(s.kv.reserved_slots) / cap, static_cast<double>(s.kv.internal_fragmentation_slots) / cap,
                static_cast<double>(s.kv.external_fragmentation_slots) / cap, static_cast<double>(s.kv.cached_slots) / cap,
                static_cast<double>(s.kv.free_slots) / cap, static_cast<long long>(s.preemptions_total));
  file_.stream() << buf << "\n";
}

RequestsCsv::RequestsCsv(const std::string& path) : file_(path) {
  file_.stream() << "id,arrival_s,admitted_s,first_token_s,finished_s,prompt_tokens,output_tokens,cached_tokens,"
                    "preemptions,status\n";
}

void RequestsCsv::OnRequestDone(const RequestRecord& r) {
  file_.stream() << r.id << ',' << Seconds(r.arrival_ns) << ',' << Seconds(r.admitted_ns) << ','
                 << Seconds(r.first_token_ns) << ',' << Seconds(r.finished_ns) << ',' << r.prompt_tokens << ','
                 << r.output_tokens << ',' << r.cached_tokens << ',' << r.preemptions << ','
                 << (r.rejected_reason.empty() ? std::string("finished") : "rejected: " + r.rejected_reason) << "\n";
}

}  // namespace kvsim
