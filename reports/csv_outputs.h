// The replay's CSV outputs, written as the replay runs (constant memory) to temporary files that
// are renamed into place by Commit(); a run that fails or is abandoned leaves no half file.
//   time series  time_s,running,waiting,used_blocks,<the six waste shares>,preemptions: one row per
//                step, or per --sample-interval (the first step at or after each multiple)
//   requests     id,arrival_s,admitted_s,first_token_s,finished_s,prompt_tokens,output_tokens,
//                cached_tokens,preemptions,status ("finished" or "rejected: <reason>")
// An interrupted replay's files keep the rows written so far and end with "# partial: <reason>".
#ifndef KVSIM_REPORTS_CSV_OUTPUTS_H_
#define KVSIM_REPORTS_CSV_OUTPUTS_H_

#include <cstdint>
#include <string>

#include "kvcache/base/atomic_file.h"
#include "sim/engine/replay_observer.h"

namespace kvsim {

// Appends the partial marker line (when `partial_reason` is not empty) and commits.
void CommitCsv(AtomicOutputFile& file, const std::string& partial_reason);

class TimeSeriesCsv final : public ReplayObserver {
 public:
  // Throws kvsim::Error naming `path` when it cannot be created. `sample_interval_s` 0: every step.
  TimeSeriesCsv(const std::string& path, double sample_interval_s);
  void OnStep(const StepSample& s) override;
  // Sampled (--sample-interval): only the run's steps that take a row are built.
  void OnStepRun(const StepRun& run) override;
  // `partial_reason` non-empty: the replay was cut short; the file ends with "# partial: <reason>".
  void Commit(const std::string& partial_reason = {}) { CommitCsv(file_, partial_reason); }

 private:
  void WriteRow(const StepSample& s);

  AtomicOutputFile file_;
  int64_t interval_ns_ = 0;
  int64_t next_sample_ns_ = 0;
};

class RequestsCsv final : public ReplayObserver {
 public:
  explicit RequestsCsv(const std::string& path);
  void OnRequestDone(const RequestRecord& r) override;
  void Commit(const std::string& partial_reason = {}) { CommitCsv(file_, partial_reason); }

 private:
  AtomicOutputFile file_;
};

}  // namespace kvsim

#endif  // KVSIM_REPORTS_CSV_OUTPUTS_H_
