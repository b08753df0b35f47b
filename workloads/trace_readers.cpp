#include "workloads/trace_readers.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "kvcache/base/error.h"
#include "kvcache/base/json_file.h"
#include "kvcache/base/csv_cells.h"
#include "kvcache/base/line_reader.h"
#include "workloads/row_errors.h"

namespace kvsim {
namespace {

struct CsvLayout {
  std::string arrival, prompt, output, model, adapter;  // empty: absent
  std::string total;  // a column that must equal prompt + output where the file has it (BurstGPT's Total tokens)
  TimeUnit unit = TimeUnit::kSeconds;
  bool skip_zero_output = false;
};

// A token count cell: a whole number in [1, kMaxRequestTokens] (0 allowed when `allow_zero`).
std::optional<int64_t> TokenCount(std::string_view cell, bool allow_zero) {
  auto v = ParseInteger(cell);
  if (!v || *v < (allow_zero ? 0 : 1) || *v > kMaxRequestTokens) return std::nullopt;
  return v;
}

// Adapter names as they appear, numbered from 1 (0 is the base model).
class AdapterNames {
 public:
  uint32_t Id(std::string_view name) {
    if (name.empty()) return 0;
    auto [it, fresh] = ids_.try_emplace(std::string(name), static_cast<uint32_t>(ids_.size() + 1));
    return it->second;
  }

 private:
  std::unordered_map<std::string, uint32_t> ids_;
};

std::string TokenRange(bool allow_zero) {
  return std::string(allow_zero ? "[0, " : "[1, ") + std::to_string(kMaxRequestTokens) + "]";
}

// One reader for every CSV format; the layout names the columns. Reads the stream once.
class CsvTraceSource final : public RequestSource {
 public:
  CsvTraceSource(const TraceReaderOptions& o, CsvLayout layout, std::optional<ArrivalGenerator> arrivals,
                 std::unique_ptr<LineReader> in, const std::string& header)
      : layout_(std::move(layout)), filter_(o.model_filter), errors_(o.path, o.skip_bad_rows),
        arrivals_(std::move(arrivals)), in_(std::move(in)),
        delimiter_(o.delimiter ? o.delimiter : DetectCsvDelimiter(header)) {
    if (!SplitCsvLine(header, header_, delimiter_))
      throw Error(o.path + ":1: the CSV header has an unterminated quote");
    const std::string* cols[6] = {&layout_.arrival, &layout_.prompt, &layout_.output, &layout_.model, &layout_.adapter,
                                  &layout_.total};
    for (int i = 0; i < 6; ++i) {
      index_[i] = -1;
      for (size_t c = 0; c < header_.size() && !cols[i]->empty(); ++c) {
        if (header_[c] != *cols[i]) continue;
        // Two cells of one name: whichever kvsim read, the other would be ignored without a word.
        if (index_[i] >= 0)
          throw Error(o.path + ":1: column '" + PrintableExcerpt(*cols[i]) + "' appears twice in the header (cells " +
                      std::to_string(index_[i] + 1) + " and " + std::to_string(c + 1) + "); kvsim cannot tell which to read");
        index_[i] = static_cast<int>(c);
      }
      if (i != 3 && i != 5 && !cols[i]->empty() && index_[i] < 0)
        throw Error(o.path + ":1: missing column '" + *cols[i] + "' (header: " + PrintableExcerpt(header, 120) + ")");
    }
    if (!filter_.empty() && index_[3] < 0) throw Error("--model-filter: " + o.path + " has no Model column");
  }

  std::optional<TraceRequest> Next() override {
    std::string_view line;  // speed: the reader's buffer, not a copy (valid until the next line)
    while (in_->Next(line)) {
      if (IsBlankLine(line)) continue;  // e.g. the blank line many tools write at the end
      const int64_t n = in_->line_number();
      if (!SplitCsvLineViews(line, cell_storage_, cells_, delimiter_)) {
        errors_.Bad(n, "(row)", "unterminated quote");
        continue;
      }
      if (cells_.size() != header_.size()) {
        errors_.Bad(n, "(row)", "has " + std::to_string(cells_.size()) + " cells, the header has " +
                                    std::to_string(header_.size()));
        continue;
      }
      if (!filter_.empty() && cells_[index_[3]] != filter_) {
        ++filtered_;
        continue;
      }
      if (auto r = ParseRow(n)) return r;
    }
    return std::nullopt;
  }

