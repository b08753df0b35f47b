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
  KVSIM_DCHECK(g.working_ctas <= g.ctas);
  const double chain = g.l2_steps * latency.l2_s + g.dram_steps * latency.dram_s;
  const double busy = g.working_ctas * chain + (g.ctas - g.working_ctas) * latency.l2_s;
  const double slots = static_cast<double>(sm_count) * CtaSlotsPerSm(g.warps);
  return std::max(chain, busy / slots);
}

}  // namespace kvsim
