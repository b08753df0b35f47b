#include "kvcache/base/interrupt.h"

#include <csignal>
#include <cstring>

#include "kvcache/base/temp_file_registry.h"

namespace kvsim {
namespace {

// Signal-handler state: the one kind of global kvsim keeps.
std::atomic<bool> g_stop{false};
volatile std::sig_atomic_t g_stop_signal = 0;
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr int kFatalSignals[] = {SIGQUIT, SIGSEGV, SIGFPE, SIGBUS, SIGILL, SIGABRT};
constexpr int kMaxSignal = 65;
struct sigaction g_previous[kMaxSignal];

// Gives the signal its previous course (default action, or a sanitizer's handler) after the
// temporary files are gone. Only async-signal-safe calls.
void ResignalWithPrevious(int sig) {
  RemoveRegisteredTempFiles();
  ::sigaction(sig, &g_previous[sig], nullptr);
  ::raise(sig);
}

void OnStop(int sig) {
  if (g_stop_signal != 0) {  // asked twice: stop now
    ResignalWithPrevious(sig);
    return;
  }
  g_stop_signal = sig;
  g_stop.store(true);
}

void OnFatal(int sig) { ResignalWithPrevious(sig); }

bool g_installed[kMaxSignal];

// A signal the parent set to be ignored stays ignored (nohup, or a shell's background job
// ignoring SIGINT and SIGQUIT): the user asked for exactly that.
void Install(int sig, void (*handler)(int), int flags) {
  g_installed[sig] = false;
  if (::sigaction(sig, nullptr, &g_previous[sig]) != 0 || g_previous[sig].sa_handler == SIG_IGN) return;
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = flags;
  g_installed[sig] = ::sigaction(sig, &action, nullptr) == 0;
}

void Restore(int sig) {
  if (g_installed[sig]) ::sigaction(sig, &g_previous[sig], nullptr);
  g_installed[sig] = false;
}

}  // namespace

SignalScope::SignalScope() {
  g_stop.store(false);
  g_stop_signal = 0;
  // SA_RESTART: reads of a trace and writes of an output resume after the handler returns.
  for (int sig : kStopSignals) Install(sig, OnStop, SA_RESTART);
  for (int sig : kFatalSignals) Install(sig, OnFatal, SA_RESTART | SA_NODEFER);
}

SignalScope::~SignalScope() {
  for (int sig : kStopSignals) Restore(sig);
  for (int sig : kFatalSignals) Restore(sig);
}

const std::atomic<bool>& StopFlag() { return g_stop; }

int StopSignal() { return g_stop_signal; }

std::string StopReason() {
  switch (g_stop_signal) {
    case SIGINT: return "interrupted by SIGINT";
    case SIGTERM: return "interrupted by SIGTERM";
    case SIGHUP: return "interrupted by SIGHUP";
    default: return "interrupted by signal " + std::to_string(g_stop_signal);
  }
}

}  // namespace kvsim
