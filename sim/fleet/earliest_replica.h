// The replica with the earliest next event (a step start or a queued arrival), kept in a
// tournament tree: a replica's change replays its path to the root (log2 N matches) instead of the
// event loop scanning every replica per event. Ties go to the lower index, as a scan's would.
#ifndef KVSIM_SIM_FLEET_EARLIEST_REPLICA_H_
#define KVSIM_SIM_FLEET_EARLIEST_REPLICA_H_

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kvsim {

class EarliestReplica {
 public:
  explicit EarliestReplica(size_t n) : leaves_(std::bit_ceil(std::max<size_t>(n, 1))), key_(2 * leaves_, INT64_MAX), winner_(2 * leaves_) {
    for (size_t i = 0; i < leaves_; ++i) winner_[leaves_ + i] = i;
    for (size_t v = leaves_ - 1; v >= 1; --v) Match(v);
  }
  // The replica's next event is at t_ns (INT64_MAX: none).
  void Set(size_t replica, int64_t t_ns) {
    size_t v = leaves_ + replica;
    key_[v] = t_ns;
    for (v /= 2; v >= 1; v /= 2) Match(v);
  }
  size_t replica() const { return winner_[1]; }
  int64_t time_ns() const { return key_[1]; }

 private:
  void Match(size_t v) {
    const size_t a = 2 * v, b = 2 * v + 1;
    const size_t w = key_[b] < key_[a] ? b : a;  // the left (lower indices) wins ties
    key_[v] = key_[w];
    winner_[v] = winner_[w];
  }
  size_t leaves_;
  std::vector<int64_t> key_;  // nodes 1.. (leaves from leaves_)
  std::vector<size_t> winner_;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_FLEET_EARLIEST_REPLICA_H_
