#include "kvcache/base/text_format.h"

#include <algorithm>
#include <cctype>
#include <cstdarg>
#include <cstdint>
#include <cstdio>

namespace kvsim {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Levenshtein distance by the two-row table: O(|a| x |b|).
size_t EditDistanceByTable(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitute = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min(substitute, std::min(prev[j], cur[j - 1]) + 1);
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// The same distance with the table's columns held as bit vectors (Myers 1999, in Hyyro's form for
// the distance between whole strings): O(|text|) word operations when the pattern fits in 64 bits.
// Every unknown flag or model name is ranked against a few hundred candidates, so this keeps a
// refused command line cheap.
size_t EditDistanceByBits(const std::string& pattern, const std::string& text) {
  const size_t m = pattern.size();
  if (m == 0) return text.size();
  uint64_t equal[256] = {};
  for (size_t i = 0; i < m; ++i) equal[static_cast<unsigned char>(pattern[i])] |= uint64_t{1} << i;
  const uint64_t last = uint64_t{1} << (m - 1);
  uint64_t plus_vertical = ~uint64_t{0}, minus_vertical = 0;
  size_t distance = m;
  for (const char c : text) {
    const uint64_t eq = equal[static_cast<unsigned char>(c)];
    const uint64_t xv = eq | minus_vertical;
    const uint64_t xh = (((eq & plus_vertical) + plus_vertical) ^ plus_vertical) | eq;
    uint64_t plus_horizontal = minus_vertical | ~(xh | plus_vertical);
    uint64_t minus_horizontal = plus_vertical & xh;
    if (plus_horizontal & last) ++distance;
    else if (minus_horizontal & last) --distance;
    // The table's first row counts up (j insertions), so a +1 enters at the bottom of each shift.
    plus_horizontal = (plus_horizontal << 1) | 1;
    minus_horizontal <<= 1;
    plus_vertical = minus_horizontal | ~(xv | plus_horizontal);
    minus_vertical = plus_horizontal & xv;
  }
  return distance;
}

}  // namespace

size_t EditDistance(const std::string& a, const std::string& b) {
  const std::string& shorter = a.size() <= b.size() ? a : b;
  const std::string& longer = a.size() <= b.size() ? b : a;
  return shorter.size() <= 64 ? EditDistanceByBits(shorter, longer) : EditDistanceByTable(a, b);
}

std::string Format(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  char buf[512];
  const int n = std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  return n < 0 ? std::string() : std::string(buf, std::min<size_t>(static_cast<size_t>(n), sizeof buf - 1));
}

std::string Thousands(int64_t v) {
  const uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  const std::string digits = std::to_string(magnitude);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (v < 0 ? "-" : "") + out;
}

std::string Join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? separator : "") + parts[i];
  return out;
}

std::vector<std::string> ClosestMatches(const std::string& query, const std::vector<std::string>& candidates,
                                        size_t limit) {
  // Anything worth suggesting is short (a Hugging Face repo id has at most 96 characters), so a
  // longer query is ranked by its first 96: a pasted paragraph must not cost len(query) x
  // len(candidate) per candidate, and past that length the ranking carries no information.
  constexpr size_t kComparedLength = 96;
  const std::string q = Lower(query.substr(0, kComparedLength));
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& c : candidates) {
    const std::string lc = Lower(c);
    size_t score = EditDistance(q, lc);
    if (!q.empty() && lc.find(q) != std::string::npos) score = 0;
    scored.emplace_back(score, c);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < limit; ++i) out.push_back(scored[i].second);
  return out;
}

}  // namespace kvsim
