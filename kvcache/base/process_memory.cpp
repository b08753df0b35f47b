#include "kvcache/base/process_memory.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace kvsim {

int64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size_pages = 0, resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages)) return 0;
  const long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? resident_pages * page : 0;
}

namespace {

// A number from a one-line kernel file; -1 when absent or "max" (no limit).
int64_t ReadNumber(const char* path) {
  std::ifstream in(path);
  int64_t v = -1;
  return in >> v ? v : -1;
}

}  // namespace

int64_t AvailableMemoryBytes() {
  int64_t available = 0;
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    int64_t kib = 0;
    if (fields >> kib) available = kib * 1024;
    break;
  }
  // A container's memory limit (cgroup v2) binds before the machine's.
  const int64_t limit = ReadNumber("/sys/fs/cgroup/memory.max"), used = ReadNumber("/sys/fs/cgroup/memory.current");
  if (limit > 0 && used >= 0) {
    const int64_t left = limit > used ? limit - used : 0;
    available = available > 0 ? std::min(available, left) : left;
  }
  return available;
}

}  // namespace kvsim
