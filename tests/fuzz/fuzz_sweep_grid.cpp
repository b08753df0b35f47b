// libFuzzer target: the sweep grid file (--grid FILE) and the texts of --sweep and --slo. The
// bytes are the grid file; the same bytes read as text are the --sweep axis and the --slo list.
#include <cstdint>
#include <string>

#include "kvcache/base/error.h"
#include "sim/sweep/sweep.h"
#include "sim/sweep/sweep_grid.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = kvsim::fuzz::WriteScratchFile(data, size, "-grid.json");
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)kvsim::ExpandGrid(kvsim::ReadGridFile(path));
  } catch (const kvsim::Error&) {
  }
  try {
    (void)kvsim::ExpandGrid({kvsim::ParseGridAxis(text)});
  } catch (const kvsim::Error&) {
  }
  try {
    (void)kvsim::ParseCriteria("goodput", text, 0.0);
  } catch (const kvsim::Error&) {
  }
  return 0;
}
