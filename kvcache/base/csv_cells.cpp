#include "kvcache/base/csv_cells.h"

namespace kvsim {
namespace {

bool IsTrimmed(char c) { return c == ' ' || c == '\t'; }

}  // namespace

bool SplitCsvLine(const std::string& line, std::vector<std::string>& cells) {
  cells.clear();
  size_t i = 0;
  const size_t n = line.size();
  while (true) {
    while (i < n && IsTrimmed(line[i])) ++i;
    std::string cell;
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
    cells.push_back(std::move(cell));
    if (i >= n) return true;
    ++i;  // the comma
  }
}

bool IsBlankLine(const std::string& line) { return line.find_first_not_of(" \t\r") == std::string::npos; }

}  // namespace kvsim
