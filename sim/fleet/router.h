// Routers: which replica an arriving request goes to. Each sees the replicas' load as of their
// last finished step (a production router polls engine metrics the same way: it never sees a step
// in flight). A new policy implements Router and gets a RouterKind and a case in MakeRouter.
//
//   round-robin     replica (k mod N) for the k-th request
//   least-requests  fewest requests in the replica (running + waiting); lowest index on ties
//   least-kv        lowest KV-cache use, counting the blocks the waiting prompts will take
//                   ((used + pending) / usable blocks), then fewest requests
//   prefix-affinity consistent hashing (64 virtual nodes per replica) of the request's first
//                   prefix blocks, so requests that share a prompt prefix meet the same cache; a
//                   replica holding more than 1.25 x the mean load + 4 requests counts as
//                   overloaded and the request goes to the least-requests replica instead (the
//                   llm-d / vLLM production-stack rule). Requests without block ids: least-requests.
//   session         sticky by session id (conversations from the synthetic generator); traces
//                   without one are keyed by their first prefix blocks (a conversation's turns share
//                   them), and requests with neither go round-robin.
#ifndef KVSIM_SIM_FLEET_ROUTER_H_
#define KVSIM_SIM_FLEET_ROUTER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "kvcache/base/enum_names.h"
#include "workloads/request_source.h"

namespace kvsim {

enum class RouterKind { kRoundRobin, kLeastRequests, kLeastKv, kPrefixAffinity, kSession };
template <>
struct EnumNames<RouterKind> {
  static constexpr EnumEntry<RouterKind> kEntries[] = {{RouterKind::kRoundRobin, "round-robin"},
                                                       {RouterKind::kLeastRequests, "least-requests"},
                                                       {RouterKind::kLeastKv, "least-kv"},
                                                       {RouterKind::kPrefixAffinity, "prefix-affinity"},
                                                       {RouterKind::kSession, "session"}};
};

// What a router sees of one replica.
struct ReplicaLoad {
  int64_t requests = 0;         // running + waiting
  double kv_used_fraction = 0;  // (used + blocks of waiting prompts) / usable blocks
  // kv_used_fraction is a lower bound: the replica has steps left before the arrival, all of them
  // decode steps of the requests it holds, which can only add blocks (requests is exact).
  bool kv_lower_bound = false;
};

class Router {
 public:
  virtual ~Router() = default;
  // The replica for `request`. REQUIRES: loads.size() == the replica count; no lower bounds.
  virtual int Pick(const TraceRequest& request, const std::vector<ReplicaLoad>& loads) = 0;
  // As Pick, where some loads may be lower bounds and `make_exact(i)` replaces replica i's with its
  // exact figure (the event loop steps the replica to the arrival). The default makes every one
  // exact; a router that reads KV use asks only for the replicas that can still win.
  virtual int PickFromBounds(const TraceRequest& request, std::vector<ReplicaLoad>& loads,
                             const std::function<void(size_t)>& make_exact);
  // Whether Pick reads the loads. A router that does not lets the event loop route requests as it
  // reads them, and each replica run ahead to its own next arrival.
  virtual bool NeedsLoads() const = 0;
};

// Trace block ids hashed for affinity: the first `affinity_blocks` (2 Mooncake blocks = 1,024
// tokens: past the shared system prompt, within a conversation's first turn).
std::unique_ptr<Router> MakeRouter(RouterKind kind, int replicas, int affinity_blocks = 2);

}  // namespace kvsim

#endif  // KVSIM_SIM_FLEET_ROUTER_H_
