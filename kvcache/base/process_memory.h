// What this process holds in memory and what the machine can still give it, read from the kernel
// (/proc), so a run can estimate its own needs before it grows past the machine instead of being
// killed by the kernel part way (Linux overcommits: an allocation that will not fit succeeds and
// the process dies when the pages are touched).
#ifndef KVSIM_BASE_PROCESS_MEMORY_H_
#define KVSIM_BASE_PROCESS_MEMORY_H_

#include <cstdint>

namespace kvsim {

// Resident bytes of this process now (0 when unknown).
int64_t ResidentBytes();
// Bytes the machine can still hand out without swapping (MemAvailable; 0 when unknown).
int64_t AvailableMemoryBytes();

}  // namespace kvsim

#endif  // KVSIM_BASE_PROCESS_MEMORY_H_
