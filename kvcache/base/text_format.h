// Small text helpers every layer uses for messages and tables.
#ifndef KVSIM_KVCACHE_BASE_TEXT_FORMAT_H_
#define KVSIM_KVCACHE_BASE_TEXT_FORMAT_H_

#include <cstdint>
#include <string>
#include <vector>

namespace kvsim {

// printf-style formatting into a std::string (at most 511 characters).
std::string Format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// 1234567 -> "1,234,567".
std::string Thousands(int64_t v);

// Joins with `separator`: {"a", "b"} -> "a, b".
std::string Join(const std::vector<std::string>& parts, const std::string& separator = ", ");

// True when `s` begins with `prefix` (model_type families: "qwen3_vl" matches "qwen3_vl_moe").
inline bool StartsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// Levenshtein distance: the fewest single-character insertions, deletions and substitutions.
size_t EditDistance(const std::string& a, const std::string& b);

// Up to `limit` candidates ranked by similarity to `query` (case-insensitive edit distance, with
// substring matches first), for "did you mean" messages.
std::vector<std::string> ClosestMatches(const std::string& query, const std::vector<std::string>& candidates,
                                        size_t limit = 3);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BASE_TEXT_FORMAT_H_
