// libFuzzer target: every trace format's reader. The first byte picks the format (or detection
// from the header), the second the reader options; the rest is the file. Every request is read
// through the window (start/duration/rate-scale/repeat from the option byte), and the warnings
// are serialised as JSON as the reports do, which fails on text that is not UTF-8.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "kvcache/base/error.h"
#include "tests/fuzz/fuzz_input.h"
#include "workloads/trace_readers.h"
#include "workloads/trace_window.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const uint8_t format_byte = data[0], flags = data[1];
  const std::string path = kvsim::fuzz::WriteScratchFile(data + 2, size - 2, "-trace");
  kvsim::TraceReaderOptions o;
  o.path = path;
  o.skip_bad_rows = (flags & 1) != 0;
  o.model_filter = (flags & 2) ? "ChatGPT" : "";
  o.arrival_column = "t";
  o.prompt_column = "p";
  o.output_column = "o";
  o.time_unit = static_cast<kvsim::TimeUnit>((flags >> 2) % 5);
  kvsim::WindowOptions w;
  w.max_requests = 5000;  // bounds the time per input
  w.start_s = (flags & 32) ? 1.0 : 0.0;
  w.duration_s = (flags & 64) ? 10.0 : 0.0;
  w.rate_scale = (flags & 128) ? 1e-3 : 1e6;
  w.repeat = (flags & 16) ? 2 : 1;
  try {
    const int choice = format_byte % 7;
    o.format = choice == 6 ? kvsim::DetectTraceFormat(path) : static_cast<kvsim::TraceFormat>(choice);
    auto open = [&] {
      return kvsim::OpenTraceReader(o, kvsim::ArrivalGenerator(kvsim::ArrivalKind::kPoisson, 10.0, 1.0, 7));
    };
    auto source = kvsim::ApplyWindow(open, w);
    while (source->Next()) {
    }
    nlohmann::json warnings = source->warnings();
    (void)warnings.dump();
  } catch (const kvsim::Error&) {
  }
  return 0;
}
