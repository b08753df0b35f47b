// What signals do to a kvsim command (installed by RunKvsim for every command):
//   SIGINT, SIGTERM, SIGHUP  the first one sets the stop flag: long commands poll it (the replay
//                            engine every step, sweep and compare between and inside points),
//                            finish what they have, write their outputs marked partial and exit
//                            128 + the signal (130, 143, 129). A second one ends the process at
//                            once, after removing every temporary output file.
//   SIGQUIT, and crashes     (SIGSEGV, SIGFPE, SIGBUS, SIGILL, SIGABRT): the temporary output files
//                            are removed, then the signal takes its previous course (core dump,
//                            a sanitizer's report).
// A signal that was ignored when kvsim started (nohup, a shell's background job) stays ignored.
// The flag and the signal number are process-wide because a handler cannot be handed state; they
// are only read through the functions below.
#ifndef KVSIM_KVCACHE_BASE_INTERRUPT_H_
#define KVSIM_KVCACHE_BASE_INTERRUPT_H_

#include <atomic>
#include <string>

namespace kvsim {

class SignalScope {
 public:
  // Installs the handlers and clears the flag; the destructor restores the previous handlers.
  SignalScope();
  ~SignalScope();
  SignalScope(const SignalScope&) = delete;
  SignalScope& operator=(const SignalScope&) = delete;
};

// True once a stop signal arrived (what ReplayHooks::stop and the sweep runners poll).
const std::atomic<bool>& StopFlag();
// The stop signal received, 0 when none.
int StopSignal();
// "interrupted by SIGTERM"; REQUIRES: StopSignal() != 0.
std::string StopReason();

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BASE_INTERRUPT_H_
