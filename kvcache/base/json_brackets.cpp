#include "kvcache/base/json_brackets.h"

#include "kvcache/base/check.h"
#include "kvcache/base/error.h"

namespace kvsim {

bool JsonBrackets::Feed(char c) {
  if (in_string_) {
    if (escaped_) escaped_ = false;
    else if (c == '\\') escaped_ = true;
    else if (c == '"') in_string_ = false;
    return true;
  }
  if (c == '"') {
    in_string_ = true;
  } else if (c == '{' || c == '[') {
    open_ += c == '{' ? '}' : ']';
  } else if (c == '}' || c == ']') {
    if (open_.empty() || open_.back() != c) return false;
    open_.pop_back();
  }
  return true;
}

size_t JsonValueEnd(const std::string& text, size_t start, const std::string& what) {
  KVSIM_DCHECK(start < text.size() && (text[start] == '{' || text[start] == '['));
  JsonBrackets brackets;
  for (size_t i = start; i < text.size(); ++i) {
    if (!brackets.Feed(text[i]))
      throw Error(what + ": '" + text.substr(start, i + 1 - start) + "' has an unmatched '" + text[i] + "'");
    if (brackets.closed()) return i + 1;
  }
  throw Error(what + ": the JSON value '" + text.substr(start) + "' is not closed");
}

}  // namespace kvsim
