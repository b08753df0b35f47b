#include "workloads/adapter_overlay.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "kvcache/base/error.h"
#include "kvcache/base/quantity_parse.h"

namespace kvsim {
namespace {

std::vector<double> Weights(const AdapterOverlayOptions& o) {
  std::vector<double> w(static_cast<size_t>(o.adapters));
  for (size_t i = 0; i < w.size(); ++i) w[i] = o.zipf_s > 0 ? std::pow(static_cast<double>(i + 1), -o.zipf_s) : 1.0;
  return w;
}

// A uniform number in [0, 1) from 64 hashed bits (SplitMix64's finalizer).
double UnitFromHash(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return static_cast<double>(x >> 11) * 0x1.0p-53;
}

class AdapterOverlay final : public RequestSource {
 public:
  AdapterOverlay(std::unique_ptr<RequestSource> inner, const AdapterOverlayOptions& o)
      : inner_(std::move(inner)), seed_(o.seed), rng_(o.seed ^ 0xada9u) {
    double sum = 0;
    for (double w : Weights(o)) cdf_.push_back(sum += w);
  }
  // A conversation's turns (one session id) keep one adapter, drawn from the session id and the
  // seed; other requests draw their own.
  std::optional<TraceRequest> Next() override {
    std::optional<TraceRequest> r = inner_->Next();
    if (!r) return r;
    const double u = r->session_id != 0 ? UnitFromHash(seed_ * 0x100000001b3ULL ^ r->session_id)
                                        : std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
    const auto it = std::upper_bound(cdf_.begin(), cdf_.end(), u * cdf_.back());
    r->adapter = static_cast<uint32_t>(std::min<ptrdiff_t>(it - cdf_.begin(), static_cast<ptrdiff_t>(cdf_.size()) - 1) + 1);
    return r;
  }
  int64_t skipped_rows() const override { return inner_->skipped_rows(); }
  std::vector<std::string> warnings() const override { return inner_->warnings(); }
  double progress() const override { return inner_->progress(); }
  std::string Describe() const override { return inner_->Describe(); }

 private:
  std::unique_ptr<RequestSource> inner_;
  uint64_t seed_;
  std::mt19937_64 rng_;
  std::vector<double> cdf_;  // cumulative weights of adapters 1..N
};

}  // namespace

AdapterOverlayOptions ParseAdapterOverlay(int64_t adapters, const std::string& popularity, uint64_t seed) {
  AdapterOverlayOptions o;
  o.seed = seed;
  if (adapters < 0 || adapters > 1000000) throw Error("--adapters: must be between 1 and 1000000");
  o.adapters = adapters;
  if (popularity.empty() || popularity == "uniform") return o;
  if (popularity.rfind("zipf:", 0) != 0)
    throw Error("--adapter-popularity: '" + popularity + "' is not uniform or zipf:S (e.g. zipf:1.1)");
  const double s = ParseFiniteNumber(popularity.substr(5), "--adapter-popularity");
  if (!(s > 0) || s > 100) throw Error("--adapter-popularity: the Zipf exponent S must be in (0, 100]");
  o.zipf_s = s;
  return o;
}

double AdapterProbability(const AdapterOverlayOptions& o, int64_t k) {
  const std::vector<double> w = Weights(o);
  double sum = 0;
  for (double x : w) sum += x;
  return w[static_cast<size_t>(k - 1)] / sum;
}

std::unique_ptr<RequestSource> ApplyAdapterOverlay(std::unique_ptr<RequestSource> source, const AdapterOverlayOptions& o) {
  if (!o.active()) return source;
  return std::make_unique<AdapterOverlay>(std::move(source), o);
}

}  // namespace kvsim
