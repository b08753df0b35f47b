// Prefix caching on a real trace (Mooncake synthetic_trace.jsonl, 512-token hash_ids) against
// computations written here without the allocator: a set of seen blocks for an unbounded pool, and
// a direct LRU free-queue simulation for a bounded one. Requests run one after another (admit the
// whole prompt, then free), so the cache state depends only on the order of requests.
#include <gtest/gtest.h>

#include <fstream>
#include <list>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <unordered_set>

#include "kvcache/paged_allocator.h"
#include "kvcache/prefix_keys.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

struct TraceRequest {
  int64_t input_length = 0;
  std::vector<uint64_t> hash_ids;
};

std::vector<TraceRequest> LoadMooncake(const std::string& path) {
  std::ifstream in(path);
  std::vector<TraceRequest> out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const auto j = nlohmann::json::parse(line);
    out.push_back({j.at("input_length").get<int64_t>(), j.at("hash_ids").get<std::vector<uint64_t>>()});
  }
  return out;
}

const std::vector<TraceRequest>& Trace() {
  static const std::vector<TraceRequest> trace = LoadMooncake(testing::SharedPath("traces/mooncake/synthetic_trace.jsonl"));
  return trace;
}

struct HitCount {
  int64_t queried = 0;
  int64_t hits = 0;
};

// Replays the trace through a PagedAllocator with 512-token blocks (one pool block per hash id).
HitCount ReplayThroughAllocator(int64_t num_blocks) {
  PagedAllocatorOptions o;
  o.num_blocks = num_blocks;
  o.block_size = 512;
  o.enable_prefix_caching = true;
  PagedAllocator a(o);
  RequestId id = 0;
  for (const TraceRequest& r : Trace()) {
    const auto keys = KeysFromTraceBlocks(r.hash_ids, 512, r.input_length, 512);
    AdmitRequest q;
    q.id = ++id;
    q.prompt_tokens = r.input_length;
    q.final_tokens = r.input_length;
    q.prefix_keys = keys;
    EXPECT_TRUE(a.Admit(q, r.input_length)) << "request " << id;
    a.Free(q.id);
  }
  return {a.prefix_queried_blocks(), a.prefix_hit_blocks()};
}

// Blocks a request may take from the cache: its full prompt blocks, but never the last token.
int64_t Eligible(const TraceRequest& r) {
  const int64_t full = std::min<int64_t>(r.input_length / 512, static_cast<int64_t>(r.hash_ids.size()));
  return std::min<int64_t>(full, (r.input_length - 1) / 512);
}

TEST(PrefixCacheTraceTest, UnboundedPoolHitsEveryRepeatedBlockOfAChain) {
  ASSERT_GT(Trace().size(), 3000u);
  // Independent count: the leading ids of each request that an earlier request already had as a
  // full block. Mooncake ids form a prefix tree, so a repeated id repeats its whole chain.
  std::unordered_set<uint64_t> seen;
  HitCount expected;
  int64_t all_ids = 0, repeated_ids = 0;
  for (const TraceRequest& r : Trace()) {
    for (uint64_t h : r.hash_ids) repeated_ids += seen.count(h) > 0, ++all_ids;
    const int64_t eligible = Eligible(r);
    expected.queried += eligible;
    int64_t i = 0;
    while (i < eligible && seen.count(r.hash_ids[i])) ++i;
    expected.hits += i;
    for (int64_t k = 0; k < std::min<int64_t>(r.input_length / 512, static_cast<int64_t>(r.hash_ids.size())); ++k)
      seen.insert(r.hash_ids[k]);
  }
  int64_t total_blocks = 2;
  for (const TraceRequest& r : Trace()) total_blocks += (r.input_length + 511) / 512;
  const HitCount got = ReplayThroughAllocator(total_blocks);  // never evicts
  EXPECT_EQ(got.queried, expected.queried);
  EXPECT_EQ(got.hits, expected.hits);
  const double fraction = static_cast<double>(got.hits) / static_cast<double>(got.queried);
  // The raw share of hash_ids that repeat an earlier id (the trace README's "64%") differs only by
  // the partial last blocks and the last-token cap.
  const double raw = static_cast<double>(repeated_ids) / static_cast<double>(all_ids);
  std::printf("prefix hit fraction %.4f (%lld / %lld blocks); raw repeated hash_ids %.4f\n", fraction,
              static_cast<long long>(got.hits), static_cast<long long>(got.queried), raw);
  EXPECT_NEAR(fraction, raw, 0.05);
}

// A direct simulation of vLLM's free queue: a list of blocks (front = next to evict), each holding
// a prefix id or nothing; hits are taken out of the list, a request's blocks return tail first.
HitCount DirectLruSimulation(int64_t usable_blocks) {
  struct Slot { bool has_id; uint64_t id; };
  std::list<Slot> queue(static_cast<size_t>(usable_blocks), Slot{false, 0});
  std::unordered_map<uint64_t, std::list<Slot>::iterator> where;
  HitCount count;
  for (const TraceRequest& r : Trace()) {
    const int64_t eligible = Eligible(r);
    count.queried += eligible;
    const int64_t blocks = (r.input_length + 511) / 512;
    const int64_t full = std::min<int64_t>(r.input_length / 512, static_cast<int64_t>(r.hash_ids.size()));
    std::vector<Slot> held;
    int64_t i = 0;
    while (i < eligible && where.count(r.hash_ids[i])) {
      auto it = where[r.hash_ids[i]];
      held.push_back(*it);
      queue.erase(it);
      where.erase(r.hash_ids[i]);
      ++i;
    }
    count.hits += i;
    for (int64_t b = i; b < blocks; ++b) {
      Slot s = queue.front();
      queue.pop_front();
      if (s.has_id) where.erase(s.id);
      // The block now holds this request's content: an id if it is a full prompt block whose id is
      // not already cached elsewhere.
      s.has_id = b < full && !where.count(r.hash_ids[b]);
      s.id = s.has_id ? r.hash_ids[b] : 0;
      held.push_back(s);
    }
    for (auto s = held.rbegin(); s != held.rend(); ++s) {
      queue.push_back(*s);
      if (s->has_id) where[s->id] = std::prev(queue.end());
    }
  }
  return count;
}

TEST(PrefixCacheTraceTest, BoundedPoolMatchesADirectLruSimulation) {
  int64_t largest = 0;
  for (const TraceRequest& r : Trace()) largest = std::max<int64_t>(largest, (r.input_length + 511) / 512);
  for (int64_t usable : {largest, 2 * largest, int64_t{4000}}) {
    const HitCount expected = DirectLruSimulation(usable);
    const HitCount got = ReplayThroughAllocator(usable + 1);  // + the null block
    EXPECT_EQ(got.queried, expected.queried) << usable;
    EXPECT_EQ(got.hits, expected.hits) << "pool of " << usable << " blocks";
    std::printf("pool %lld blocks: hit fraction %.4f\n", static_cast<long long>(usable),
                static_cast<double>(got.hits) / static_cast<double>(got.queried));
  }
}

}  // namespace
}  // namespace kvsim
