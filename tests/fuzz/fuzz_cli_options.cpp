// libFuzzer target: every command's option parsing through the real entry point (RunKvsim), with
// argv built from the fuzz bytes (NUL or newline separated; the first byte picks the command).
// "--help" is appended so each command stops after parsing and validating its options: nothing
// is written and nothing long runs. RunKvsim must map every failure to exit code 2; exit code 3
// (an internal error: an untranslated exception) is a finding.
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "sim/cli/commands.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const char* kCommands[] = {"capacity", "step", "calibrate", "replay", "sweep",
                                    "compare",  "models", "gpus",    "validate"};
  if (size < 1) return 0;
  std::vector<std::string> argv = {"kvsim", kCommands[data[0] % 9]};
  std::string cur;
  for (size_t i = 1; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\0' || c == '\n') {
      argv.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) argv.push_back(cur);
  if (argv.size() > 64) return 0;
  argv.push_back("--help");
  std::ostringstream out, err;
  const int code = kvsim::RunKvsim(argv, out, err);
  if (code == 3) {
    std::fprintf(stderr, "internal error for fuzzed options: %s\n", err.str().c_str());
    std::abort();
  }
  return 0;
}
