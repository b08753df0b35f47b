#include "workloads/trace_readers.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <libfccp/csv.h>
#include <nlohmann/json.hpp>

#include "kvcache/base/error.h"
#include "workloads/row_errors.h"

namespace kvsim {
namespace {

constexpr const char* kAbsent[] = {"__kvsim_absent_0", "__kvsim_absent_1", "__kvsim_absent_2", "__kvsim_absent_3"};

struct CsvLayout {
  std::string arrival, prompt, output, model;  // empty: absent
  TimeUnit unit = TimeUnit::kSeconds;
  bool skip_zero_output = false;
};

// One reader for every CSV format; the layout names the columns.
class CsvTraceSource final : public RequestSource {
 public:
  CsvTraceSource(const TraceReaderOptions& o, CsvLayout layout, std::optional<ArrivalGenerator> arrivals)
      : layout_(std::move(layout)), filter_(o.model_filter), errors_(o.path, o.skip_bad_rows), arrivals_(std::move(arrivals)),
        reader_(o.path) {
    file_bytes_ = static_cast<double>(std::filesystem::file_size(o.path));
    const char* names[4];
    const std::string* cols[4] = {&layout_.arrival, &layout_.prompt, &layout_.output, &layout_.model};
    for (int i = 0; i < 4; ++i) names[i] = cols[i]->empty() ? kAbsent[i] : cols[i]->c_str();
    try {
      reader_.read_header(io::ignore_extra_column | io::ignore_missing_column, names[0], names[1], names[2], names[3]);
    } catch (const io::error::base& e) {
      throw Error(o.path + ": cannot read the CSV header: " + e.what());
    }
    for (int i = 0; i < 3; ++i) {
      if (!cols[i]->empty() && !reader_.has_column(names[i]))
        throw Error(o.path + ":1: missing column '" + *cols[i] + "' (header: " + HeaderText(o.path) + ")");
    }
    if (!filter_.empty() && (layout_.model.empty() || !reader_.has_column(names[3])))
      throw Error("--model-filter: " + o.path + " has no Model column");
  }

  std::optional<TraceRequest> Next() override {
    std::string a, p, out, model;
    while (true) {
      try {
        if (!reader_.read_row(a, p, out, model)) return std::nullopt;
      } catch (const io::error::base& e) {
        throw Error(errors_.path() + ": " + e.what());
      }
      const int64_t line = static_cast<int64_t>(reader_.get_file_line());
      if (!filter_.empty() && model != filter_) {
        ++filtered_;
        continue;
      }
      auto prompt = ParseInteger(p);
      auto output = ParseInteger(out);
      if (!prompt || *prompt < 1) {
        errors_.Bad(line, layout_.prompt, "'" + p + "' is not a positive integer");
        continue;
      }
      if (!output || *output < 0) {
        errors_.Bad(line, layout_.output, "'" + out + "' is not a non-negative integer");
        continue;
      }
      if (*output == 0) {
        if (layout_.skip_zero_output) {
          errors_.Skip(line, "0 response tokens (a failed request)");
          continue;
        }
        errors_.Bad(line, layout_.output, "0 output tokens");
        continue;
      }
      std::optional<int64_t> at = ArrivalNs(a);
      if (!at) {
        errors_.Bad(line, layout_.arrival, "'" + a + "' is not a valid time");
        continue;
      }
      if (*at < last_raw_) {
        errors_.Bad(line, layout_.arrival, "timestamp goes backwards (traces must be sorted by arrival)");
        continue;
      }
      last_raw_ = *at;
      if (first_ < 0) first_ = *at;
      TraceRequest r;
      r.id = next_id_++;
      r.arrival_ns = *at - first_;
      r.prompt_tokens = *prompt;
      r.output_tokens = *output;
      r.source_line = line;
      return r;
    }
  }

  int64_t skipped_rows() const override { return errors_.skipped() + filtered_; }
  std::vector<std::string> warnings() const override { return errors_.warnings(); }
  double progress() const override {
    // fccp does not expose its byte offset; lines read over an estimate from the first lines.
    const double line = static_cast<double>(reader_.get_file_line());
    if (line < 2 || file_bytes_ <= 0) return -1.0;
    return std::min(1.0, line * 40.0 / file_bytes_);
  }
  std::string Describe() const override { return errors_.path(); }

 private:
  std::optional<int64_t> ArrivalNs(const std::string& cell) {
    if (layout_.arrival.empty()) return arrivals_->NextArrivalNs();
    if (layout_.unit == TimeUnit::kDateTime) return ParseDateTimeNs(cell);
    auto v = ParseDecimal(cell);
    if (!v || *v < 0) return std::nullopt;
    const double scale = layout_.unit == TimeUnit::kSeconds ? 1e9 : layout_.unit == TimeUnit::kMillis ? 1e6
                         : layout_.unit == TimeUnit::kMicros ? 1e3 : 1.0;
    return static_cast<int64_t>(std::llround(*v * scale));
  }

  static std::string HeaderText(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line.substr(0, 120);
  }

  CsvLayout layout_;
  std::string filter_;
  RowErrors errors_;
  std::optional<ArrivalGenerator> arrivals_;
  io::CSVReader<4, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>> reader_;
  double file_bytes_ = 0;
  int64_t first_ = -1;
  int64_t last_raw_ = INT64_MIN;
  int64_t filtered_ = 0;
  uint64_t next_id_ = 0;
};

class MooncakeSource final : public RequestSource {
 public:
  explicit MooncakeSource(const TraceReaderOptions& o) : in_(o.path), errors_(o.path, o.skip_bad_rows) {
    if (!in_) throw Error(o.path + ": cannot open the trace");
    file_bytes_ = static_cast<double>(std::filesystem::file_size(o.path));
  }

