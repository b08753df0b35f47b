// Seeded synthetic workloads: arrival processes (Poisson, Gamma with a given coefficient of
// variation) and length distributions (fixed, uniform, lognormal, empirical from a file).
#ifndef KVSIM_WORKLOADS_SYNTHETIC_H_
#define KVSIM_WORKLOADS_SYNTHETIC_H_

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kvcache/base/enum_names.h"
#include "workloads/request_source.h"

namespace kvsim {

enum class ArrivalKind { kPoisson, kGamma };
template <>
struct EnumNames<ArrivalKind> {
  static constexpr EnumEntry<ArrivalKind> kEntries[] = {{ArrivalKind::kPoisson, "poisson"}, {ArrivalKind::kGamma, "gamma"}};
};

// Inter-arrival gaps: Poisson (exponential gaps) or Gamma with coefficient of variation `cv`
// (cv = 1 is Poisson; > 1 burstier). Mean rate `rate_per_s` requests per second.
class ArrivalGenerator {
 public:
  // Throws kvsim::Error for rate <= 0 or cv <= 0. A rate of +inf sends every request at 0.
  ArrivalGenerator(ArrivalKind kind, double rate_per_s, double cv, uint64_t seed);
  int64_t NextArrivalNs();  // cumulative, first arrival after one gap

 private:
  std::mt19937_64 rng_;
  std::gamma_distribution<double> gap_s_;
  double now_s_ = 0;
  bool all_at_once_ = false;  // rate inf: every arrival at 0
};

// A token-length distribution. Specs: "fixed:N", "uniform:A:B", "lognormal:MEDIAN:SIGMA",
// "empirical:FILE[:COLUMN]" (samples the column of a CSV: num_prefill_tokens, ContextTokens, ...).
class LengthSampler {
 public:
  // Throws kvsim::Error naming `option` for a malformed spec or an unreadable file.
  LengthSampler(const std::string& spec, const std::string& option, const std::string& default_column);
  int64_t Sample(std::mt19937_64& rng);
  std::string Describe() const { return spec_; }

 private:
  std::string spec_;
  std::string kind_;
  double a_ = 0, b_ = 0;
  std::vector<int64_t> samples_;
};

// `count` requests with generated arrivals and lengths.
std::unique_ptr<RequestSource> MakeSyntheticSource(int64_t count, ArrivalGenerator arrivals, LengthSampler prompt,
                                                   LengthSampler output, uint64_t seed);

}  // namespace kvsim

#endif  // KVSIM_WORKLOADS_SYNTHETIC_H_
