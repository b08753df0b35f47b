// libFuzzer target: every command's option parsing through the real entry point (RunKvsim), with
// argv built from the fuzz bytes (NUL or newline separated; the first byte picks the command).
// "--help" goes first, so each command stops after parsing and validating its options: nothing is
// written and nothing long runs. (Appended last, it followed a fuzzed "--" and became a positional
// argument: the command ran and wrote its --json file.) The target also works in a scratch
// directory. RunKvsim must map every failure to exit code 2; exit code 3 (an internal error: an
// untranslated exception) is a finding.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "cli/commands.h"

// Any file a command might still write lands in a scratch directory, never in the checkout.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const std::string dir = std::filesystem::temp_directory_path() / ("kvsim-fuzz-cli-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::current_path(dir);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const char* kCommands[] = {"capacity", "step", "calibrate", "replay", "sweep",
                                    "compare",  "models", "gpus",    "validate"};
  if (size < 1) return 0;
  std::vector<std::string> argv = {"kvsim", kCommands[data[0] % 9], "--help"};
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
  std::ostringstream out, err;
  const int code = kvsim::RunKvsim(argv, out, err);
  if (code == 3) {
    std::fprintf(stderr, "internal error for fuzzed options: %s\n", err.str().c_str());
    std::abort();
  }
  return 0;
}
