#include "kvcache/base/json_file.h"

#include "kvcache/base/error.h"
#include "kvcache/base/line_reader.h"

namespace kvsim {

nlohmann::json ReadJsonFile(const std::string& path, const std::string& what) {
  // Read once through LineReader (a FIFO works; NUL bytes and over-long lines are errors with the
  // line number) and bound the whole document so a wrong path cannot exhaust memory.
  LineReader in(path, what);
  std::string text, line;
  while (in.Next(line)) {
    if (text.size() + line.size() > kMaxJsonFileBytes)
      throw Error(path + ":" + std::to_string(in.line_number()) + ": " + what + " is larger than " +
                  std::to_string(kMaxJsonFileBytes >> 20) + " MiB");
    text += line;
    text += '\n';
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    // Not only parse_error: a number too large for a double is out_of_range (found by fuzzing).
    // nlohmann's message says "at line L, column C" and what it expected: it locates the fault.
    // It may quote the offending bytes: keep the message printable.
    throw Error(path + ": malformed JSON: " + PrintableExcerpt(e.what(), 400));
  }
}

}  // namespace kvsim
