// Shared by the libFuzzer targets: the readers take paths (they stream files, FIFOs and stdin),
// so each input is written to one scratch file per process and read back from there.
#ifndef KVSIM_TESTS_FUZZ_FUZZ_INPUT_H_
#define KVSIM_TESTS_FUZZ_FUZZ_INPUT_H_

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace kvsim::fuzz {

// Writes `data` to a per-process scratch file (in $KVSIM_FUZZ_SCRATCH, else /dev/shm, else /tmp:
// memory-backed where possible, millions of rewrites) and returns its path.
inline std::string WriteScratchFile(const uint8_t* data, size_t size, const char* suffix) {
  const char* env = std::getenv("KVSIM_FUZZ_SCRATCH");
  const std::string dir = env && *env ? env : ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  const std::string path = dir + "/kvsim-fuzz-" + std::to_string(::getpid()) + suffix;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  return path;
}

}  // namespace kvsim::fuzz

#endif  // KVSIM_TESTS_FUZZ_FUZZ_INPUT_H_
