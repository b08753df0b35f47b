// Splits one CSV line (RFC 4180 without line breaks inside quotes, which no trace or log uses):
// cells separated by `delimiter` (a comma; tab, semicolon or bar in other exports), spaces (and
// tabs, unless they separate) around a cell trimmed, a cell in double quotes may hold the delimiter
// and "" for a quote.
#ifndef KVSIM_KVCACHE_BASE_CSV_CELLS_H_
#define KVSIM_KVCACHE_BASE_CSV_CELLS_H_

#include <string>
#include <string_view>
#include <vector>

namespace kvsim {

// Fills `cells`; false (cells unspecified) for an unterminated quote or text after a closing quote.
bool SplitCsvLine(std::string_view line, std::vector<std::string>& cells, char delimiter = ',');

// The same cells as views: into `line` when it holds no quote (speed: nothing is copied), else
// into `storage`, which SplitCsvLine fills. The views live as long as `line` and `storage` do
// unchanged. False as SplitCsvLine.
bool SplitCsvLineViews(std::string_view line, std::vector<std::string>& storage, std::vector<std::string_view>& cells,
                       char delimiter = ',');

// The delimiter of a CSV export, from its header: a comma when it has one, else the first of tab,
// semicolon or bar it holds, else a comma (a one-column file).
char DetectCsvDelimiter(std::string_view header);

// True for an empty or whitespace-only line (skipped by every reader, e.g. a trailing blank line).
bool IsBlankLine(std::string_view line);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BASE_CSV_CELLS_H_
