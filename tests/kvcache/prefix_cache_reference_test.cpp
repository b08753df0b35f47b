// PagedAllocator with prefix caching against a straightforward reference written here: vLLM v1's
// rules (block_pool.py, kv_cache_manager.py, v0.8) over a std::list free queue and a per-block
// std::unordered_map key index, with nothing cached, counted or indexed by group:
//   - a request's hits are the longest run of leading prompt keys found in the index, at most
//     (prompt − 1) / block_size blocks; a hit block in the free queue is taken out of it;
//   - new blocks are popped from the queue's front; a popped block loses its key (eviction);
//   - once full, a prompt block is registered under its key unless the key is already indexed
//     (the first block registered under a key stays the cached one; a duplicate is not offered
//     again later);
//   - a freed request's blocks are appended tail first; they keep their keys.
// Seeded random admit / grow / free sequences must give the same admission decisions, the same
// block ids for every request, the same hit counts and the same free and cached totals after every
// operation, with the allocator's invariant check run after each. Keys come from trace block ids
// whose blocks span `group` pool blocks (prefix_keys.h), declared to the allocator as
// AdmitRequest::prefix_key_group, including requests that declare different groups.
#include <gtest/gtest.h>

#include <algorithm>
#include <list>
#include <map>
#include <random>
#include <unordered_map>
#include <vector>

#include "kvcache/paged_allocator.h"
#include "kvcache/prefix_keys.h"

namespace kvsim {
namespace {

constexpr int64_t kB = 4;  // tokens per block: small, so prompts span many blocks cheaply

class ReferencePool {
 public:
  explicit ReferencePool(int64_t num_blocks) : blocks_(static_cast<size_t>(num_blocks)) {
    for (BlockId b = 1; b < num_blocks; ++b) blocks_[b].pos = queue_.insert(queue_.end(), b);
  }

  // The hits a request would have now (without admitting it).
  int64_t Hits(int64_t prompt, const std::vector<BlockKey>& keys) const {
    const int64_t limit = std::min<int64_t>(static_cast<int64_t>(keys.size()), (prompt - 1) / kB);
    int64_t hits = 0;
    while (hits < limit && index_.count(keys[hits])) ++hits;
    return hits;
  }

  // Returns the hit count if admitted.
  std::optional<int64_t> Admit(RequestId id, int64_t prompt, const std::vector<BlockKey>& keys, int64_t budget) {
    const int64_t limit = std::min<int64_t>(static_cast<int64_t>(keys.size()), (prompt - 1) / kB);
    std::vector<BlockId> hits;
    for (int64_t i = 0; i < limit; ++i) {
      auto it = index_.find(keys[i]);
      if (it == index_.end()) break;
      hits.push_back(it->second);
    }
    const int64_t cached = static_cast<int64_t>(hits.size()) * kB;
    const int64_t target = cached + std::min(prompt - cached, budget);
    int64_t in_queue = 0;
    for (BlockId b : hits) in_queue += blocks_[b].ref == 0;
    const int64_t need = CeilDiv(target, kB) - static_cast<int64_t>(hits.size()) + in_queue;
    if (need > static_cast<int64_t>(queue_.size())) return std::nullopt;
    Req& r = reqs_[id];
    r.keys = keys;
    for (BlockId b : hits) {
      if (blocks_[b].ref++ == 0) queue_.erase(blocks_[b].pos);
      r.blocks.push_back(b);
    }
    r.computed = cached;
    Take(r, target);
    return static_cast<int64_t>(hits.size());
  }

  bool Grow(RequestId id, int64_t tokens) {
    Req& r = reqs_.at(id);
    const int64_t target = r.computed + tokens;
    if (CeilDiv(target, kB) - static_cast<int64_t>(r.blocks.size()) > static_cast<int64_t>(queue_.size())) return false;
    Take(r, target);
    return true;
  }

  void Free(RequestId id) {
    Req& r = reqs_.at(id);
    for (size_t i = r.blocks.size(); i-- > 0;) {
      Blk& blk = blocks_[r.blocks[i]];
      if (--blk.ref == 0) blk.pos = queue_.insert(queue_.end(), r.blocks[i]);
    }
    reqs_.erase(id);
  }

