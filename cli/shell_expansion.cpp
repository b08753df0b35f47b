#include "cli/shell_expansion.h"

#include <cctype>
#include <cstdint>
#include <optional>

#include "kvcache/base/error.h"

namespace kvsim {
namespace {

bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The value of the last NAME=value, if the text sets NAME.
std::optional<std::string> Lookup(const std::string& name, const std::vector<std::string>& assignments) {
  std::optional<std::string> value;
  for (const std::string& a : assignments)
    if (a.size() > name.size() && a.compare(0, name.size(), name) == 0 && a[name.size()] == '=')
      value = a.substr(name.size() + 1);
  return value;
}

// Where the bracket opened at `open` closes (nesting counted), or npos.
size_t Matching(const std::string& text, size_t open, char opening, char closing) {
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    if (text[i] == opening) ++depth;
    if (text[i] == closing && --depth == 0) return i;
  }
  return std::string::npos;
}

[[noreturn]] void RefuseCommand(const std::string& substitution) {
  throw Error("'" + substitution + "' in the pasted command line is a command substitution: a shell would run the "
              "command and put its output there; kvsim runs no commands, so put the value there");
}

// A shell's $((...)) over 64-bit integers: + - * / % ** and parentheses, unary signs, decimal, 0x hex
// and 0-prefixed octal numbers, variables by name or as $NAME / ${NAME}. Overflow and division by zero
// are errors (a shell wraps or stops), and so is anything else a shell's arithmetic has (comparisons,
// bit operations, assignment): kvsim would only be guessing what the line meant.
class Arithmetic {
 public:
  Arithmetic(const std::string& text, const std::vector<std::string>& assignments, const std::string& whole, int depth)
      : text_(text), assignments_(assignments), whole_(whole), depth_(depth) {}

  int64_t Evaluate() {
    const int64_t v = Sum();
    Space();
    if (at_ != text_.size()) Fail("'" + text_.substr(at_) + "' is not arithmetic kvsim evaluates");
    return v;
  }

 private:
  [[noreturn]] void Fail(const std::string& why) const {
    throw Error("'" + whole_ + "' in the pasted command line: " + why +
                " (kvsim evaluates integer + - * / % ** and parentheses, as a shell's $((...)) does)");
  }
  void Space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  bool Take(const char* op) {
    Space();
    const std::string s = op;
    if (text_.compare(at_, s.size(), s) != 0) return false;
    // `*` is not the start of `**`, and `+`/`-` not of `++`/`--` (increments need a variable to change).
    const size_t next = at_ + s.size();
    if ((s == "*" || s == "+" || s == "-") && next < text_.size() && text_[next] == s[0]) return false;
    at_ = next;
    return true;
  }
  [[noreturn]] void Overflow() const { Fail("the result overflows 64-bit integers"); }
  int64_t Add(int64_t a, int64_t b) const {
    int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r)) Overflow();
    return r;
  }
  int64_t Subtract(int64_t a, int64_t b) const {
    int64_t r = 0;
    if (__builtin_sub_overflow(a, b, &r)) Overflow();
    return r;
  }
  int64_t Multiply(int64_t a, int64_t b) const {
    int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) Overflow();
    return r;
  }
  int64_t Sum() {
    int64_t v = Product();
    for (;;) {
      if (Take("+")) {
        v = Add(v, Product());
      } else if (Take("-")) {
        v = Subtract(v, Product());
      } else {
        return v;
      }
    }
  }
  int64_t Product() {
    int64_t v = Power();
    for (;;) {
      if (Take("*")) {
        v = Multiply(v, Power());
      } else if (Take("/") || Take("%")) {
        const bool divide = text_[at_ - 1] == '/';
        const int64_t rhs = Power();
        if (rhs == 0) Fail("division by zero");
        if (v == INT64_MIN && rhs == -1) Overflow();
        v = divide ? v / rhs : v % rhs;
      } else {
        return v;
      }
    }
  }
  int64_t Power() {
    const int64_t base = Unary();
    if (!Take("**")) return base;
    const int64_t exponent = Power();  // right-associative, as in bash
    if (exponent < 0) Fail("a negative exponent");
    // 0, 1 and -1 stay in range for any exponent; any other base overflows within 63 multiplications.
    if (base == 0 || base == 1) return exponent == 0 ? 1 : base;
    if (base == -1) return exponent % 2 == 0 ? 1 : -1;
    int64_t v = 1;
    for (int64_t i = 0; i < exponent; ++i) v = Multiply(v, base);
    return v;
  }
  int64_t Unary() {
    if (Take("+")) return Unary();
    if (Take("-")) {
      const int64_t v = Unary();
      if (v == INT64_MIN) Overflow();
      return -v;
    }
    return Primary();
  }
  int64_t Primary() {
    Space();
    if (at_ >= text_.size()) Fail("the expression ends where a number was expected");
    const char c = text_[at_];
    if (c == '(') {
      ++at_;
      const int64_t v = Sum();
      if (!Take(")")) Fail("a parenthesis is not closed");
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) return Number();
    if (c == '$' || IsNameStart(c)) return Variable();
    Fail("'" + std::string(1, c) + "' is not arithmetic kvsim evaluates");
  }
  int64_t Number() {
    int base = 10;
    if (text_[at_] == '0' && at_ + 1 < text_.size() && (text_[at_ + 1] == 'x' || text_[at_ + 1] == 'X')) {
      base = 16;
      at_ += 2;
    } else if (text_[at_] == '0') {
      base = 8;
    }
    const size_t start = at_;
    int64_t v = 0;
    while (at_ < text_.size() && std::isalnum(static_cast<unsigned char>(text_[at_]))) {
      const char d = static_cast<char>(std::tolower(static_cast<unsigned char>(text_[at_])));
      const int digit = std::isdigit(static_cast<unsigned char>(d)) ? d - '0' : d - 'a' + 10;
      if (digit >= base) Fail("'" + text_.substr(start) + "' is not a base-" + std::to_string(base) + " number");
      v = Add(Multiply(v, base), digit);
      ++at_;
    }
    if (base == 16 && at_ == start) Fail("0x without hexadecimal digits");
    return v;
  }
  int64_t Variable() {
    bool braced = false;
    if (text_[at_] == '$') {
      ++at_;
      braced = at_ < text_.size() && text_[at_] == '{';
      if (braced) ++at_;
    }
    const size_t start = at_;
    while (at_ < text_.size() && IsNameChar(text_[at_])) ++at_;
    const std::string name = text_.substr(start, at_ - start);
    if (name.empty() || (braced && (at_ >= text_.size() || text_[at_++] != '}'))) Fail("a variable kvsim cannot read");
    const std::optional<std::string> value = Lookup(name, assignments_);
    if (!value)
      Fail(name + " is not set in the pasted text (a shell would read it as 0); put its value there, or NAME=value "
           "before the command");
    if (depth_ >= 16) Fail(name + " refers to itself");
    // A shell evaluates a variable's value as an expression of its own.
    return Arithmetic(value->empty() ? "0" : *value, assignments_, whole_, depth_ + 1).Evaluate();
  }

  const std::string& text_;
  const std::vector<std::string>& assignments_;
  const std::string& whole_;
  const int depth_;
  size_t at_ = 0;
};

}  // namespace