  int64_t skipped_rows() const override { return errors_.skipped() + filtered_; }
  std::vector<std::string> warnings() const override { return errors_.warnings(); }
  double progress() const override {
    if (in_->size_bytes() <= 0) return -1.0;
    return std::min(1.0, static_cast<double>(in_->bytes_read()) / static_cast<double>(in_->size_bytes()));
  }
  std::string Describe() const override { return errors_.path(); }

 private:
  std::string_view Cell(int column) const { return index_[column] < 0 ? std::string_view() : cells_[index_[column]]; }
  static std::string Excerpt(std::string_view cell) { return PrintableExcerpt(std::string(cell)); }

  std::optional<TraceRequest> ParseRow(int64_t line) {
    const std::string_view p = Cell(1);
    const std::string_view out = Cell(2);
    auto prompt = TokenCount(p, false);
    if (!prompt) {
      errors_.Bad(line, layout_.prompt, "'" + Excerpt(p) + "' is not a whole number in " + TokenRange(false));
      return std::nullopt;
    }
    auto output = TokenCount(out, true);
    if (!output) {
      errors_.Bad(line, layout_.output, "'" + Excerpt(out) + "' is not a whole number in " + TokenRange(true));
      return std::nullopt;
    }
    if (*output == 0) {
      if (layout_.skip_zero_output) errors_.Skip(line, "0 response tokens (a failed request)");
      else errors_.Bad(line, layout_.output, "0 output tokens");
      return std::nullopt;
    }
    if (index_[5] >= 0) {
      // BurstGPT's Total tokens is Request tokens + Response tokens (the dataset's column list, as
      // ai-dynamo/aiperf docs/tutorials/burst-gpt-trace.md gives it): a row where it is not holds a
      // wrong count, and kvsim cannot tell which.
      const std::optional<int64_t> total = ParseInteger(Cell(5));
      if (!total || *total != *prompt + *output) {
        errors_.Bad(line, layout_.total, "'" + Excerpt(Cell(5)) + "' is not " + layout_.prompt + " + " + layout_.output +
                                             " (" + std::to_string(*prompt) + " + " + std::to_string(*output) + " = " +
                                             std::to_string(*prompt + *output) + ")");
        return std::nullopt;
      }
    }
    std::optional<int64_t> at = ArrivalNs(Cell(0));
    if (!at) {
      errors_.Bad(line, layout_.arrival, "'" + Excerpt(Cell(0)) + "' is not a valid time" +
                                             (layout_.unit == TimeUnit::kDateTime ? " (YYYY-MM-DD HH:MM:SS[.f] or ISO 8601 ...T...[Z|+HH:MM], 1970 to 2116: below 2^62 ns)"
                                                                                  : " (non-negative, below 2^62 ns)"));
      return std::nullopt;
    }
    if (*at < last_raw_) {
      errors_.Bad(line, layout_.arrival, "timestamp goes backwards (traces must be sorted by arrival)");
      return std::nullopt;
    }
    last_raw_ = *at;
    if (!first_) first_ = *at;
    TraceRequest r;
    r.id = next_id_++;
    r.arrival_ns = *at - *first_;
    r.prompt_tokens = *prompt;
    r.output_tokens = *output;
    r.source_line = line;
    if (index_[4] >= 0) r.adapter = adapters_.Id(Cell(4));
    return r;
  }

  std::optional<int64_t> ArrivalNs(std::string_view cell) {
    if (layout_.arrival.empty()) return arrivals_->NextArrivalNs();
    if (layout_.unit == TimeUnit::kDateTime) return ParseDateTimeNs(cell, &day_);
    auto v = ParseDecimal(cell);
    if (!v || *v < 0) return std::nullopt;
    const double scale = layout_.unit == TimeUnit::kSeconds ? 1e9 : layout_.unit == TimeUnit::kMillis ? 1e6
                         : layout_.unit == TimeUnit::kMicros ? 1e3 : 1.0;
    const double ns = *v * scale;
    if (!(ns < static_cast<double>(kMaxArrivalNs))) return std::nullopt;  // the int64 cast would be undefined
    return static_cast<int64_t>(std::llround(ns));
  }

  CsvLayout layout_;
  std::string filter_;
  RowErrors errors_;
  std::optional<ArrivalGenerator> arrivals_;
  std::unique_ptr<LineReader> in_;
  DayCache day_;
  char delimiter_;
  std::vector<std::string> header_, cell_storage_;  // cell_storage_: a quoted row's cells
  std::vector<std::string_view> cells_;             // into the current line or cell_storage_
  int index_[6];
  AdapterNames adapters_;
  std::optional<int64_t> first_;
  int64_t last_raw_ = INT64_MIN;
  int64_t filtered_ = 0;
  uint64_t next_id_ = 0;
};

class MooncakeSource final : public RequestSource {
 public:
  // `first_line` was read by format detection; it is the first record.
  MooncakeSource(const TraceReaderOptions& o, std::unique_ptr<LineReader> in, std::optional<std::string> first_line)
      : in_(std::move(in)), errors_(o.path, o.skip_bad_rows), pending_(std::move(first_line)),
        adapter_key_(o.adapter_column) {}

