#include "sim/stats/error_bands.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>

#include "kvcache/base/csv_cells.h"
#include "kvcache/base/error.h"
#include "kvcache/base/line_reader.h"

namespace kvsim {
namespace {

constexpr const char* kAny = "*";
constexpr const char* kMemoryMetric = "kv_gib";

double ParseRatio(const std::string& text, const std::string& where, const char* column) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v <= 0)
    throw Error(where + ": column " + column + ": '" + PrintableExcerpt(text) + "' is not a positive number");
  return v;
}

int ParseRuns(const std::string& text, const std::string& where) {
  int v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < 1)
    throw Error(where + ": column runs: '" + PrintableExcerpt(text) + "' is not a whole number of runs >= 1");
  return v;
}

// `text` is "*" or a name of E; returns it unchanged.
template <typename E>
std::string ParseRegimeCell(const std::string& text, const std::string& where, const char* column) {
  if (text != kAny) ParseEnum<E>(text, where + ": column " + column + " ('*' or a name)");
  return text;
}

// A GPU family is the generation column of data/gpus.csv: a lower-case word ("hopper", "cdna3").
std::string ParseFamily(const std::string& text, const std::string& where) {
  const bool word = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  });
  if (text != kAny && !word)
    throw Error(where + ": column gpu_family: '" + PrintableExcerpt(text) +
                "' is not '*' or a GPU generation (lower-case letters and digits, as data/gpus.csv names it)");
  return text;
}

std::string RegimeName(const ErrorBands::Row& r) { return r.model + "/" + r.gpu_family + "/" + r.load; }

}  // namespace

LoadRegime ClassifyLoad(double utilization) {
  if (utilization < kLightLoadBelow) return LoadRegime::kLight;
  if (utilization < kSaturatedLoadFrom) return LoadRegime::kModerate;
  return LoadRegime::kSaturated;
}

ErrorBands ErrorBands::Read(const std::string& path) {
  static constexpr const char* kColumns[] = {"metric", "model", "gpu_family", "load", "runs", "low", "high"};
  enum Column : size_t { kMetric, kModel, kFamily, kLoad, kRuns, kLow, kHigh };
  constexpr size_t kNumColumns = std::size(kColumns);
  ErrorBands bands;
  LineReader in(path, "error band CSV");
  std::string line;
  std::vector<std::string> header, cells;
  // '#' lines before the header say where the table came from (the script writes them).
  do {
    if (!in.Next(line)) throw Error(path + ": empty file (expected a CSV header)");
  } while (IsBlankLine(line) || line[0] == '#');
  const std::string header_at = path + ":" + std::to_string(in.line_number());
  if (!SplitCsvLine(line, header)) throw Error(header_at + ": the CSV header has an unterminated quote");
  size_t index[kNumColumns];
  for (size_t i = 0; i < kNumColumns; ++i) {
    const auto it = std::find(header.begin(), header.end(), kColumns[i]);
    if (it == header.end()) throw Error(header_at + ": missing column '" + kColumns[i] + "'");
    index[i] = static_cast<size_t>(it - header.begin());
  }
  if (header.size() != kNumColumns) {
    for (const std::string& h : header)
      if (std::find(std::begin(kColumns), std::end(kColumns), h) == std::end(kColumns))
        throw Error(header_at + ": unknown column '" + PrintableExcerpt(h) +
                    "' (expected metric, model, gpu_family, load, runs, low, high)");
    throw Error(header_at + ": a column appears twice");
  }
  while (in.Next(line)) {
    if (IsBlankLine(line) || line[0] == '#') continue;
    const std::string where = path + ":" + std::to_string(in.line_number());
    if (!SplitCsvLine(line, cells)) throw Error(where + ": unterminated quote");
    if (cells.size() != header.size())
      throw Error(where + ": " + std::to_string(cells.size()) + " cells, the header has " + std::to_string(header.size()));
    auto cell = [&](Column c) -> const std::string& { return cells[index[c]]; };
    Row r;
    r.metric = cell(kMetric);
    if (r.metric != kMemoryMetric && !TryParseEnum<ErrorMetric>(r.metric))
      throw Error(where + ": column metric: '" + PrintableExcerpt(r.metric) + "' is not one of " +
                  EnumChoices<ErrorMetric>(", ") + ", " + kMemoryMetric);
    r.model = ParseRegimeCell<ModelClass>(cell(kModel), where, "model");
    r.gpu_family = ParseFamily(cell(kFamily), where);
    r.load = ParseRegimeCell<LoadRegime>(cell(kLoad), where, "load");
    if (r.metric == kMemoryMetric && (r.model != kAny || r.gpu_family != kAny || r.load != kAny))
      throw Error(where + ": a kv_gib row is over all start-up logs: model, gpu_family and load must be '*'");
    r.band.runs = ParseRuns(cell(kRuns), where);
    r.band.low = ParseRatio(cell(kLow), where, "low");
    r.band.high = ParseRatio(cell(kHigh), where, "high");
    if (r.band.low > r.band.high)
      throw Error(where + ": column low: " + cell(kLow) + " is above column high: " + cell(kHigh));
    r.band.regime = RegimeName(r);
    for (const Row& seen : bands.rows_)
      if (seen.metric == r.metric && seen.band.regime == r.band.regime)
        throw Error(where + ": a second row for " + r.metric + " in regime " + r.band.regime);
    bands.rows_.push_back(std::move(r));
  }
  return bands;
}

ErrorBand ErrorBands::For(ErrorMetric metric, const ErrorRegime& regime) const {
  const std::string model = NameOf(regime.model), load = NameOf(regime.load);
  // Narrowest first: the exact regime, then any load, any GPU family, any model class.
  const std::string candidates[] = {model + "/" + regime.gpu_family + "/" + load, model + "/" + regime.gpu_family + "/*",
                                    model + "/*/*", "*/*/*"};
  // A regime with fewer than kMinRuns runs is too thin for a spread of its own, but its runs are
  // still measured errors: the wider band answering for it is widened to hold them, so a lone
  // saturated run is never outside the band a saturated plan gets.
  double low = 0, high = 0;
  std::string thin;
  for (const std::string& name : candidates) {
    for (const Row& r : rows_) {
      if (r.metric != NameOf(metric) || r.band.regime != name) continue;
      low = thin.empty() ? r.band.low : std::min(low, r.band.low);
      high = thin.empty() ? r.band.high : std::max(high, r.band.high);
      if (r.band.runs >= kMinRuns) {
        if (low == r.band.low && high == r.band.high) return r.band;
        return ErrorBand{low, high, r.band.runs, name + ", widened to hold " + thin};
      }
      thin += (thin.empty() ? "" : " and ") + name + " (" + std::to_string(r.band.runs) +
              (r.band.runs == 1 ? " run)" : " runs)");
    }
  }
  return ErrorBand{1, 1, 0, "no validation data"};
}

ErrorBand ErrorBands::Memory() const {
  for (const Row& r : rows_)
    if (r.metric == kMemoryMetric && r.band.runs >= kMinRuns) return r.band;
  return ErrorBand{1, 1, 0, "no validation data"};
}

}  // namespace kvsim