std::string ExpandShellWord(const std::string& word, const std::vector<std::string>& assignments) {
  std::string out;
  for (size_t i = 0; i < word.size(); ++i) {
    if (word[i] == '`') {
      const size_t close = word.find('`', i + 1);
      RefuseCommand(word.substr(i, close == std::string::npos ? std::string::npos : close - i + 1));
    }
    if (word[i] != '$' || i + 1 >= word.size()) {
      out += word[i];
      continue;
    }
    const char next = word[i + 1];
    if (next == '(') {
      const size_t close = Matching(word, i + 1, '(', ')');
      const bool arithmetic = i + 2 < word.size() && word[i + 2] == '(' && close != std::string::npos &&
                              Matching(word, i + 2, '(', ')') == close - 1;
      if (!arithmetic) RefuseCommand(word.substr(i, close == std::string::npos ? std::string::npos : close - i + 1));
      const std::string whole = word.substr(i, close - i + 1);
      out += std::to_string(Arithmetic(word.substr(i + 3, close - 1 - (i + 3)), assignments, whole, 0).Evaluate());
      i = close;
      continue;
    }
    if (next == '{') {
      const size_t close = Matching(word, i + 1, '{', '}');
      if (close == std::string::npos) {
        out += word[i];
        continue;
      }
      const std::string whole = word.substr(i, close - i + 1), inner = word.substr(i + 2, close - i - 2);
      size_t n = 0;
      while (n < inner.size() && IsNameChar(inner[n])) ++n;
      const std::string name = inner.substr(0, n), op = inner.substr(n);
      const bool colon = !op.empty() && op[0] == ':';
      const char kind = op.size() > (colon ? 1u : 0u) ? op[colon ? 1 : 0] : '\0';
      // ${#x}, ${x:0:3}, ${x/a/b}: forms that edit a value, left as written for the flag to refuse.
      if (name.empty() || !IsNameStart(name[0]) || (!op.empty() && kind != '-' && kind != '=' && kind != '+')) {
        out += whole;
        i = close;
        continue;
      }
      const std::optional<std::string> value = Lookup(name, assignments);
      const bool usable = value && (!colon || !value->empty());
      const std::string alternative = op.empty() ? std::string() : op.substr(colon ? 2 : 1);
      if (op.empty()) out += value ? *value : whole;
      else if (kind == '+') out += usable ? ExpandShellWord(alternative, assignments) : std::string();
      else out += usable ? *value : ExpandShellWord(alternative, assignments);  // `-` and `=`: the default
      i = close;
      continue;
    }
    size_t j = i + 1;
    while (j < word.size() && IsNameChar(word[j])) ++j;
    const std::string name = word.substr(i + 1, j - i - 1);
    const std::optional<std::string> value = name.empty() || !IsNameStart(name[0]) ? std::nullopt : Lookup(name, assignments);
    // Not a variable ($1.50), or one the text does not set: left as written; the flag that reads it
    // refuses it if it matters (the model, a number), and a `$` inside other text may be literal.
    if (!value) {
      out += word[i];
      continue;
    }
    out += *value;
    i = j - 1;
  }
  return out;
}

std::vector<std::string> ExpandAssignments(const std::vector<std::string>& assignments) {
  std::vector<std::string> out;
  for (const std::string& a : assignments) {
    const size_t eq = a.find('=');
    try {
      out.push_back(a.substr(0, eq + 1) + ExpandShellWord(a.substr(eq + 1), out));
    } catch (const Error&) {
      out.push_back(a);  // refused where it is used: a variable the server never reads stays harmless
    }
  }
  return out;
}

}  // namespace kvsim