  std::optional<TraceRequest> Next() override {
    std::string text;
    while (NextLine(text)) {
      if (IsBlankLine(text)) continue;
      std::string why;
      std::optional<nlohmann::json> parsed = ParseJsonText(text, &why);
      if (!parsed) {
        errors_.Bad(in_->line_number(), "(json)", "malformed JSON: " + why);
        continue;
      }
      const nlohmann::json& j = *parsed;
      if (!j.is_object()) {
        errors_.Bad(in_->line_number(), "(json)", "expected a JSON object per line");
        continue;
      }
      if (auto r = ParseRecord(j, in_->line_number())) return r;
    }
    return std::nullopt;
  }

  int64_t skipped_rows() const override { return errors_.skipped(); }
  std::vector<std::string> warnings() const override { return errors_.warnings(); }
  double progress() const override {
    if (in_->size_bytes() <= 0) return -1.0;
    return std::min(1.0, static_cast<double>(in_->bytes_read()) / static_cast<double>(in_->size_bytes()));
  }
  std::string Describe() const override { return errors_.path(); }

 private:
  bool NextLine(std::string& text) {
    if (pending_) {
      text = std::move(*pending_);
      pending_.reset();
      return true;
    }
    return in_->Next(text);
  }

  std::optional<double> Field(const nlohmann::json& j, const char* key, int64_t line) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number()) {
      errors_.Bad(line, key, it == j.end() ? "missing" : "not a number: " + it->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
      return std::nullopt;
    }
    return it->get<double>();
  }

  std::optional<TraceRequest> ParseRecord(const nlohmann::json& j, int64_t line) {
    auto ts = Field(j, "timestamp", line);
    if (!ts) return std::nullopt;
    auto in_len = Field(j, "input_length", line);
    if (!in_len) return std::nullopt;
    auto out_len = Field(j, "output_length", line);
    if (!out_len) return std::nullopt;
    const double max_tokens = static_cast<double>(kMaxRequestTokens);
    if (!(*ts >= 0 && *ts * 1e6 < static_cast<double>(kMaxArrivalNs))) {
      errors_.Bad(line, "timestamp", "must be a time in [0, 2^62 ns) (milliseconds)");
      return std::nullopt;
    }
    for (const auto& [name, v] : {std::pair<const char*, double>{"input_length", *in_len}, {"output_length", *out_len}}) {
      if (!(v >= 1 && v <= max_tokens && v == std::floor(v))) {
        errors_.Bad(line, name, "must be a whole number of tokens in " + TokenRange(false));
        return std::nullopt;
      }
    }
    const int64_t at = static_cast<int64_t>(std::llround(*ts * 1e6));  // ms -> ns
    if (at < last_raw_) {
      errors_.Bad(line, "timestamp", "timestamp goes backwards (traces must be sorted by arrival)");
      return std::nullopt;
    }
    TraceRequest r;
    if (auto h = j.find("hash_ids"); h != j.end()) {
      if (!h->is_array()) {
        errors_.Bad(line, "hash_ids", "not an array");
        return std::nullopt;
      }
      // One id per 512-token block of the prompt (every row of Mooncake's published traces): ids past
      // the prompt's last block would be ignored, so they mean a wrong input_length or block size.
      constexpr int64_t kTraceBlockTokens = 512;
      const int64_t blocks = (static_cast<int64_t>(*in_len) + kTraceBlockTokens - 1) / kTraceBlockTokens;
      if (static_cast<int64_t>(h->size()) > blocks) {
        errors_.Bad(line, "hash_ids", "has " + std::to_string(h->size()) + " ids but input_length " +
                                          std::to_string(static_cast<int64_t>(*in_len)) + " spans " +
                                          std::to_string(blocks) + " block(s) of 512 tokens");
        return std::nullopt;
      }
      r.block_ids.reserve(h->size());
      for (const auto& v : *h) {
        if (!v.is_number_integer()) {
          errors_.Bad(line, "hash_ids", "holds a non-integer id");
          return std::nullopt;
        }
        // A negative id read as unsigned would wrap onto a large one and share its blocks.
        if (v.is_number_integer() && !v.is_number_unsigned()) {
          errors_.Bad(line, "hash_ids", "holds a negative id: " + v.dump());
          return std::nullopt;
        }
        r.block_ids.push_back(v.get<uint64_t>());
      }
      r.block_id_tokens = kTraceBlockTokens;
    }
    last_raw_ = at;
    if (!first_) first_ = at;
    r.id = next_id_++;
    r.arrival_ns = at - *first_;
    r.prompt_tokens = static_cast<int64_t>(*in_len);
    r.output_tokens = static_cast<int64_t>(*out_len);
    r.source_line = line;
    if (!adapter_key_.empty()) {
      auto a = j.find(adapter_key_);
      if (a != j.end() && !a->is_null()) {
        if (!a->is_string() && !a->is_number_integer()) {
          errors_.Bad(line, adapter_key_.c_str(), "not a string or an integer");
          return std::nullopt;
        }
        r.adapter = adapters_.Id(a->is_string() ? a->get<std::string>() : a->dump());
      }
    }
    return r;
  }

