#include "cli/progress_bar.h"

#include <cstdio>
#include <string>

namespace kvsim {
void ProgressBar::Update(double fraction, int64_t simulated_ns) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  drawn_ = true;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  char line[160];
  if (fraction >= 0) {
    const int filled = static_cast<int>(fraction * 30);
    const double eta = fraction > 0.01 ? elapsed * (1 - fraction) / fraction : 0;
    char simulated[48] = "";
    if (simulated_ns >= 0) std::snprintf(simulated, sizeof simulated, "  simulated %.0f s", static_cast<double>(simulated_ns) / 1e9);
    std::snprintf(line, sizeof line, "\r[%-30s] %5.1f%%%s  elapsed %.1f s  ETA %.1f s ",
                  std::string(static_cast<size_t>(filled), '#').c_str(), 100 * fraction, simulated, elapsed, eta);
  } else {
    std::snprintf(line, sizeof line, "\rsimulated %.0f s  elapsed %.1f s ", static_cast<double>(simulated_ns) / 1e9, elapsed);
  }
  out_ << line << std::flush;
}

void ProgressBar::Finish() {
  if (enabled_ && drawn_) out_ << "\r" << std::string(100, ' ') << "\r" << std::flush;
}

}  // namespace kvsim
