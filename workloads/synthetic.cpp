#include "workloads/synthetic.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "kvcache/base/checked_math.h"
#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "kvcache/base/csv_cells.h"
#include "kvcache/base/line_reader.h"
#include "workloads/row_errors.h"

namespace kvsim {
namespace {

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::stringstream ss(s);
  for (std::string p; std::getline(ss, p, sep);) parts.push_back(p);
  return parts;
}

// A positive number; `max` bounds it (a length of 1e30 tokens is a typo, not a request).
double Positive(const std::string& text, const std::string& option, const std::string& spec, double max) {
  auto v = ParseDecimal(text);
  if (!v || *v <= 0 || *v > max)
    throw Error(option + ": '" + spec + "': '" + text + "' must be a number in (0, " + Format("%g", max) + "]");
  return *v;
}

std::vector<int64_t> ReadColumn(const std::string& path, const std::string& column, const std::string& option) {
  std::vector<int64_t> out;
  LineReader in(path, option + " file");
  std::string line;
  std::vector<std::string> cells;
  if (!in.Next(line) || !SplitCsvLine(line, cells)) throw Error(option + ": " + path + ":1: no CSV header");
  const auto col = std::find(cells.begin(), cells.end(), column);
  if (col == cells.end()) throw Error(option + ": " + path + ":1: missing column '" + PrintableExcerpt(column) + "'");
  if (std::find(col + 1, cells.end(), column) != cells.end())
    throw Error(option + ": " + path + ":1: column '" + PrintableExcerpt(column) + "' appears twice in the header; kvsim cannot tell which to read");
  const size_t index = static_cast<size_t>(col - cells.begin());
  while (in.Next(line)) {
    if (IsBlankLine(line)) continue;
    const std::string where = path + ":" + std::to_string(in.line_number()) + ": column " + column + ": ";
    if (!SplitCsvLine(line, cells) || cells.size() <= index) throw Error(option + ": " + where + "the row has too few cells");
    auto v = ParseInteger(cells[index]);
    if (!v || *v < 1 || *v > kMaxRequestTokens)
      throw Error(option + ": " + where + "'" + PrintableExcerpt(cells[index]) + "' is not a whole number in [1, " +
                  std::to_string(kMaxRequestTokens) + "]");
    out.push_back(*v);
  }
  if (out.empty()) throw Error(option + ": " + path + " has no rows");
  return out;
}

class SyntheticSource final : public RequestSource {
 public:
  SyntheticSource(int64_t count, ArrivalGenerator arrivals, LengthSampler prompt, LengthSampler output, uint64_t seed)
      : count_(count), arrivals_(std::move(arrivals)), prompt_(std::move(prompt)), output_(std::move(output)),
        rng_(seed ^ 0x5eed5eed5eedULL) {}

  std::optional<TraceRequest> Next() override {
    if (next_ >= count_) return std::nullopt;
    TraceRequest r;
    r.id = static_cast<uint64_t>(next_++);
    const int64_t at = arrivals_.NextArrivalNs();
    if (first_ < 0) first_ = at;
    r.arrival_ns = at - first_;
    r.prompt_tokens = prompt_.Sample(rng_);
    r.output_tokens = output_.Sample(rng_);
    return r;
  }
  double progress() const override { return static_cast<double>(next_) / static_cast<double>(count_); }
  std::string Describe() const override {
    return "synthetic: " + std::to_string(count_) + " requests, prompt " + prompt_.Describe() + ", output " +
           output_.Describe();
  }

 private:
  int64_t count_;
  int64_t next_ = 0;
  int64_t first_ = -1;
  ArrivalGenerator arrivals_;
  LengthSampler prompt_, output_;
  std::mt19937_64 rng_;
};

}  // namespace

ArrivalGenerator::ArrivalGenerator(ArrivalKind kind, double rate_per_s, double cv, uint64_t seed)
    : rng_(seed), all_at_once_(std::isinf(rate_per_s) && rate_per_s > 0) {
  if (!(rate_per_s > 0)) throw Error("--rate: must be a positive number of requests per second");
  // inf: every request at once (vllm bench serve's default --request-rate), paced by closed-loop clients.
  if (std::isinf(rate_per_s)) return;
  double shape = 1.0;  // Poisson: exponential gaps
  if (kind == ArrivalKind::kGamma) {
    if (!(cv > 0)) throw Error("--cv: must be positive");
    shape = 1.0 / (cv * cv);
  }
  // Mean gap 1/rate: Gamma(shape, scale) has mean shape × scale.
  gap_s_ = std::gamma_distribution<double>(shape, 1.0 / (rate_per_s * shape));
}

int64_t ArrivalGenerator::NextArrivalNs() {
  if (all_at_once_) return 0;
  now_s_ += gap_s_(rng_);
  return RoundToInt64OrThrow(now_s_ * 1e9, 0, kMaxArrivalNs, "--rate: arrival time (ns) of a generated request");
}

LengthSampler::LengthSampler(const std::string& spec, const std::string& option, const std::string& default_column)
    : spec_(spec) {
  const auto parts = Split(spec, ':');
  kind_ = parts.empty() ? "" : parts[0];
  if (kind_ == "fixed" && parts.size() == 2) {
    a_ = Positive(parts[1], option, spec, static_cast<double>(kMaxRequestTokens));
  } else if (kind_ == "uniform" && parts.size() == 3) {
    a_ = Positive(parts[1], option, spec, static_cast<double>(kMaxRequestTokens));
    b_ = Positive(parts[2], option, spec, static_cast<double>(kMaxRequestTokens));
    if (b_ < a_) throw Error(option + ": '" + spec + "': the upper bound is below the lower one");
  } else if (kind_ == "lognormal" && parts.size() == 3) {
    a_ = Positive(parts[1], option, spec, static_cast<double>(kMaxRequestTokens));  // median
    b_ = Positive(parts[2], option, spec, 10.0);  // sigma of the log
  } else if (kind_ == "empirical" && (parts.size() == 2 || parts.size() == 3)) {
    samples_ = ReadColumn(parts[1], parts.size() == 3 ? parts[2] : default_column, option);
  } else {
    throw Error(option + ": '" + spec + "' is not fixed:N, uniform:A:B, lognormal:MEDIAN:SIGMA or empirical:FILE[:COLUMN]");
  }
}

int64_t LengthSampler::Sample(std::mt19937_64& rng) {
  double v = 0;
  if (kind_ == "fixed") {
    v = a_;
  } else if (kind_ == "uniform") {
    v = std::uniform_real_distribution<double>(a_, b_ + 1.0)(rng);
  } else if (kind_ == "lognormal") {
    v = std::lognormal_distribution<double>(std::log(a_), b_)(rng);
  } else {
    return samples_[std::uniform_int_distribution<size_t>(0, samples_.size() - 1)(rng)];
  }
  // A lognormal tail can pass any bound: clamp rather than convert an out-of-range double.
  return std::clamp<int64_t>(static_cast<int64_t>(std::min(v, static_cast<double>(kMaxRequestTokens))), 1,
                             kMaxRequestTokens);
}

std::unique_ptr<RequestSource> MakeSyntheticSource(int64_t count, ArrivalGenerator arrivals, LengthSampler prompt,
                                                   LengthSampler output, uint64_t seed) {
  return std::make_unique<SyntheticSource>(count, std::move(arrivals), std::move(prompt), std::move(output), seed);
}

}  // namespace kvsim