  std::optional<TraceRequest> Next() override {
    std::string text;
    while (std::getline(in_, text)) {
      ++line_;
      bytes_ += static_cast<double>(text.size() + 1);
      if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(text);
      } catch (const nlohmann::json::parse_error& e) {
        errors_.Bad(line_, "(json)", std::string("malformed JSON: ") + e.what());
        continue;
      }
      auto field = [&](const char* key) -> std::optional<double> {
        auto it = j.find(key);
        if (it == j.end() || !it->is_number()) {
          errors_.Bad(line_, key, it == j.end() ? "missing" : "not a number: " + it->dump());
          return std::nullopt;
        }
        return it->get<double>();
      };
      auto ts = field("timestamp");
      if (!ts) continue;
      auto in_len = field("input_length");
      if (!in_len) continue;
      auto out_len = field("output_length");
      if (!out_len) continue;
      if (*ts < 0 || *in_len < 1 || *out_len < 1 || *in_len != std::floor(*in_len) || *out_len != std::floor(*out_len)) {
        errors_.Bad(line_, *ts < 0 ? "timestamp" : *in_len < 1 ? "input_length" : "output_length",
                    "must be a non-negative time and positive whole token counts");
        continue;
      }
      const int64_t at = static_cast<int64_t>(std::llround(*ts * 1e6));  // ms -> ns
      if (at < last_raw_) {
        errors_.Bad(line_, "timestamp", "timestamp goes backwards (traces must be sorted by arrival)");
        continue;
      }
      TraceRequest r;
      if (auto h = j.find("hash_ids"); h != j.end()) {
        if (!h->is_array()) {
          errors_.Bad(line_, "hash_ids", "not an array");
          continue;
        }
        r.block_ids.reserve(h->size());
        bool ok = true;
        for (const auto& v : *h) {
          if (!v.is_number_integer()) ok = false;
          else r.block_ids.push_back(v.get<uint64_t>());
        }
        if (!ok) {
          errors_.Bad(line_, "hash_ids", "holds a non-integer id");
          continue;
        }
        r.block_id_tokens = 512;
      }
      last_raw_ = at;
      if (first_ < 0) first_ = at;
      r.id = next_id_++;
      r.arrival_ns = at - first_;
      r.prompt_tokens = static_cast<int64_t>(*in_len);
      r.output_tokens = static_cast<int64_t>(*out_len);
      r.source_line = line_;
      return r;
    }
    return std::nullopt;
  }

  int64_t skipped_rows() const override { return errors_.skipped(); }
  std::vector<std::string> warnings() const override { return errors_.warnings(); }
  double progress() const override { return file_bytes_ > 0 ? bytes_ / file_bytes_ : -1.0; }
  std::string Describe() const override { return errors_.path(); }

 private:
  std::ifstream in_;
  RowErrors errors_;
  int64_t line_ = 0;
  double bytes_ = 0, file_bytes_ = 0;
  int64_t first_ = -1;
  int64_t last_raw_ = INT64_MIN;
  uint64_t next_id_ = 0;
};

}  // namespace

TraceFormat DetectTraceFormat(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open the trace (no such file or not readable)");
  std::string header;
  std::getline(in, header);
  if (header.find_first_not_of(" \t") != std::string::npos && header[header.find_first_not_of(" \t")] == '{')
    return TraceFormat::kMooncake;
  auto has = [&](const char* col) { return header.find(col) != std::string::npos; };
  if (has("TIMESTAMP") && has("ContextTokens")) return TraceFormat::kAzure;
  if (has("Request tokens") && has("Response tokens")) return TraceFormat::kBurstGpt;
  if (has("arrived_at") && has("num_prefill_tokens")) return TraceFormat::kVidur;
  if (has("num_prefill_tokens") && has("num_decode_tokens")) return TraceFormat::kLengths;
  throw Error(path + ":1: unrecognised trace header '" + header.substr(0, 80) +
              "'; give --trace-format (azure, burstgpt, vidur, mooncake, csv, lengths)");
}

std::unique_ptr<RequestSource> OpenTraceReader(const TraceReaderOptions& o, std::optional<ArrivalGenerator> arrivals) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(o.path, ec)) throw Error(o.path + ": cannot open the trace (no such file)");
  CsvLayout layout;
  switch (o.format) {
    case TraceFormat::kMooncake: return std::make_unique<MooncakeSource>(o);
    case TraceFormat::kAzure:
      layout = {"TIMESTAMP", "ContextTokens", "GeneratedTokens", "", TimeUnit::kDateTime, false};
      break;
    case TraceFormat::kBurstGpt:
      layout = {"Timestamp", "Request tokens", "Response tokens", "Model", TimeUnit::kSeconds, true};
      break;
    case TraceFormat::kVidur:
      layout = {"arrived_at", "num_prefill_tokens", "num_decode_tokens", "", TimeUnit::kSeconds, false};
      break;
    case TraceFormat::kGenericCsv:
      layout = {o.arrival_column, o.prompt_column, o.output_column, "", o.time_unit, false};
      break;
    case TraceFormat::kLengths:
      if (!arrivals) throw Error("--trace-format lengths: the file has no arrival times; give --rate (and --arrival)");
      layout = {"", "num_prefill_tokens", "num_decode_tokens", "", TimeUnit::kSeconds, false};  // no arrival column
      break;
  }
  return std::make_unique<CsvTraceSource>(o, layout, std::move(arrivals));
}

}  // namespace kvsim
