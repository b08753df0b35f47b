// Shared handling of malformed trace rows: an error naming file, line and column, or, with
// skip_bad_rows, a counted warning (the first 20 kept for the report).
#ifndef KVSIM_WORKLOADS_ROW_ERRORS_H_
#define KVSIM_WORKLOADS_ROW_ERRORS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kvsim {

class RowErrors {
 public:
  RowErrors(std::string path, bool skip_bad_rows) : path_(std::move(path)), skip_(skip_bad_rows) {}

  // Throws kvsim::Error "<file>:<line>: column <column>: <problem>" unless skipping; returns
  // normally (the caller then drops the row) when skipping.
  void Bad(int64_t line, const std::string& column, const std::string& problem);
  void Skip(int64_t line, const std::string& why);  // a row dropped by rule, never an error

  int64_t skipped() const { return skipped_; }
  const std::vector<std::string>& warnings() const { return warnings_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool skip_;
  int64_t skipped_ = 0;
  std::vector<std::string> warnings_;
};

// Strict parsers for trace cells: the whole cell must be the number. nullopt otherwise.
std::optional<int64_t> ParseInteger(std::string_view cell);
std::optional<double> ParseDecimal(std::string_view cell);
// The day of the last timestamp ParseDateTimeNs read, kept by a reader: a trace's rows mostly
// share their date, whose parse and calendar arithmetic are then skipped.
struct DayCache {
  char date[10] = {};  // "YYYY-MM-DD"
  int64_t seconds = 0;  // its midnight, seconds since 1970-01-01
  bool valid = false;
};
// "YYYY-MM-DD HH:MM:SS[.fraction]" (Azure), or ISO 8601 with a T and a zone (Z, +HH:MM, -HHMM),
// to nanoseconds since 1970-01-01 UTC (no zone: taken as UTC).
std::optional<int64_t> ParseDateTimeNs(std::string_view cell, DayCache* cache = nullptr);

}  // namespace kvsim

#endif  // KVSIM_WORKLOADS_ROW_ERRORS_H_
