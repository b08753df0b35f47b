#include "cli/option_words.h"

#include "kvcache/base/error.h"
#include "kvcache/base/json_brackets.h"

namespace kvsim {
namespace {

size_t MatchingParenthesis(const std::string& text, size_t open) {
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')' && --depth == 0) return i;
  }
  return std::string::npos;
}

}  // namespace

std::vector<std::string> SplitOptionString(const std::string& text, const std::string& what) {
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
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {  // \r: a line pasted with CRLF endings
      if (in_token) out.push_back(cur), cur.clear(), in_token = false;
    } else if (c == '\\' && i + 1 < text.size() && text[i + 1] != ' ' && text[i + 1] != '\t') {
      // As in a shell, outside quotes a backslash keeps the next character literal ({\"method\":3} is
      // {"method":3}) and joins a line to the next. (A backslash before a space is a continuation
      // whose newline was lost in pasting: it stays its own word, which the translator skips.)
      if (text[i + 1] == '\r' && i + 2 < text.size() && text[i + 2] == '\n') ++i;  // CRLF continuation
      else if (text[i + 1] != '\n') cur += text[i + 1], in_token = true;
      ++i;
    } else if ((c == '$' && i + 1 < text.size() && text[i + 1] == '(') || c == '`') {
      // A command substitution or $((arithmetic)) is one word to a shell, spaces and all:
      // --max-num-seqs $(( 2 ** 6 )) gives one value (the expansion comes later, or is refused).
      const size_t end = c == '`' ? text.find('`', i + 1) : MatchingParenthesis(text, i + 1);
      if (end == std::string::npos) throw Error(what + ": unterminated " + (c == '`' ? "`" : "$(") + " in '" + text + "'");
      cur.append(text, i, end + 1 - i);
      i = end;
      in_token = true;
    } else if (!in_token && (c == '{' || c == '[') && text.find('\\', i) >= text.find_first_of(" \t\n", i)) {
      // A word that starts a JSON value (--speculative-config {"method": "ngram"}) runs to its
      // closing bracket: a shell would strip its quotes and split it at its spaces.
      const size_t end = JsonValueEnd(text, i, what);
      cur.append(text, i, end - i);
      i = end - 1;
      in_token = true;
    } else {
      cur += c;
      in_token = true;
    }
  }
  if (quote) throw Error(what + ": unterminated quote in '" + text + "'");
  if (in_token) out.push_back(cur);
  return out;
}

}  // namespace kvsim
