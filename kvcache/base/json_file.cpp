#include "kvcache/base/json_file.h"

#include "kvcache/base/error.h"
#include "kvcache/base/json_brackets.h"
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
  std::string why;
  std::optional<nlohmann::json> j = ParseJsonText(text, &why);
  if (!j) throw Error(path + ": malformed JSON: " + why);
  return std::move(*j);
}

std::optional<nlohmann::json> ParseJsonText(std::string_view text, std::string* why) {
  // The depth is counted before parsing, outside strings. A bracket that closes nothing is left to
  // the parser, whose message locates it.
  JsonBrackets brackets;
  size_t line = 1;
  for (const char c : text) {
    if (c == '\n') ++line;
    if (!brackets.Feed(c)) break;
    if (brackets.depth() > static_cast<size_t>(kMaxJsonDepth)) {
      *why = "line " + std::to_string(line) + ": nested deeper than " + std::to_string(kMaxJsonDepth) + " levels";
      return std::nullopt;
    }
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    // Not only parse_error: a number too large for a double is out_of_range (found by fuzzing).
    // nlohmann's message says "at line L, column C" and what it expected: it locates the fault.
    // It may quote the offending bytes: keep the message printable.
    *why = PrintableExcerpt(e.what(), 400);
    return std::nullopt;
  }
}

}  // namespace kvsim
