// Splits one CSV line (RFC 4180 without line breaks inside quotes, which no trace or log uses):
// comma-separated cells, spaces and tabs around a cell trimmed, a cell in double quotes may hold
// commas and "" for a quote.
#ifndef KVSIM_KVCACHE_BASE_CSV_CELLS_H_
#define KVSIM_KVCACHE_BASE_CSV_CELLS_H_

#include <string>
#include <string_view>
#include <vector>

namespace kvsim {

// Fills `cells`; false (cells unspecified) for an unterminated quote or text after a closing quote.
bool SplitCsvLine(std::string_view line, std::vector<std::string>& cells);

// The same cells as views: into `line` when it holds no quote (speed: nothing is copied), else
// into `storage`, which SplitCsvLine fills. The views live as long as `line` and `storage` do
// unchanged. False as SplitCsvLine.
bool SplitCsvLineViews(std::string_view line, std::vector<std::string>& storage, std::vector<std::string_view>& cells);

// True for an empty or whitespace-only line (skipped by every reader, e.g. a trailing blank line).
bool IsBlankLine(std::string_view line);

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_BASE_CSV_CELLS_H_
