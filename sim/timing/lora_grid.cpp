#include "sim/timing/lora_grid.h"

#include <algorithm>

#include "kvcache/base/check.h"

namespace kvsim {

namespace {
constexpr int kMaxWarpsPerSm = 64;
constexpr int kMaxBlocksPerSm = 32;
}  // namespace

int CtaSlotsPerSm(int warps) {
  KVSIM_DCHECK(warps >= 1);
  return std::min(kMaxBlocksPerSm, std::max(1, kMaxWarpsPerSm / warps));
}

double GridSeconds(const LoraLaunchGrid& g, int sm_count, const MemoryLatency& latency) {
  if (sm_count <= 0 || g.working_ctas <= 0) return 0;
  KVSIM_DCHECK(g.idle_ctas >= 0 && g.working_ctas + g.idle_ctas <= g.ctas);
  const double idle_chain = (g.l2_steps + g.writeback_l2_steps) * latency.l2_s;
  const double chain = idle_chain + g.dram_steps * latency.dram_s;
  const double empty = g.ctas - g.working_ctas - g.idle_ctas;
  const double busy = g.working_ctas * chain + g.idle_ctas * idle_chain + empty * latency.l2_s;
  const double slots = static_cast<double>(sm_count) * CtaSlotsPerSm(g.warps);
  return std::max(chain, busy / slots);
}

}  // namespace kvsim
