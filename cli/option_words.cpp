#include "cli/option_words.h"

#include "kvcache/base/error.h"

namespace kvsim {
namespace {

// The JSON object or array that starts at text[i] ('{' or '['), verbatim: its strings keep their
// quotes and escapes and its spaces stay inside the word. Returns the index just past it.
size_t TakeJson(const std::string& text, size_t i, std::string& cur) {
  std::string open;
  bool in_string = false, escaped = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    cur += c;
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      open += c == '{' ? '}' : ']';
    } else if (c == '}' || c == ']') {
      if (open.empty() || open.back() != c) throw Error("unmatched '" + std::string(1, c) + "' in '" + text + "'");
      open.pop_back();
      if (open.empty()) return i + 1;
    }
  }
  throw Error("unclosed JSON value in '" + text + "'");
}

}  // namespace

std::vector<std::string> SplitOptionString(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  bool in_token = false;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote) {
      // As in a shell, a backslash inside double quotes keeps a quote or a backslash literal:
      // "{\"method\": \"ngram\"}" is one JSON word.
      if (quote == '"' && c == '\\' && i + 1 < text.size() && (text[i + 1] == '"' || text[i + 1] == '\\')) cur += text[++i];
      else if (c == quote) quote = 0;
      else cur += c;
    } else if (c == '"' || c == '\'') {
      quote = c;
      in_token = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_token) out.push_back(cur), cur.clear(), in_token = false;
    } else if (!in_token && (c == '{' || c == '[')) {
      // A word that starts a JSON value (--speculative-config {"method": "ngram"}) runs to its
      // closing bracket: a shell would strip its quotes and split it at its spaces.
      i = TakeJson(text, i, cur) - 1;
      in_token = true;
    } else {
      cur += c;
      in_token = true;
    }
  }
  if (quote) throw Error("unterminated quote in '" + text + "'");
  if (in_token) out.push_back(cur);
  return out;
}

}  // namespace kvsim
