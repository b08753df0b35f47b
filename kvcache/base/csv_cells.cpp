#include "kvcache/base/csv_cells.h"

#include <cstring>

namespace kvsim {
namespace {

// Spaces around a cell are trimmed, and tabs unless they separate the cells.
bool IsTrimmed(char c, char delimiter) { return c == ' ' || (c == '\t' && delimiter != '\t'); }

}  // namespace

// speed: the cells' strings are reused from the previous line (a trace's timestamp cells are too
// long for the small-string buffer, so building fresh strings allocated one per cell per row).
bool SplitCsvLine(std::string_view line, std::vector<std::string>& cells, char delimiter) {
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
      const char* comma = static_cast<const char*>(std::memchr(p, delimiter, static_cast<size_t>(end - p)));
      const char* stop = comma ? comma : end;
      const char* first = p;
      const char* last = stop;
      while (first < last && IsTrimmed(*first, delimiter)) ++first;
      while (last > first && IsTrimmed(last[-1], delimiter)) --last;
      next_cell().assign(first, static_cast<size_t>(last - first));
      if (!comma) break;
      p = comma + 1;
    }
    cells.resize(count);
    return true;
  }
  size_t i = 0;
  while (true) {
    while (i < n && IsTrimmed(line[i], delimiter)) ++i;
    std::string& cell = next_cell();
    if (i < n && line[i] == '"') {
      ++i;
      while (true) {
        // speed: the text up to the next quote is appended at once (a catalog's long quoted
        // `source` cells were copied a character at a time).
        const char* quote = static_cast<const char*>(std::memchr(line.data() + i, '"', n - i));
        if (!quote) return false;  // unterminated quote
        const size_t q = static_cast<size_t>(quote - line.data());
        cell.append(line.data() + i, q - i);
        i = q;
        if (i + 1 < n && line[i + 1] == '"') {
          cell += '"';
          i += 2;
          continue;
        }
        ++i;
        break;
      }
      while (i < n && IsTrimmed(line[i], delimiter)) ++i;
      if (i < n && line[i] != delimiter) return false;  // text after the closing quote
    } else {
      const size_t start = i;
      const char* stop = static_cast<const char*>(std::memchr(line.data() + i, delimiter, n - i));
      i = stop ? static_cast<size_t>(stop - line.data()) : n;
      size_t end = i;
      while (end > start && IsTrimmed(line[end - 1], delimiter)) --end;
      cell.assign(line, start, end - start);
    }
    if (i >= n) {
      cells.resize(count);
      return true;
    }
    ++i;  // the delimiter
  }
}

bool SplitCsvLineViews(std::string_view line, std::vector<std::string>& storage, std::vector<std::string_view>& cells,
                       char delimiter) {
  cells.clear();
  const size_t n = line.size();
  if (std::memchr(line.data(), '"', n) != nullptr) {
    if (!SplitCsvLine(line, storage, delimiter)) return false;
    cells.assign(storage.begin(), storage.end());
    return true;
  }
  const char* p = line.data();
  const char* const end = p + n;
  while (true) {
    const char* comma = static_cast<const char*>(std::memchr(p, delimiter, static_cast<size_t>(end - p)));
    const char* first = p;
    const char* last = comma ? comma : end;
    while (first < last && IsTrimmed(*first, delimiter)) ++first;
    while (last > first && IsTrimmed(last[-1], delimiter)) --last;
    cells.emplace_back(first, static_cast<size_t>(last - first));
    if (!comma) return true;
    p = comma + 1;
  }
}

char DetectCsvDelimiter(std::string_view header) {
  if (header.find(',') != std::string_view::npos) return ',';
  for (const char d : {'\t', ';', '|'})
    if (header.find(d) != std::string_view::npos) return d;
  return ',';
}

bool IsBlankLine(std::string_view line) {
  // speed: a row's first character settles it almost always.
  if (!line.empty() && line[0] != ' ' && line[0] != '\t' && line[0] != '\r') return false;
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

}  // namespace kvsim
