// JsonBrackets: where a JSON text stands, one character at a time: inside a string or not, and the
// brackets opened and not yet closed. kvsim needs this before a text is parsed: to find where a
// JSON value typed into an option ends (a compare spec, a --sweep axis), and to refuse a file
// nested too deeply for the parser's recursion.
#ifndef KVSIM_KVCACHE_BASE_JSON_BRACKETS_H_
#define KVSIM_KVCACHE_BASE_JSON_BRACKETS_H_

#include <cstddef>
#include <string>

namespace kvsim {

class JsonBrackets {
 public:
  // Feeds the next character. Returns false for a closing bracket that does not close the
  // innermost open one (or closes nothing); the state is then unchanged.
  bool Feed(char c);

  bool in_string() const { return in_string_; }
  size_t depth() const { return open_.size(); }
  // Outside every string and bracket: a value that started with a bracket has ended here.
  bool closed() const { return !in_string_ && open_.empty(); }

 private:
  std::string open_;  // the closing bracket each open one expects, innermost last
  bool in_string_ = false;
  bool escaped_ = false;
};

// Where the JSON value starting at text[start] (a '{' or '[') ends: one past its closing bracket.
// Throws kvsim::Error "WHAT: '...' has an unmatched ']'" or "WHAT: the JSON value '...' is not closed".
size_t JsonValueEnd(const std::string& text, size_t start, const std::string& what);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BASE_JSON_BRACKETS_H_
