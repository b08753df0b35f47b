#include "workloads/row_errors.h"

#include <cmath>
#include <cstring>
#include <optional>

#include "kvcache/base/checked_math.h"
#include "kvcache/base/error.h"
#include "kvcache/base/line_reader.h"
#include "workloads/request_source.h"

namespace kvsim {

void RowErrors::Bad(int64_t line, const std::string& column, const std::string& problem) {
  // Cells quoted in `problem` come from the file: keep messages (and the JSON warnings made of
  // them) valid UTF-8 and one line long.
  const std::string msg = path_ + ":" + std::to_string(line) + ": column " + PrintableExcerpt(column) + ": " +
                          PrintableExcerpt(problem, 300);
  if (!skip_) throw Error(msg + " (--skip-bad-rows skips such rows)");
  ++skipped_;
  if (warnings_.size() < 20) warnings_.push_back(msg);
}

void RowErrors::Skip(int64_t line, const std::string& why) {
  ++skipped_;
  if (warnings_.size() < 20) warnings_.push_back(path_ + ":" + std::to_string(line) + ": " + PrintableExcerpt(why, 300));
}

std::optional<int64_t> ParseInteger(std::string_view cell) {
  if (cell.empty()) return std::nullopt;
  size_t i = cell[0] == '-' || cell[0] == '+' ? 1 : 0;
  if (i == cell.size()) return std::nullopt;
  int64_t v = 0;
  for (; i < cell.size(); ++i) {
    if (static_cast<unsigned>(cell[i] - '0') >= 10u) {  // not an ASCII digit (std::isdigit would ask the locale)
      // Accept "123.0" written by tools that store integers as floats.
      auto d = ParseDecimal(cell);
      if (d && *d == std::floor(*d) && std::abs(*d) < 9e15) return static_cast<int64_t>(*d);
      return std::nullopt;
    }
    if (v > (INT64_MAX - 9) / 10) return std::nullopt;
    v = v * 10 + (cell[i] - '0');
  }
  return cell[0] == '-' ? -v : v;
}

std::optional<double> ParseDecimal(std::string_view view) {
  if (view.empty()) return std::nullopt;
  // std::stod also reads hexadecimal ("0x10" is 16) and "inf"/"nan": a trace cell is a decimal, so only
  // digits, a sign, a point and an exponent pass.
  for (const char c : view)
    if (static_cast<unsigned>(c - '0') >= 10u && c != '+' && c != '-' && c != '.' && c != 'e' && c != 'E')
      return std::nullopt;
  try {
    const std::string cell(view);
    size_t used = 0;
    const double v = std::stod(cell, &used);
    if (used == cell.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

std::optional<int64_t> ParseDateTimeNs(std::string_view s, DayCache* cache) {
  // YYYY-MM-DD[ T]HH:MM:SS[.f...][Z|±HH[:MM]]
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':')
    return std::nullopt;
  // speed: ASCII digits tested directly (std::isdigit consults the locale on every call).
  auto digit = [](char c) { return static_cast<unsigned>(c - '0') < 10u; };
  auto num = [&](size_t pos, size_t len) -> int64_t {
    int64_t v = 0;
    for (size_t i = pos; i < pos + len; ++i) {
      if (!digit(s[i])) return -1;
      v = v * 10 + (s[i] - '0');
    }
    return v;
  };
  int64_t day_seconds = 0;
  if (cache && cache->valid && std::memcmp(s.data(), cache->date, sizeof(cache->date)) == 0) {
    day_seconds = cache->seconds;  // the same (valid) date as the row before
  } else {
    const int64_t y = num(0, 4), mo = num(5, 2), d = num(8, 2);
    // Years before 1970 or after 2262 do not fit int64 nanoseconds since 1970 (nor a real log).
    if (y < 1970 || y > 2262 || mo < 1 || mo > 12 || d < 1 || d > 31) return std::nullopt;
    // A day the month does not have (2023-02-30) would run on into the next month.
    static constexpr int64_t kMonthDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (d > kMonthDays[mo - 1] + (mo == 2 && leap ? 1 : 0)) return std::nullopt;
    // Days from civil (proleptic Gregorian), Howard Hinnant's algorithm.
    const int64_t yy = y - (mo <= 2);
    const int64_t era = (yy >= 0 ? yy : yy - 399) / 400;
    const int64_t yoe = yy - era * 400;
    const int64_t doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    day_seconds = (era * 146097 + doe - 719468) * 86400;
    if (cache) {
      std::memcpy(cache->date, s.data(), sizeof(cache->date));
      cache->seconds = day_seconds;
      cache->valid = true;
    }
  }
  const int64_t h = num(11, 2), mi = num(14, 2), se = num(17, 2);
  if (h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 60) return std::nullopt;
  // ISO 8601 exports end in a zone: Z, +HH:MM, +HHMM or +HH (and - forms); the time is taken to UTC.
  size_t zone = s.size();
  int64_t offset_s = 0;
  for (size_t i = 19; i < s.size(); ++i) {
    if (s[i] == 'Z' || s[i] == 'z' || s[i] == '+' || s[i] == '-') {
      zone = i;
      break;
    }
  }
  if (zone < s.size()) {
    const std::string_view z = s.substr(zone);
    if (z == "Z" || z == "z") {
      offset_s = 0;
    } else {
      const bool colon = z.size() == 6 && z[3] == ':';
      if (!(z.size() == 3 || z.size() == 5 || colon)) return std::nullopt;
      const int64_t zh = num(zone + 1, 2), zm = z.size() == 3 ? 0 : num(zone + (colon ? 4 : 3), 2);
      if (zh < 0 || zh > 23 || zm < 0 || zm > 59) return std::nullopt;
      offset_s = (z[0] == '-' ? -1 : 1) * (zh * 60 + zm) * 60;
    }
  }
  int64_t frac_ns = 0;
  if (zone > 19) {
    if (s[19] != '.') return std::nullopt;
    if (zone > 40) return std::nullopt;  // more digits than nanoseconds need
    // The first nine digits are the nanoseconds (later ones are checked, not used).
    static constexpr int64_t kScale[10] = {1000000000, 100000000, 10000000, 1000000, 100000, 10000, 1000, 100, 10, 1};
    size_t digits = 0;
    for (size_t i = 20; i < zone; ++i) {
      if (!digit(s[i])) return std::nullopt;
      if (digits < 9) frac_ns = frac_ns * 10 + (s[i] - '0'), ++digits;
    }
    frac_ns *= kScale[digits];
  }
  const int64_t seconds = day_seconds + (h * 60 + mi) * 60 + se - offset_s;  // < 2^39: cannot overflow
  if (seconds < 0) return std::nullopt;
  auto ns = CheckedMul(seconds, 1000000000LL);
  if (ns) ns = CheckedAdd(*ns, frac_ns);
  if (!ns || *ns >= kMaxArrivalNs) return std::nullopt;  // late 2262 and beyond
  return ns;
}

}  // namespace kvsim
