#include "kvcache/base/csv_cells.h"

#include <cstring>

namespace kvsim {
namespace {

bool IsTrimmed(char c) { return c == ' ' || c == '\t'; }

}  // namespace

// speed: the cells' strings are reused from the previous line (a trace's timestamp cells are too
// long for the small-string buffer, so building fresh strings allocated one per cell per row).
bool SplitCsvLine(std::string_view line, std::vector<std::string>& cells) {
  size_t count = 0;
  auto next_cell = [&]() -> std::string& {
    if (count == cells.size()) cells.emplace_back();
    std::string& cell = cells[count++];
    cell.clear();
    return cell;
  };
  const size_t n = line.size();
  if (std::memchr(line.data(), '"', n) == nullptr) {
    // speed: no quotes (every trace row kvsim reads): cells end at the commas memchr finds.
    const char* p = line.data();
    const char* const end = p + n;
    while (true) {
      const char* comma = static_cast<const char*>(std::memchr(p, ',', static_cast<size_t>(end - p)));
      const char* stop = comma ? comma : end;
      const char* first = p;
      const char* last = stop;
      while (first < last && IsTrimmed(*first)) ++first;
      while (last > first && IsTrimmed(last[-1])) --last;
      next_cell().assign(first, static_cast<size_t>(last - first));
      if (!comma) break;
      p = comma + 1;
    }
    cells.resize(count);
    return true;
  }
  size_t i = 0;
  while (true) {
    while (i < n && IsTrimmed(line[i])) ++i;
    std::string& cell = next_cell();
    if (i < n && line[i] == '"') {
      ++i;
      while (true) {
        if (i >= n) return false;  // unterminated quote
        if (line[i] == '"') {
          if (i + 1 < n && line[i + 1] == '"') {
            cell += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        cell += line[i++];
      }
      while (i < n && IsTrimmed(line[i])) ++i;
      if (i < n && line[i] != ',') return false;  // text after the closing quote
    } else {
      const size_t start = i;
      while (i < n && line[i] != ',') ++i;
      size_t end = i;
      while (end > start && IsTrimmed(line[end - 1])) --end;
      cell.assign(line, start, end - start);
    }
    if (i >= n) {
      cells.resize(count);
      return true;
    }
    ++i;  // the comma
  }
}

bool SplitCsvLineViews(std::string_view line, std::vector<std::string>& storage, std::vector<std::string_view>& cells) {
  cells.clear();
  const size_t n = line.size();
  if (std::memchr(line.data(), '"', n) != nullptr) {
    if (!SplitCsvLine(line, storage)) return false;
    cells.assign(storage.begin(), storage.end());
    return true;
  }
  const char* p = line.data();
  const char* const end = p + n;
  while (true) {
    const char* comma = static_cast<const char*>(std::memchr(p, ',', static_cast<size_t>(end - p)));
    const char* first = p;
    const char* last = comma ? comma : end;
    while (first < last && IsTrimmed(*first)) ++first;
    while (last > first && IsTrimmed(last[-1])) --last;
    cells.emplace_back(first, static_cast<size_t>(last - first));
    if (!comma) return true;
    p = comma + 1;
  }
}

bool IsBlankLine(std::string_view line) {
  // speed: a row's first character settles it almost always.
  if (!line.empty() && line[0] != ' ' && line[0] != '\t' && line[0] != '\r') return false;
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

}  // namespace kvsim
