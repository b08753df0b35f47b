// Requests per replica over time (running + waiting), the maximum per interval; the interval
// doubles (pairs merged) whenever the run outgrows kIntervals of them, so memory is constant. Each
// replica's count is recorded when it changes, in that replica's time order (replicas may run
// ahead of each other); a count holds until the replica's next record.
#ifndef KVSIM_SIM_FLEET_LOAD_SERIES_H_
#define KVSIM_SIM_FLEET_LOAD_SERIES_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kvsim {

class LoadSeries {
 public:
  explicit LoadSeries(size_t replicas) : series_(replicas), last_(replicas) {}
  void Record(size_t replica, int64_t t_ns, int64_t requests) {
    while (t_ns >= kIntervals * width_ns_) Widen();
    std::vector<int64_t>& s = series_[replica];
    Last& last = last_[replica];
    // speed: most records fall in the interval of the replica's previous one (no division).
    if (t_ns >= last.end_ns) {
      const size_t k = static_cast<size_t>(t_ns / width_ns_);
      if (s.size() <= k) s.resize(k + 1, 0);
      for (size_t i = last.interval; i < k; ++i) s[i] = std::max(s[i], last.requests);  // held since then
      last.interval = k;
      last.end_ns = static_cast<int64_t>(k + 1) * width_ns_;
    }
    s[last.interval] = std::max({s[last.interval], last.requests, requests});
    last.t_ns = t_ns;
    last.requests = requests;
  }
  double interval_s() const { return static_cast<double>(width_ns_) / 1e9; }
  const std::vector<std::vector<int64_t>>& series() const { return series_; }

 private:
  struct Last {
    int64_t t_ns = 0, requests = 0;
    size_t interval = 0;  // t_ns's interval; ends at end_ns
    int64_t end_ns = 0;
  };
  void Widen() {
    for (auto& s : series_) {
      for (size_t i = 0; i < s.size(); i += 2) s[i / 2] = std::max(s[i], i + 1 < s.size() ? s[i + 1] : 0);
      s.resize((s.size() + 1) / 2);
    }
    width_ns_ *= 2;
    for (Last& l : last_) {
      l.interval = static_cast<size_t>(l.t_ns / width_ns_);
      l.end_ns = static_cast<int64_t>(l.interval + 1) * width_ns_;
    }
  }
  static constexpr int64_t kIntervals = 512;
  int64_t width_ns_ = 1'000'000'000;
  std::vector<std::vector<int64_t>> series_;
  std::vector<Last> last_;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_FLEET_LOAD_SERIES_H_
