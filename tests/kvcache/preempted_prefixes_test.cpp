// A preempted request admitted again finds what vLLM's free-block queue still holds of its blocks,
// in counting mode (no prefix keys, prefix caching on): worked by hand, block by block, from
// vllm/v1/core/block_pool.py (free_blocks appends a request's blocks tail first; get_new_blocks
// takes from the front and evicts the block's hash; touch removes a hit from the middle).
#include <gtest/gtest.h>

#include "kvcache/paged_allocator.h"
#include "kvcache/preempted_prefixes.h"

namespace kvsim {
namespace {

// 10 usable blocks of 16 tokens (block 0 is the null block).
PagedAllocator Make(bool find_preempted) {
  PagedAllocatorOptions o;
  o.num_blocks = 11;
  o.block_size = 16;
  o.find_preempted_prefixes = find_preempted;
  return PagedAllocator(o);
}

AdmitRequest Request(RequestId id, int64_t prompt_tokens) {
  AdmitRequest q;
  q.id = id;
  q.prompt_tokens = prompt_tokens;
  q.final_tokens = prompt_tokens + 64;
  return q;
}

int64_t CachedOnAdmit(PagedAllocator& a, RequestId id, int64_t prompt_tokens) {
  const std::optional<AdmitPlan> plan = a.Admit(Request(id, prompt_tokens), 1 << 20);
  EXPECT_TRUE(plan.has_value());
  a.CheckInvariants();
  return plan ? plan->cached_tokens : -1;
}

// Queue positions 0-9 hold the free pool. A (40 tokens: 2 full blocks and a partial one) and B
// (64 tokens) take positions 0-6. A's preemption appends its blocks at 10 (the partial tail), 11
// and 12 (its first block). C (48 tokens) takes 7-9. Readmitted, A finds its 2 full blocks and
// computes the 8 tokens of the third.
TEST(PreemptedPrefixesTest, AllBlocksStillQueued) {
  PagedAllocator a = Make(true);
  ASSERT_TRUE(a.counting());
  CachedOnAdmit(a, 1, 40);
  CachedOnAdmit(a, 2, 64);
  a.FreePreempted(1);
  EXPECT_EQ(CachedOnAdmit(a, 3, 48), 0);
  const std::optional<AdmitPlan> plan = a.Admit(Request(1, 40), 1 << 20);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->cached_tokens, 32);
  EXPECT_EQ(plan->new_tokens, 8);
  EXPECT_EQ(a.ComputedTokens(1), 40);
  EXPECT_EQ(a.UsedBlocks(), 10);
  a.CheckInvariants();
}

// As above, then D and E (16 tokens each) take positions 10 (A's tail) and 11 (A's second block):
// only A's first block, at 12, is left. (B finishes to make room for A's three blocks.)
TEST(PreemptedPrefixesTest, BlocksTakenFromTheFrontAreLost) {
  PagedAllocator a = Make(true);
  CachedOnAdmit(a, 1, 40);
  CachedOnAdmit(a, 2, 64);
  a.FreePreempted(1);
  CachedOnAdmit(a, 3, 48);
  CachedOnAdmit(a, 4, 16);
  EXPECT_EQ(CachedOnAdmit(a, 5, 16), 0);
  a.Free(2);
  EXPECT_EQ(CachedOnAdmit(a, 1, 40), 16);
}

// A and B (32 tokens each, 2 full blocks) and X (96 tokens) fill the pool. A's preemption appends
// A1 at 10 and A0 at 11; B's, B1 at 12 and B0 at 13. A comes back with one generated token (33
// tokens, 3 blocks): it takes A0 and A1 back from the middle and one new block from the front,
// which skips the two reclaimed positions and takes B1. B then finds only B0.
TEST(PreemptedPrefixesTest, ReclaimedBlocksAreSkippedByTheFront) {
  PagedAllocator a = Make(true);
  CachedOnAdmit(a, 1, 32);
  CachedOnAdmit(a, 2, 32);
  CachedOnAdmit(a, 3, 96);
  a.FreePreempted(1);
  a.FreePreempted(2);
  EXPECT_EQ(CachedOnAdmit(a, 1, 33), 32);
  a.Free(3);
  EXPECT_EQ(CachedOnAdmit(a, 2, 33), 16);
}

// The last prompt token is always computed: a request whose blocks are all full and all queued
// finds one block fewer than it holds when its length is a whole number of blocks.
TEST(PreemptedPrefixesTest, LastTokenIsComputed) {
  PagedAllocator a = Make(true);
  CachedOnAdmit(a, 1, 32);
  a.FreePreempted(1);
  EXPECT_EQ(CachedOnAdmit(a, 1, 32), 16);
}

// Without prefix caching (or with a finish instead of a preemption) nothing is found.
TEST(PreemptedPrefixesTest, NothingWithoutPrefixCaching) {
  PagedAllocator a = Make(false);
  CachedOnAdmit(a, 1, 40);
  a.FreePreempted(1);
  EXPECT_EQ(CachedOnAdmit(a, 1, 40), 0);
  PagedAllocator b = Make(true);
  CachedOnAdmit(b, 1, 40);
  b.Free(1);
  EXPECT_EQ(CachedOnAdmit(b, 1, 40), 0);
}

}  // namespace
}  // namespace kvsim
