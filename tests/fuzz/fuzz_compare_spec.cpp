// libFuzzer target: a compare/sweep deployment spec ("--model X --quantization awq ...") split
// as the shell would and resolved into a runnable variant (options, model, GPU, replay settings);
// nothing is replayed. Boost option errors are expected rejections too.
#include <cstdint>
#include <string>

#include <boost/program_options/errors.hpp>

#include "kvcache/base/error.h"
#include "cli/variant_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static kvsim::ResolveCache cache;  // presets and GPUs parsed once, as compare does
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)kvsim::ParseVariant("a", {"--quiet"}, kvsim::SplitOptionString(text, "--a"), KVSIM_FUZZ_DATA_DIR, &cache);
  } catch (const kvsim::Error&) {
  } catch (const boost::program_options::error&) {
  }
  if (cache.models.size() > 64) cache.models.clear();  // fuzzed paths must not grow it without bound
  return 0;
}