  const std::vector<BlockId>& BlocksOf(RequestId id) const { return reqs_.at(id).blocks; }
  int64_t free_blocks() const { return static_cast<int64_t>(queue_.size()); }
  int64_t cached_blocks() const {
    int64_t n = 0;
    for (BlockId b : queue_) n += blocks_[b].keyed;
    return n;
  }

 private:
  struct Blk {
    int ref = 0;
    bool keyed = false;
    BlockKey key = 0;
    std::list<BlockId>::iterator pos;
  };
  struct Req {
    std::vector<BlockKey> keys;
    std::vector<BlockId> blocks;
    int64_t computed = 0;
    int64_t registered = 0;  // leading blocks offered to the index (each once, as vLLM's num_cached_block)
  };

  void Take(Req& r, int64_t target) {
    while (static_cast<int64_t>(r.blocks.size()) < CeilDiv(target, kB)) {
      const BlockId b = queue_.front();
      queue_.pop_front();
      Blk& blk = blocks_[b];
      if (blk.keyed) index_.erase(blk.key);
      blk.keyed = false;
      blk.ref = 1;
      r.blocks.push_back(b);
    }
    r.computed = target;
    const int64_t full = std::min<int64_t>(r.computed / kB, static_cast<int64_t>(r.keys.size()));
    for (int64_t i = r.registered; i < full; ++i) {
      Blk& blk = blocks_[r.blocks[i]];
      if (blk.keyed || index_.count(r.keys[i])) continue;
      index_[r.keys[i]] = r.blocks[i];
      blk.keyed = true;
      blk.key = r.keys[i];
    }
    r.registered = std::max(r.registered, full);
  }

