#include "cli/option_words.h"

#include "kvcache/base/error.h"

namespace kvsim {

std::vector<std::string> SplitOptionString(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  bool in_token = false;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote) quote = 0;
      else cur += c;
    } else if (c == '"' || c == '\'') {
      quote = c;
      in_token = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_token) out.push_back(cur), cur.clear(), in_token = false;
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
