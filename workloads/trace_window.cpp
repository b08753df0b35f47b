#include "workloads/trace_window.h"

#include <cmath>

#include "kvcache/base/checked_math.h"
#include "kvcache/base/error.h"

namespace kvsim {
namespace {


int64_t SecondsToNs(double seconds, const std::string& option) {
  return RoundToInt64OrThrow(seconds * 1e9, 0, kMaxArrivalNs, option + " (ns)");
}

class WindowedSource final : public RequestSource {
 public:
  WindowedSource(SourceFactory open, WindowOptions o) : open_(std::move(open)), o_(o), source_(open_()) {
    arrival_what_ = Describe() + ": arrival time (ns) after --rate-scale";
    start_ns_ = SecondsToNs(o.start_s, "--start");
    end_ns_ = o.duration_s > 0 ? AddOrThrow(start_ns_, SecondsToNs(o.duration_s, "--duration"), "--start + --duration")
                               : INT64_MAX;
  }

  std::optional<TraceRequest> Next() override {
    if (o_.max_requests > 0 && emitted_ >= o_.max_requests) return std::nullopt;
    while (true) {
      std::optional<TraceRequest> r = NextInPass();
      // Sorted arrivals: once one is past the window, so is everything after it.
      const bool ended = !r.has_value() || r->arrival_ns >= end_ns_;
      if (ended) {
        if (++pass_ >= o_.repeat || pass_count_ == 0) return std::nullopt;
        // Counted once: skipped_rows() adds the open source's count itself (adding it here too
        // before returning reported every skipped row twice).
        skipped_before_ += PassSkippedRows();
        // The next copy starts one mean gap after this copy's last arrival.
        const int64_t gap = pass_count_ > 1 ? pass_last_ / (pass_count_ - 1) : 1000000000;
        pass_offset_ = AddOrThrow(pass_offset_, AddOrThrow(pass_last_, std::max<int64_t>(gap, 1), "--repeat"),
                                  "--repeat: arrival time of the next copy");
        pass_last_ = 0;
        pass_count_ = 0;
        if (caching_) {
          first_pass_skipped_ = source_->skipped_rows();
          from_cache_ = true;
          caching_ = false;
        }
        if (from_cache_) {
          cache_next_ = 0;
        } else {
          source_ = open_();
        }
        continue;
      }
      TraceRequest& req = *r;  // speed: edited in place and returned without a move
      if (req.arrival_ns < start_ns_) continue;
      if (caching_) {
        if (cache_.size() < kMaxCachedRequests) {
          cache_.push_back(req);
        } else {
          caching_ = false;  // too large to keep: later copies read the file again
          cache_ = {};
        }
      }
      const int64_t local = req.arrival_ns - start_ns_;
      pass_last_ = local;
      ++pass_count_;
      // speed: the checked add only on overflow, where it throws: its message is a std::string built
      // per call, past the small-string size (an allocation per request).
      int64_t tiled = 0;
      if (__builtin_add_overflow(pass_offset_, local, &tiled)) tiled = AddOrThrow(pass_offset_, local, "--repeat: arrival time");
      // speed: unscaled times below 2^53 ns are what the double's division and rounding return.
      req.arrival_ns = o_.rate_scale == 1.0 && tiled >= 0 && tiled < (int64_t{1} << 53)
                           ? tiled
                           : RoundToInt64OrThrow(static_cast<double>(tiled) / o_.rate_scale, 0, kMaxArrivalNs, arrival_what_);
      req.id = static_cast<uint64_t>(emitted_++);
      return r;
    }
  }

  int64_t skipped_rows() const override { return skipped_before_ + PassSkippedRows(); }
  std::vector<std::string> warnings() const override { return source_->warnings(); }
  double progress() const override {
    const double inner = from_cache_ ? static_cast<double>(cache_next_) / static_cast<double>(std::max<size_t>(1, cache_.size()))
                                     : source_->progress();
    if (inner < 0) return -1.0;
    return (static_cast<double>(pass_) + inner) / static_cast<double>(o_.repeat);
  }
  std::string Describe() const override { return source_->Describe(); }

 private:
  // speed: with --repeat, the first copy's requests in the window are kept (up to
  // kMaxCachedRequests, about 80 bytes each plus block ids) and the later copies replay them
  // instead of parsing the file again; a larger window streams every copy from the file.
  static constexpr size_t kMaxCachedRequests = 1 << 18;
  std::optional<TraceRequest> NextInPass() {
    if (!from_cache_) return source_->Next();
    if (cache_next_ >= cache_.size()) return std::nullopt;
    return cache_[cache_next_++];
  }
  // The current copy's skipped rows: a cached copy skips what the first one did.
  int64_t PassSkippedRows() const { return from_cache_ ? first_pass_skipped_ : source_->skipped_rows(); }

  SourceFactory open_;
  WindowOptions o_;
  // speed: the arrival check's message, built once rather than per request (a million
  // allocations for the 1M replay).
  std::string arrival_what_;
  std::unique_ptr<RequestSource> source_;
  bool caching_ = o_.repeat > 1, from_cache_ = false;
  std::vector<TraceRequest> cache_;
  size_t cache_next_ = 0;
  int64_t first_pass_skipped_ = 0;
  int64_t start_ns_ = 0, end_ns_ = INT64_MAX;
  int64_t emitted_ = 0;
  int64_t pass_ = 0;
  int64_t pass_offset_ = 0, pass_last_ = 0, pass_count_ = 0;
  int64_t skipped_before_ = 0;
};

}  // namespace

std::unique_ptr<RequestSource> ApplyWindow(SourceFactory open, const WindowOptions& o) {
  if (!(o.rate_scale > 0) || !std::isfinite(o.rate_scale)) throw Error("--rate-scale: must be a positive number");
  if (o.repeat < 1 || o.repeat > 1000000) throw Error("--repeat: must be between 1 and 1000000");
  if (!(o.start_s >= 0) || !(o.duration_s >= 0)) throw Error("--start/--duration: must not be negative");
  if (o.max_requests < 0) throw Error("--max-requests: must not be negative");
  return std::make_unique<WindowedSource>(std::move(open), o);
}

}  // namespace kvsim
