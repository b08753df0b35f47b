#include "kvcache/base/json_file.h"

#include <cctype>

#include "kvcache/base/error.h"
#include "kvcache/base/json_brackets.h"
#include "kvcache/base/line_reader.h"

namespace kvsim {

namespace {

// Python's json.dumps writes an infinite float as the bare token Infinity (or -Infinity); outside
// strings it becomes the largest double, so a field kvsim reads is refused by its range check as
// any huge number is, and a field it does not read parses. NaN is left to the parser's error.
std::string InfinityAsLargestDouble(const std::string& text) {
  static constexpr std::string_view kToken = "Infinity";
  std::string out;
  out.reserve(text.size());
  JsonBrackets where;
  for (size_t i = 0; i < text.size(); ++i) {
    const bool word_start = i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1]));
    if (!where.in_string() && word_start && text.compare(i, kToken.size(), kToken) == 0) {
      out += "1.7976931348623157e308";
      i += kToken.size() - 1;
      continue;
    }
    where.Feed(text[i]);
    out += text[i];
  }
  return out;
}

}  // namespace

nlohmann::json ReadJsonFile(const std::string& path, const std::string& what, InfinityTokens infinity) {
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
  if (infinity == InfinityTokens::kReadAsLargestDouble) text = InfinityAsLargestDouble(text);
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