  std::vector<Blk> blocks_;
  std::list<BlockId> queue_;
  std::unordered_map<BlockKey, BlockId> index_;
  std::map<RequestId, Req> reqs_;
};

struct KeyShape {
  int64_t trace_block = 1;  // pool blocks per trace block: the keys' real structure
  int64_t declared = 1;     // AdmitRequest::prefix_key_group (1, or a divisor of trace_block)
};

// Each request draws its key shape from `shapes`. With `retry_blocked`, a request that is not
// admitted waits (as the head of vLLM's waiting queue) and is retried instead of a new one, its
// keys kept in place, and its hits are planned and compared after every operation: the allocator
// keeps its lookup between plans and trims or extends it as other requests evict (several blocks
// at a time, cutting the hits in the middle) or register (a run of keys at a time) its blocks.
void CompareWithReference(uint64_t seed, std::vector<KeyShape> shapes, int64_t ops, bool retry_blocked = false) {
  constexpr int64_t kPool = 96;
  PagedAllocatorOptions o;
  o.num_blocks = kPool;
  o.block_size = kB;
  o.enable_prefix_caching = true;
  PagedAllocator a(o);
  ReferencePool ref(kPool);
  std::mt19937_64 rng(seed);
  // A few conversations: trace block ids with a small alphabet, so prompts share leading blocks.
  std::vector<std::vector<uint64_t>> conversations(6);
  for (auto& ids : conversations) {
    ids.resize(12);
    for (auto& x : ids) x = rng() % 3;
  }
  std::map<RequestId, int64_t> live;  // id -> tokens still to grow
  RequestId next = 1;
  int64_t admitted = 0, hits = 0, evicting_admissions = 0, blocked_plans = 0;
  struct Blocked {
    std::vector<BlockKey> keys;  // where the allocator's AdmitRequest points
    AdmitRequest q;
    int64_t budget = 0;
  };
  std::optional<Blocked> blocked;
  for (int64_t op = 0; op < ops; ++op) {
    const int choice = static_cast<int>(rng() % 100);
    if (choice < 35 || live.empty()) {
      if (!blocked) {
        const KeyShape shape = shapes[rng() % shapes.size()];
        const auto& ids = conversations[rng() % conversations.size()];
        const int64_t prompt = 1 + static_cast<int64_t>(rng() % 80);
        blocked.emplace();
        blocked->keys = KeysFromTraceBlocks(ids, shape.trace_block * kB, prompt, kB);
        blocked->q = MakeAdmitRequest(next, prompt, prompt + static_cast<int64_t>(rng() % 40), blocked->keys);
        blocked->q.prefix_key_group = shape.declared;
        blocked->budget = 1 + static_cast<int64_t>(rng() % 64);
      }
      const std::vector<BlockKey> keys = blocked->keys;
      const AdmitRequest q = blocked->q;
      const int64_t prompt = q.prompt_tokens;
      const int64_t budget = blocked->budget;
      const int64_t cached_before = a.pool().num_cached();
      const std::optional<AdmitPlan> plan = a.Admit(q, budget);
      const std::optional<int64_t> ref_hits = ref.Admit(next, prompt, keys, budget);
      ASSERT_EQ(plan.has_value(), ref_hits.has_value()) << "op " << op;
      if (plan) {
        ASSERT_EQ(plan->cached_tokens, *ref_hits * kB) << "op " << op;
        ASSERT_EQ(std::vector<BlockId>(a.BlocksOf(next).begin(), a.BlocksOf(next).end()), ref.BlocksOf(next)) << "op " << op;
        live[next] = q.final_tokens - a.ComputedTokens(next);
        ++admitted;
        hits += *ref_hits;
        evicting_admissions += a.pool().num_cached() < cached_before;
      }
      if (plan || !retry_blocked) {
        blocked.reset();
        ++next;
      }
    } else if (choice < 80) {
      auto it = std::next(live.begin(), static_cast<long>(rng() % live.size()));
      const int64_t tokens = 1 + static_cast<int64_t>(rng() % 24);
      const bool grown = a.Grow(it->first, tokens);
      ASSERT_EQ(grown, ref.Grow(it->first, tokens)) << "op " << op;
      if (grown) {
        ASSERT_EQ(std::vector<BlockId>(a.BlocksOf(it->first).begin(), a.BlocksOf(it->first).end()), ref.BlocksOf(it->first))
            << "op " << op;
      }
    } else {
      auto it = std::next(live.begin(), static_cast<long>(rng() % live.size()));
      a.Free(it->first);
      ref.Free(it->first);
      live.erase(it);
    }
    ASSERT_EQ(a.prefix_hit_blocks(), hits) << "op " << op;
    ASSERT_EQ(a.num_free_blocks(), ref.free_blocks()) << "op " << op;
    ASSERT_EQ(a.pool().num_cached(), ref.cached_blocks()) << "op " << op;
    if (blocked) {
      const AdmitPlan plan = a.PlanAdmit(blocked->q, blocked->budget);
      ASSERT_EQ(plan.cached_tokens, ref.Hits(blocked->q.prompt_tokens, blocked->keys) * kB) << "op " << op;
      ++blocked_plans;
    }
    a.CheckInvariants();
  }
  if (retry_blocked) {
    EXPECT_GT(blocked_plans, ops / 10);
  }
  // The sequence exercised hits, eviction of cached blocks and pool pressure.
  EXPECT_GT(admitted, ops / 10);
  EXPECT_GT(hits, ops / 10);
  EXPECT_GT(evicting_admissions, ops / 100);
}

TEST(PrefixCacheReferenceTest, OneBlockPerTraceBlock) { CompareWithReference(1, {{1, 1}}, 40000); }

TEST(PrefixCacheReferenceTest, EightBlocksPerTraceBlockDeclared) { CompareWithReference(2, {{8, 8}}, 40000); }

TEST(PrefixCacheReferenceTest, StructureNotDeclared) {
  // 4-block trace blocks declared as single blocks, or as halves: the allocator may rely only on
  // what it was told.
  CompareWithReference(3, {{4, 1}}, 40000);
  CompareWithReference(4, {{4, 2}}, 40000);
}

TEST(PrefixCacheReferenceTest, BlockedRequestPlannedAsOthersEvictAndRegister) {
  CompareWithReference(7, {{1, 1}}, 40000, /*retry_blocked=*/true);
  CompareWithReference(8, {{8, 8}}, 40000, /*retry_blocked=*/true);
  CompareWithReference(9, {{4, 4}, {4, 1}, {2, 2}}, 40000, /*retry_blocked=*/true);
}

TEST(PrefixCacheReferenceTest, RequestsDeclaringDifferentGroups) {
  CompareWithReference(5, {{4, 4}, {4, 4}, {2, 2}, {4, 1}}, 40000);
  CompareWithReference(6, {{8, 8}, {8, 4}}, 40000);
}

}  // namespace
}  // namespace kvsim
