// libFuzzer target: the vLLM start-up log CSV reader behind `kvsim validate --logs`.
#include <cstdint>
#include <string>

#include "kvcache/base/error.h"
#include "kvcache/budget/vllm_log_rows.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = kvsim::fuzz::WriteScratchFile(data, size, "-logs.csv");
  try {
    (void)kvsim::ReadVllmLogRows(path);
  } catch (const kvsim::Error&) {
  }
  return 0;
}
