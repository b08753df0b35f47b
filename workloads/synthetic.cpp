#include "workloads/synthetic.h"

#include <algorithm>
#include <cmath>
#include <libfccp/csv.h>
#include <sstream>

#include "kvcache/base/error.h"
#include "workloads/row_errors.h"

namespace kvsim {
namespace {

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::stringstream ss(s);
  for (std::string p; std::getline(ss, p, sep);) parts.push_back(p);
  return parts;
}

double Positive(const std::string& text, const std::string& option, const std::string& spec) {
  auto v = ParseDecimal(text);
  if (!v || *v <= 0) throw Error(option + ": '" + spec + "': '" + text + "' must be a positive number");
  return *v;
}

std::vector<int64_t> ReadColumn(const std::string& path, const std::string& column, const std::string& option) {
  std::vector<int64_t> out;
  try {
    io::CSVReader<1, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>> in(path);
    in.read_header(io::ignore_extra_column, column);
    std::string cell;
    while (in.read_row(cell)) {
      auto v = ParseInteger(cell);
      if (!v || *v < 1)
        throw Error(path + ":" + std::to_string(in.get_file_line()) + ": column " + column + ": '" + cell +
                    "' is not a positive integer");
      out.push_back(*v);
    }
  } catch (const io::error::base& e) {
    throw Error(option + ": " + path + ": " + e.what());
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

ArrivalGenerator::ArrivalGenerator(ArrivalKind kind, double rate_per_s, double cv, uint64_t seed) : rng_(seed) {
  if (!(rate_per_s > 0)) throw Error("--rate: must be a positive number of requests per second");
  double shape = 1.0;  // Poisson: exponential gaps
  if (kind == ArrivalKind::kGamma) {
    if (!(cv > 0)) throw Error("--cv: must be positive");
    shape = 1.0 / (cv * cv);
  }
  // Mean gap 1/rate: Gamma(shape, scale) has mean shape × scale.
  gap_s_ = std::gamma_distribution<double>(shape, 1.0 / (rate_per_s * shape));
}

int64_t ArrivalGenerator::NextArrivalNs() {
  now_s_ += gap_s_(rng_);
  return static_cast<int64_t>(std::llround(now_s_ * 1e9));
}

LengthSampler::LengthSampler(const std::string& spec, const std::string& option, const std::string& default_column)
    : spec_(spec) {
  const auto parts = Split(spec, ':');
  kind_ = parts.empty() ? "" : parts[0];
  if (kind_ == "fixed" && parts.size() == 2) {
    a_ = Positive(parts[1], option, spec);
  } else if (kind_ == "uniform" && parts.size() == 3) {
    a_ = Positive(parts[1], option, spec);
    b_ = Positive(parts[2], option, spec);
    if (b_ < a_) throw Error(option + ": '" + spec + "': the upper bound is below the lower one");
  } else if (kind_ == "lognormal" && parts.size() == 3) {
    a_ = Positive(parts[1], option, spec);  // median
    b_ = Positive(parts[2], option, spec);  // sigma of the log
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
  return std::max<int64_t>(1, static_cast<int64_t>(v));
}

std::unique_ptr<RequestSource> MakeSyntheticSource(int64_t count, ArrivalGenerator arrivals, LengthSampler prompt,
                                                   LengthSampler output, uint64_t seed) {
  return std::make_unique<SyntheticSource>(count, std::move(arrivals), std::move(prompt), std::move(output), seed);
}

}  // namespace kvsim
