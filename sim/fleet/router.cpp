#include "sim/fleet/router.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

#include "kvcache/base/check.h"
#include "kvcache/prefix_keys.h"

namespace kvsim {
namespace {

constexpr int kVirtualNodes = 64;

int LeastRequests(const std::vector<ReplicaLoad>& loads) {
  int best = 0;
  for (int i = 1; i < static_cast<int>(loads.size()); ++i)
    if (loads[static_cast<size_t>(i)].requests < loads[static_cast<size_t>(best)].requests) best = i;
  return best;
}

// A request's first prefix blocks, chained; requests without block ids have none.
class PrefixKeyOf {
 public:
  explicit PrefixKeyOf(int affinity_blocks) : blocks_(affinity_blocks) {}
  static bool Has(const TraceRequest& r) { return !r.block_ids.empty(); }
  uint64_t operator()(const TraceRequest& r) const {
    uint64_t key = 0x9e3779b97f4a7c15ULL;
    const size_t n = std::min(r.block_ids.size(), static_cast<size_t>(blocks_));
    for (size_t i = 0; i < n; ++i) key = ChainKey(key, r.block_ids[i]);
    return key;
  }

 private:
  int blocks_;
};

class RoundRobinRouter final : public Router {
 public:
  explicit RoundRobinRouter(int replicas) : replicas_(static_cast<uint64_t>(replicas)) {}
  int Pick(const TraceRequest&, const std::vector<ReplicaLoad>&) override { return static_cast<int>(next_++ % replicas_); }
  bool NeedsLoads() const override { return false; }

 private:
  uint64_t replicas_;
  uint64_t next_ = 0;
};

// A router that reads request counts alone: lower bounds of KV use do not concern it.
class RequestCountRouter : public Router {
 public:
  int PickFromBounds(const TraceRequest& request, std::vector<ReplicaLoad>& loads,
                     const std::function<void(size_t)>&) override {
    return Pick(request, loads);
  }
};

class LeastRequestsRouter final : public RequestCountRouter {
 public:
  int Pick(const TraceRequest&, const std::vector<ReplicaLoad>& loads) override { return LeastRequests(loads); }
  bool NeedsLoads() const override { return true; }
};

class LeastKvRouter final : public Router {
 public:
  int Pick(const TraceRequest&, const std::vector<ReplicaLoad>& loads) override {
    size_t best = 0;
    for (size_t i = 1; i < loads.size(); ++i)
      if (Before(loads[i], loads[best])) best = i;
    return static_cast<int>(best);
  }
  // speed: a replica whose lower bound does not come before the best exact load cannot win (its
  // exact load is no smaller), so only the others are made exact, smallest bound first.
  int PickFromBounds(const TraceRequest&, std::vector<ReplicaLoad>& loads,
                     const std::function<void(size_t)>& make_exact) override {
    const size_t n = loads.size();
    // The order Pick's upward scan gives: less KV, fewer requests, the lower index.
    auto first = [&](size_t i, size_t j) {
      return j == n || Before(loads[i], loads[j]) || (!Before(loads[j], loads[i]) && i < j);
    };
    size_t best = n;  // none yet
    for (size_t i = 0; i < n; ++i)
      if (!loads[i].kv_lower_bound && first(i, best)) best = i;
    while (true) {
      size_t next = n;  // the smallest bound that comes before the best
      for (size_t i = 0; i < n; ++i)
        if (loads[i].kv_lower_bound && first(i, best) && first(i, next)) next = i;
      if (next == n) break;
      make_exact(next);
      KVSIM_DCHECK(!loads[next].kv_lower_bound);
      if (first(next, best)) best = next;
    }
    return static_cast<int>(best);
  }
  bool NeedsLoads() const override { return true; }

 private:
  // Less KV in use, then fewer requests.
  static bool Before(const ReplicaLoad& a, const ReplicaLoad& b) {
    return a.kv_used_fraction < b.kv_used_fraction || (a.kv_used_fraction == b.kv_used_fraction && a.requests < b.requests);
  }
};

class PrefixAffinityRouter final : public RequestCountRouter {
 public:
  PrefixAffinityRouter(int replicas, int affinity_blocks) : key_of_(affinity_blocks) {
    for (int r = 0; r < replicas; ++r)
      for (int v = 0; v < kVirtualNodes; ++v)
        ring_.emplace_back(ChainKey(static_cast<uint64_t>(r) + 1, static_cast<uint64_t>(v)), r);
    std::sort(ring_.begin(), ring_.end());
  }
  int Pick(const TraceRequest& r, const std::vector<ReplicaLoad>& loads) override {
    if (!PrefixKeyOf::Has(r)) return LeastRequests(loads);
    const int home = OnRing(key_of_(r));
    double mean = 0;
    for (const ReplicaLoad& l : loads) mean += static_cast<double>(l.requests);
    mean /= static_cast<double>(loads.size());
    const bool overloaded = static_cast<double>(loads[static_cast<size_t>(home)].requests) > 1.25 * mean + 4;
    return overloaded ? LeastRequests(loads) : home;
  }
  bool NeedsLoads() const override { return true; }

 private:
  int OnRing(uint64_t key) const {
    auto it = std::lower_bound(ring_.begin(), ring_.end(), std::make_pair(key, 0));
    return it == ring_.end() ? ring_.front().second : it->second;
  }
  PrefixKeyOf key_of_;
  std::vector<std::pair<uint64_t, int>> ring_;  // (point, replica), sorted
};

class SessionRouter final : public RequestCountRouter {
 public:
  SessionRouter(int replicas, int affinity_blocks) : replicas_(static_cast<uint64_t>(replicas)), key_of_(affinity_blocks) {}
  int Pick(const TraceRequest& r, const std::vector<ReplicaLoad>& loads) override {
    uint64_t key = 0;
    if (r.session_id != 0) key = ChainKey(1, r.session_id);
    else if (PrefixKeyOf::Has(r)) key = key_of_(r);
    else return static_cast<int>(next_++ % replicas_);
    auto [it, inserted] = sessions_.try_emplace(key, 0);
    if (inserted) it->second = LeastRequests(loads);  // a new session goes where there is room
    return it->second;
  }
  bool NeedsLoads() const override { return true; }

 private:
  uint64_t replicas_;
  PrefixKeyOf key_of_;
  uint64_t next_ = 0;
  std::unordered_map<uint64_t, int> sessions_;  // session key -> replica
};

}  // namespace

int Router::PickFromBounds(const TraceRequest& request, std::vector<ReplicaLoad>& loads,
                           const std::function<void(size_t)>& make_exact) {
  for (size_t i = 0; i < loads.size(); ++i)
    if (loads[i].kv_lower_bound) make_exact(i);
  return Pick(request, loads);
}

std::unique_ptr<Router> MakeRouter(RouterKind kind, int replicas, int affinity_blocks) {
  KVSIM_CHECK(replicas >= 1 && affinity_blocks >= 1, "a router needs replicas and affinity blocks");
  switch (kind) {
    case RouterKind::kRoundRobin: return std::make_unique<RoundRobinRouter>(replicas);
    case RouterKind::kLeastRequests: return std::make_unique<LeastRequestsRouter>();
    case RouterKind::kLeastKv: return std::make_unique<LeastKvRouter>();
    case RouterKind::kPrefixAffinity: return std::make_unique<PrefixAffinityRouter>(replicas, affinity_blocks);
    case RouterKind::kSession: return std::make_unique<SessionRouter>(replicas, affinity_blocks);
  }
  KVSIM_CHECK(false, "unknown router kind");
  return nullptr;
}

}  // namespace kvsim
