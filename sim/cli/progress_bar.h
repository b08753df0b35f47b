// A progress line on stderr for long runs (percent of trace, simulated time, ETA), drawn only when
// stderr is a terminal; and a scoped Ctrl-C flag that lets a replay stop cleanly.
#ifndef KVSIM_SIM_CLI_PROGRESS_BAR_H_
#define KVSIM_SIM_CLI_PROGRESS_BAR_H_

#include <atomic>
#include <chrono>
#include <csignal>
#include <ostream>

namespace kvsim {

class ProgressBar {
 public:
  ProgressBar(std::ostream& out, bool enabled) : out_(out), enabled_(enabled), start_(std::chrono::steady_clock::now()) {}
  // `fraction` in [0, 1] or negative when unknown; redraws at most 10 times a second.
  void Update(double fraction, int64_t simulated_ns);
  void Finish();

 private:
  std::ostream& out_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

// While alive, SIGINT sets flag() instead of killing the process (the previous handler is
// restored on destruction). One process-wide flag exists because a signal handler cannot capture
// state; it is only read through flag().
class ScopedInterruptFlag {
 public:
  ScopedInterruptFlag();
  ~ScopedInterruptFlag();
  ScopedInterruptFlag(const ScopedInterruptFlag&) = delete;
  ScopedInterruptFlag& operator=(const ScopedInterruptFlag&) = delete;
  const std::atomic<bool>& flag() const;

 private:
  void (*previous_)(int) = SIG_DFL;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_CLI_PROGRESS_BAR_H_
