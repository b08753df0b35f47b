// A progress line on stderr for long runs (percent of trace, simulated time, ETA), drawn only when
// stderr is a terminal. (Ctrl-C and other signals: interrupt.h.)
#ifndef KVSIM_SIM_CLI_PROGRESS_BAR_H_
#define KVSIM_SIM_CLI_PROGRESS_BAR_H_

#include <chrono>
#include <cstdint>
#include <ostream>

namespace kvsim {

class ProgressBar {
 public:
  ProgressBar(std::ostream& out, bool enabled) : out_(out), enabled_(enabled), start_(std::chrono::steady_clock::now()) {}
  // `fraction` in [0, 1] or negative when unknown; `simulated_ns` negative: not shown (a plan's
  // progress counts configurations, not simulated time). Redraws at most 10 times a second.
  void Update(double fraction, int64_t simulated_ns);
  void Finish();

 private:
  std::ostream& out_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_CLI_PROGRESS_BAR_H_
