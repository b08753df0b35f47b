#include "sim/router.h"

#include <algorithm>

#include "kvcache/base/check.h"
#include "kvcache/prefix_keys.h"

namespace kvsim {
namespace {

constexpr int kVirtualNodes = 64;

}  // namespace

Router::Router(RouterKind kind, int replicas, int affinity_blocks)
    : kind_(kind), replicas_(replicas), affinity_blocks_(affinity_blocks) {
  KVSIM_CHECK(replicas >= 1 && affinity_blocks >= 1, "a router needs replicas and affinity blocks");
  if (kind == RouterKind::kPrefixAffinity) {
    for (int r = 0; r < replicas; ++r)
      for (int v = 0; v < kVirtualNodes; ++v)
        ring_.emplace_back(ChainKey(static_cast<uint64_t>(r) + 1, static_cast<uint64_t>(v)), r);
    std::sort(ring_.begin(), ring_.end());
  }
}

uint64_t Router::PrefixKey(const TraceRequest& r) const {
  uint64_t key = 0x9e3779b97f4a7c15ULL;
  const size_t n = std::min(r.block_ids.size(), static_cast<size_t>(affinity_blocks_));
  for (size_t i = 0; i < n; ++i) key = ChainKey(key, r.block_ids[i]);
  return key;
}

int Router::OnRing(uint64_t key) const {
  auto it = std::lower_bound(ring_.begin(), ring_.end(), std::make_pair(key, 0));
  return it == ring_.end() ? ring_.front().second : it->second;
}

int Router::LeastRequests(const std::vector<ReplicaLoad>& loads) const {
  int best = 0;
  for (int i = 1; i < replicas_; ++i)
    if (loads[static_cast<size_t>(i)].requests < loads[static_cast<size_t>(best)].requests) best = i;
  return best;
}

int Router::LeastKv(const std::vector<ReplicaLoad>& loads) const {
  int best = 0;
  for (int i = 1; i < replicas_; ++i) {
    const ReplicaLoad& a = loads[static_cast<size_t>(i)];
    const ReplicaLoad& b = loads[static_cast<size_t>(best)];
    if (a.kv_used_fraction < b.kv_used_fraction || (a.kv_used_fraction == b.kv_used_fraction && a.requests < b.requests))
      best = i;
  }
  return best;
}

int Router::Pick(const TraceRequest& r, const std::vector<ReplicaLoad>& loads) {
  KVSIM_CHECK(static_cast<int>(loads.size()) == replicas_, "one load per replica");
  switch (kind_) {
    case RouterKind::kRoundRobin: return static_cast<int>(next_++ % static_cast<uint64_t>(replicas_));
    case RouterKind::kLeastRequests: return LeastRequests(loads);
    case RouterKind::kLeastKv: return LeastKv(loads);
    case RouterKind::kPrefixAffinity: {
      if (!HasPrefixKey(r)) return LeastRequests(loads);
      const int home = OnRing(PrefixKey(r));
      double mean = 0;
      for (const ReplicaLoad& l : loads) mean += static_cast<double>(l.requests);
      mean /= replicas_;
      const bool overloaded = static_cast<double>(loads[static_cast<size_t>(home)].requests) > 1.25 * mean + 4;
      return overloaded ? LeastRequests(loads) : home;
    }
    case RouterKind::kSession: {
      uint64_t key = 0;
      if (r.session_id != 0) key = ChainKey(1, r.session_id);
      else if (HasPrefixKey(r)) key = PrefixKey(r);
      else return static_cast<int>(next_++ % static_cast<uint64_t>(replicas_));
      auto [it, inserted] = sessions_.try_emplace(key, 0);
      if (inserted) it->second = LeastRequests(loads);  // a new session goes where there is room
      return it->second;
    }
  }
  return 0;
}

}  // namespace kvsim
