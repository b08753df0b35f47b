#include "cli/numeric_options.h"

#include <cmath>
#include <cstdint>
#include <optional>

#include <boost/optional.hpp>

#include "kvcache/base/error.h"
#include "kvcache/base/text_format.h"
#include "kvcache/model/gpu_catalog.h"

namespace kvsim {
namespace {

struct NamedOptionRange {
  const char* name;
  OptionRange range;
};

// Times are bounded so that seconds x 10^9 (nanoseconds) stays inside int64 with room for sums;
// rate scales so that a scaled trace neither overflows nor collapses to one instant.
constexpr NamedOptionRange kRanges[] = {
    {"rate-scale", {1e-3, 1e6, false}},
    {"start", {0, 1e9, false}},
    // 0 is what leaving --duration or --max-requests out means (no limit): given, it would read as
    // "no arrivals" or "no requests" yet replay the whole trace, so a given 0 is refused.
    {"duration", {0, 1e9, true}},
    {"rate", {0, 1e9, true}},
    {"cv", {0, 1e3, true}},
    {"synthetic", {1, 1e9, false}},
    {"max-requests", {1, 1e12, false}},
    {"repeat", {1, 1e6, false}},
    {"adapters", {1, 1e6, false}},
    {"adapter-disk-read", {0, 1e4, true}},
    {"step-time-ms", {0, 1e6, true}},
    {"sample-interval", {0, 1e9, false}},
    {"compute-efficiency", {0, 1, true}},
    {"memory-efficiency", {0, 1, true}},
    {"step-overhead-ms", {0, 1000, false}},
    {"max-preemption-rate", {0, 1e6, false}},
    {"precision", {1e-6, 0.5, false}},
    {"min-weights-pass", {0, 1, false}},
    {"min-kv-pass", {0, 1, false}},
    {"tensor-parallel-size", {1, 1024, false}},
    {"pipeline-parallel-size", {1, 1024, false}},
    {"decode-context-parallel-size", {1, 1024, false}},
    {"jobs", {1, 256, false}},
    {"decode-seqs", {0, 1e7, false}},
    {"decode-context", {0, 1e10, false}},
    {"prefill-seqs", {0, 1e7, false}},
    {"prefill-tokens", {0, 1e10, false}},
    {"prefill-context", {0, 1e10, false}},
    {"gpu-memory-utilization", {0, 1, true}},
    {"gpu-memory-gib", {0, 1e6, true}},
    {"max-model-len", {1, 4294967296.0, false}},
    {"max-num-seqs", {1, 1e7, false}},
    {"max-num-batched-tokens", {1, 4294967296.0, false}},
    {"block-size", {1, 1048576, false}},
    {"gpu-tflops", {0, kMaxGpuTflops, true}},
    {"kv-cache-memory", {0, 1e15, true}},  // bytes
    {"scheduler-recv-interval", {0, 1000, false}},  // past 1000 a prefill no longer resets SGLang's counter
};

constexpr OptionRange kDefaultRange{0, 9007199254740992.0, false};  // 2^53: exact in a double

std::optional<double> NumberIn(const boost::any& value) {
  if (const double* d = boost::any_cast<double>(&value)) return *d;
  if (const int* i = boost::any_cast<int>(&value)) return static_cast<double>(*i);
  if (const int64_t* l = boost::any_cast<int64_t>(&value)) return static_cast<double>(*l);
  if (const long long* ll = boost::any_cast<long long>(&value)) return static_cast<double>(*ll);
  if (const uint64_t* u = boost::any_cast<uint64_t>(&value)) return static_cast<double>(*u);
  if (const unsigned* u = boost::any_cast<unsigned>(&value)) return static_cast<double>(*u);
  // Options that may be absent are stored as boost::optional.
  if (const auto* od = boost::any_cast<boost::optional<double>>(&value); od && *od) return **od;
  if (const auto* oi = boost::any_cast<boost::optional<int64_t>>(&value); oi && *oi) return static_cast<double>(**oi);
  if (const auto* on = boost::any_cast<boost::optional<int>>(&value); on && *on) return static_cast<double>(**on);
  return std::nullopt;
}

}  // namespace

OptionRange NumericOptionRange(const std::string& option) {
  for (const NamedOptionRange& r : kRanges)
    if (option == r.name) return r.range;
  return kDefaultRange;
}

std::string RangeText(const OptionRange& range) {
  return (range.lo_open ? "(" : "[") + Format("%g", range.lo) + ", " + Format("%g", range.hi) + "]";
}

void CheckOptionValue(const std::string& option, double value) {
  const OptionRange r = NumericOptionRange(option);
  const bool below = r.lo_open ? !(value > r.lo) : !(value >= r.lo);
  if (std::isfinite(value) && !below && value <= r.hi) return;
  throw Error("--" + option + ": " + Format("%g", value) + " is outside the accepted range " + RangeText(r));
}

void ValidateNumericOptions(const boost::program_options::variables_map& vm) {
  for (const auto& [name, entry] : vm) {
    if (entry.defaulted() || entry.empty()) continue;
    // The seed is an identifier, not a quantity: every 64-bit value is fine.
    if (name == "seed") continue;
    if (std::optional<double> v = NumberIn(entry.value())) CheckOptionValue(name, *v);
  }
}

}  // namespace kvsim
