// Counting mode (PagedAllocator without block ids when no prefix hit is possible) against the
// reference that moves ids: the same random admissions, grows (single tokens and chunks, past
// block boundaries and past the pool), preemption-style frees and completions must give the same
// answer to every call and the same accounting after every operation. Both run CheckInvariants.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kvcache/paged_allocator.h"

namespace kvsim {
namespace {

PagedAllocator Make(bool counting, int64_t groups, int64_t block_size) {
  PagedAllocatorOptions o;
  o.num_blocks = 200;
  o.block_size = block_size;
  o.groups = std::vector<KvCacheGroup>(static_cast<size_t>(groups), KvCacheGroup{});
  o.count_interchangeable_blocks = counting;
  return PagedAllocator(o);
}

void ExpectSameAccounting(const PagedAllocator& a, const PagedAllocator& b) {
  const KvAccounting x = a.Accounting(), y = b.Accounting();
  EXPECT_EQ(x.capacity_slots, y.capacity_slots);
  EXPECT_EQ(x.token_slots, y.token_slots);
  EXPECT_EQ(x.reserved_slots, y.reserved_slots);
  EXPECT_EQ(x.internal_fragmentation_slots, y.internal_fragmentation_slots);
  EXPECT_EQ(x.external_fragmentation_slots, y.external_fragmentation_slots);
  EXPECT_EQ(x.cached_slots, y.cached_slots);
  EXPECT_EQ(x.free_slots, y.free_slots);
  EXPECT_EQ(x.shared_saved_slots, y.shared_saved_slots);
  EXPECT_EQ(a.UsedBlocks(), b.UsedBlocks());
  EXPECT_EQ(a.num_free_blocks(), b.num_free_blocks());
}

void RunRandom(int64_t groups, int64_t block_size, uint32_t seed) {
  PagedAllocator ids = Make(false, groups, block_size), counted = Make(true, groups, block_size);
  ASSERT_FALSE(ids.counting());
  ASSERT_TRUE(counted.counting());
  std::mt19937 rng(seed);
  std::vector<RequestId> live;
  RequestId next = 1;
  for (int op = 0; op < 3000; ++op) {
    const int kind = static_cast<int>(rng() % 10);
    if (kind < 3 || live.empty()) {
      const int64_t prompt = 1 + static_cast<int64_t>(rng() % 300);
      const AdmitRequest q = MakeAdmitRequest(next, prompt, prompt + static_cast<int64_t>(rng() % 200));
      const int64_t budget = 1 + static_cast<int64_t>(rng() % 400);
      const auto p = ids.Admit(q, budget), c = counted.Admit(q, budget);
      ASSERT_EQ(p.has_value(), c.has_value());
      if (p) {
        EXPECT_EQ(p->new_tokens, c->new_tokens);
        EXPECT_EQ(p->blocks_needed, c->blocks_needed);
        live.push_back(next);
      }
      ++next;
    } else if (kind < 8) {
      const RequestId id = live[rng() % live.size()];
      const int64_t tokens = kind < 6 ? 1 : 1 + static_cast<int64_t>(rng() % 64);
      EXPECT_EQ(ids.GrowRoom(id), counted.GrowRoom(id));
      EXPECT_EQ(ids.CanGrow(id, tokens), counted.CanGrow(id, tokens));
      ASSERT_EQ(ids.Grow(id, tokens), counted.Grow(id, tokens));
      EXPECT_EQ(ids.ComputedTokens(id), counted.ComputedTokens(id));
    } else {
      const size_t i = rng() % live.size();
      ids.Free(live[i]);
      counted.Free(live[i]);
      live.erase(live.begin() + static_cast<long>(i));
    }
    ExpectSameAccounting(ids, counted);
    if (op % 50 == 0) {
      ids.CheckInvariants();
      counted.CheckInvariants();
    }
  }
}

TEST(PagedCountingMode, OneGroupMatchesBlockIds) { RunRandom(1, 16, 1); }
TEST(PagedCountingMode, TwoFullGroupsMatchBlockIds) { RunRandom(2, 16, 2); }
TEST(PagedCountingMode, NonPowerOfTwoBlockMatchesBlockIds) { RunRandom(1, 10, 3); }

TEST(PagedCountingMode, OnlyWhenNoPrefixHitIsPossible) {
  PagedAllocatorOptions o;
  o.num_blocks = 10;
  EXPECT_TRUE(PagedAllocator(o).counting());
  o.enable_prefix_caching = true;
  EXPECT_FALSE(PagedAllocator(o).counting());  // cached blocks have identity
  o.enable_prefix_caching = false;
  o.groups = {KvCacheGroup{}, KvCacheGroup{AttentionKind::kSlidingWindow, 64, 1}};
  EXPECT_FALSE(PagedAllocator(o).counting());  // windows release particular blocks
}

}  // namespace
}  // namespace kvsim