  std::unique_ptr<LineReader> in_;
  RowErrors errors_;
  std::optional<std::string> pending_;
  std::optional<int64_t> first_;
  int64_t last_raw_ = INT64_MIN;
  uint64_t next_id_ = 0;
  std::string adapter_key_;
  AdapterNames adapters_;
};

CsvLayout LayoutOf(const TraceReaderOptions& o, TraceFormat format) {
  switch (format) {
    case TraceFormat::kAzure:
      return {"TIMESTAMP", "ContextTokens", "GeneratedTokens", "", o.adapter_column, "", TimeUnit::kDateTime, false};
    case TraceFormat::kBurstGpt:
      return {"Timestamp", "Request tokens", "Response tokens", "Model", o.adapter_column, "Total tokens", TimeUnit::kSeconds, true};
    case TraceFormat::kVidur:
      return {"arrived_at", "num_prefill_tokens", "num_decode_tokens", "", o.adapter_column, "", TimeUnit::kSeconds, false};
    case TraceFormat::kGenericCsv:
      return {o.arrival_column, o.prompt_column, o.output_column, "", o.adapter_column, "", o.time_unit, false};
    case TraceFormat::kLengths:  // no arrival column
      return {"", "num_prefill_tokens", "num_decode_tokens", "", o.adapter_column, "", TimeUnit::kSeconds, false};
    case TraceFormat::kMooncake: break;
  }
  throw InternalError("LayoutOf: not a CSV format");
}

}  // namespace

TraceFormat DetectTraceFormatFromHeader(const std::string& header, const std::string& path) {
  const size_t first = header.find_first_not_of(" \t");
  if (first != std::string::npos && header[first] == '{') return TraceFormat::kMooncake;
  auto has = [&](const char* col) { return header.find(col) != std::string::npos; };
  if (has("TIMESTAMP") && has("ContextTokens")) return TraceFormat::kAzure;
  if (has("Request tokens") && has("Response tokens")) return TraceFormat::kBurstGpt;
  if (has("arrived_at") && has("num_prefill_tokens")) return TraceFormat::kVidur;
  if (has("num_prefill_tokens") && has("num_decode_tokens")) return TraceFormat::kLengths;
  throw Error(path + ":1: unrecognised trace header '" + PrintableExcerpt(header, 80) +
              "'; give --trace-format (azure, burstgpt, vidur, mooncake, csv, lengths)");
}

TraceFormat DetectTraceFormat(const std::string& path) {
  LineReader in(path, "the trace");
  std::string header;
  if (!in.Next(header)) throw Error(path + ": the trace is empty (no header line)");
  return DetectTraceFormatFromHeader(header, path);
}

std::unique_ptr<RequestSource> OpenTraceReader(const TraceReaderOptions& o, std::optional<ArrivalGenerator> arrivals) {
  auto in = std::make_unique<LineReader>(o.path, "the trace");
  std::string header;
  const bool has_header = in->Next(header);
  if (!has_header && o.format != TraceFormat::kMooncake)
    throw Error(o.path + ": the trace is empty (no header line)");
  const TraceFormat format = o.format ? *o.format : DetectTraceFormatFromHeader(header, o.path);
  if (format == TraceFormat::kMooncake)
    return std::make_unique<MooncakeSource>(o, std::move(in), has_header ? std::optional<std::string>(header) : std::nullopt);
  if (format == TraceFormat::kLengths && !arrivals)
    throw Error("--trace-format lengths: the file has no arrival times; give --rate (and --arrival)");
  return std::make_unique<CsvTraceSource>(o, LayoutOf(o, format), std::move(arrivals), std::move(in), header);
}

}  // namespace kvsim
