#include "kvcache/base/temp_file_registry.h"

#include <unistd.h>

#include <array>
#include <atomic>
#include <climits>
#include <cstring>

namespace kvsim {
namespace {

// A slot is claimed (kClaimed) while its path is copied in, then published (kLive) so a handler
// never reads a half-written path. A command has at most a handful of outputs open at once.
enum SlotState : int { kFree = 0, kClaimed = 1, kLive = 2 };
constexpr int kSlots = 64;
struct Slot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX] = {};
};
static_assert(std::atomic<int>::is_always_lock_free, "signal handlers need lock-free atomics");

std::array<Slot, kSlots> g_slots;  // signal-handler state: the one kind of global kvsim keeps

}  // namespace

int RegisterTempFile(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!g_slots[i].state.compare_exchange_strong(expected, kClaimed)) continue;
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    g_slots[i].state.store(kLive, std::memory_order_release);
    return i;
  }
  return -1;
}

void UnregisterTempFile(int handle) {
  if (handle < 0 || handle >= kSlots) return;
  g_slots[handle].state.store(kFree, std::memory_order_release);
}

void RemoveRegisteredTempFiles() {
  for (Slot& s : g_slots)
    if (s.state.load(std::memory_order_acquire) == kLive) ::unlink(s.path);
}

int RegisteredTempFileCount() {
  int n = 0;
  for (const Slot& s : g_slots) n += s.state.load() == kLive;
  return n;
}

}  // namespace kvsim
