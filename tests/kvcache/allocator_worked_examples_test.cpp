// Hand-derived worked examples: exact blocks and waste by category for each allocator and policy.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "kvcache/contiguous_allocator.h"
#include "kvcache/paged_allocator.h"
#include "kvcache/prefix_keys.h"

namespace kvsim {
namespace {


PagedAllocator Paged(int64_t blocks, bool caching = false, std::vector<KvCacheGroup> groups = {}) {
  PagedAllocatorOptions o;
  o.num_blocks = blocks;
  o.block_size = 16;
  o.enable_prefix_caching = caching;
  o.groups = std::move(groups);
  return PagedAllocator(o);
}

// Block size 16, prompts of 17 and 33 tokens in a 10-block pool (160 slots, block 0 null):
// 17 -> 2 blocks (16 + 1), 33 -> 3 blocks (16 + 16 + 1). Request 1 will generate 10 more tokens,
// request 2 none. Tails: request 1 has 15 unfilled slots of which 10 will be filled (reserved) and
// 5 never (internal); request 2's 15 unfilled slots are all internal.
TEST(PagedWorkedExample, PromptsOf17And33Tokens) {
  PagedAllocator a = Paged(10);
  ASSERT_TRUE(a.Admit(MakeAdmitRequest(1, 17, 27), 1000));
  ASSERT_TRUE(a.Admit(MakeAdmitRequest(2, 33, 33), 1000));
  EXPECT_EQ(a.num_used_blocks(), 5);
  const KvAccounting k = a.Accounting();
  EXPECT_EQ(k.capacity_slots, 160);
  EXPECT_EQ(k.token_slots, 50);
  EXPECT_EQ(k.reserved_slots, 10);
  EXPECT_EQ(k.internal_fragmentation_slots, 5 + 15);
  EXPECT_EQ(k.external_fragmentation_slots, 16);  // the null block
  EXPECT_EQ(k.free_slots, 4 * 16);
  EXPECT_EQ(k.cached_slots, 0);
  // Decoding request 1's 10 tokens fills its second block to 11 slots without a new block; at its
  // final length nothing is reserved and the 5 slots left in that block are internal.
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(a.Grow(1, 1));
  EXPECT_EQ(a.num_used_blocks(), 5);
  EXPECT_EQ(a.Accounting().reserved_slots, 0);
  EXPECT_EQ(a.Accounting().internal_fragmentation_slots, 5 + 15);
  a.CheckInvariants();
}

// A cached prompt of 48 tokens (3 full blocks): the same prompt again hits only 2 blocks, since
// the last prompt token must be recomputed ((48 − 1) / 16 = 2); vLLM counts the hit blocks taken
// out of the free queue in what admission needs (2 hits + 1 new = 3). A 49-token prompt with the
// same first 3 blocks hits all 3 and computes 1 token.
TEST(PagedWorkedExample, PrefixHitOfTwoBlocksWithCappedLastToken) {
  PagedAllocator a = Paged(10, /*caching=*/true);
  const std::vector<uint64_t> ids = {101, 102, 103, 104};
  const auto keys48 = KeysFromTraceBlocks(ids, 16, 48, 16);
  const auto keys49 = KeysFromTraceBlocks(ids, 16, 49, 16);
  ASSERT_EQ(keys48.size(), 3u);
  ASSERT_TRUE(a.Admit(MakeAdmitRequest(1, 48, 48, keys48), 1000));
  a.Free(1);
  EXPECT_EQ(a.Accounting().cached_slots, 48);

  const AdmitPlan plan = a.PlanAdmit(MakeAdmitRequest(2, 48, 48, keys48), 1000);
  EXPECT_EQ(plan.cached_tokens, 32);
  EXPECT_EQ(plan.new_tokens, 16);
  EXPECT_EQ(plan.blocks_needed, 3);
  ASSERT_TRUE(a.Admit(MakeAdmitRequest(2, 48, 48, keys48), 1000));
  EXPECT_EQ(a.prefix_hit_blocks(), 2);
  a.Free(2);

  const AdmitPlan plan49 = a.PlanAdmit(MakeAdmitRequest(3, 49, 49, keys49), 1000);
  EXPECT_EQ(plan49.cached_tokens, 48);
  EXPECT_EQ(plan49.new_tokens, 1);
  ASSERT_TRUE(a.Admit(MakeAdmitRequest(3, 49, 49, keys49), 1000));
  ASSERT_TRUE(a.Admit(MakeAdmitRequest(4, 49, 49, keys49), 1000));  // shares the 3 blocks with request 3
  EXPECT_EQ(a.Accounting().shared_saved_slots, 48);
  EXPECT_EQ(a.num_used_blocks(), 3 + 2);
  a.CheckInvariants();
}

// Lazy LRU eviction: freed tails go to the back of the queue first, so the head of a chain outlives it.
TEST(PagedWorkedExample, CachedBlocksAreEvictedTailFirstOnlyWhenReused) {
  PagedAllocator a = Paged(4, /*caching=*/true);  // 3 usable blocks
  const std::vector<uint64_t> ids = {1, 2, 3};
  const auto keys = KeysFromTraceBlocks(ids, 16, 48, 16);
  ASSERT_TRUE(a.Admit(MakeAdmitRequest(1, 48, 48, keys), 1000));
  a.Free(1);                                   // queue: block3 (tail), block2, block1 (head)
  ASSERT_TRUE(a.Admit(MakeAdmitRequest(2, 16, 16), 1000));  // takes one block: evicts the tail of the chain
  EXPECT_EQ(a.Accounting().cached_slots, 32);
  a.Free(2);
  EXPECT_EQ(a.PlanAdmit(MakeAdmitRequest(3, 48, 48, keys), 1000).cached_tokens, 32);  // head blocks still hit
  a.CheckInvariants();
}

// Only full prompt blocks are shared (vLLM v1 has no copy-on-write): two 20-token prompts with the
// same first block share it (16 slots saved) and each keeps its own 4-token last block, which
// both then grow in place: 3 blocks in use, 16 + 5 + 5 token slots.
TEST(PagedWorkedExample, OnlyFullPromptBlocksAreShared) {
  PagedAllocatorOptions o;
  o.num_blocks = 10;
  o.block_size = 16;
  o.enable_prefix_caching = true;
  PagedAllocator a(o);
  const std::vector<uint64_t> ids = {7};
  const std::vector<BlockKey> keys = KeysFromTraceBlocks(ids, 16, 20, 16);
  ASSERT_EQ(keys.size(), 1u);
  ASSERT_TRUE(a.Admit(MakeAdmitRequest(1, 20, 30, keys), 1000));
  const auto second = a.Admit(MakeAdmitRequest(2, 20, 30, keys), 1000);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->cached_tokens, 16);
  EXPECT_EQ(a.num_used_blocks(), 3);
  EXPECT_EQ(a.Accounting().shared_saved_slots, 16);
  ASSERT_TRUE(a.Grow(1, 1));
  ASSERT_TRUE(a.Grow(2, 1));
  EXPECT_EQ(a.num_used_blocks(), 3);
  EXPECT_EQ(a.Accounting().token_slots, 16 + 5 + 5);
  a.CheckInvariants();
}

// Sliding window W = 32, block 16: at 64 computed tokens blocks wholly before token 64 − 32 + 1 = 33
// (blocks 0 and 1) are released before the next allocation; a full-attention group keeps all.
TEST(PagedWorkedExample, SlidingWindowReleasesBlocksOutOfTheWindow) {
  PagedAllocator a = Paged(20, false, {KvCacheGroup{AttentionKind::kFull, 0, 1}, KvCacheGroup{AttentionKind::kSlidingWindow, 32, 1}});
  ASSERT_TRUE(a.Admit(MakeAdmitRequest(1, 64, 100), 1000));
  EXPECT_EQ(a.num_used_blocks(), 4 + 4);
  ASSERT_TRUE(a.Grow(1, 1));  // 65 tokens: full group 5 blocks; window group drops 2, adds 1
  EXPECT_EQ(a.num_used_blocks(), 5 + 3);
  a.CheckInvariants();
}

// A linear-attention / SSM group (vLLM MambaSpec, mamba_cache_mode "none") holds one page per
// request from its first token to its finish, whatever the length: a 64-token prompt takes 4 pages of
// the attention group and 1 of the state group; 40 more tokens take 3 attention pages and no state
// page; the finish returns all 8.
TEST(PagedWorkedExample, StateGroupHoldsOnePagePerRequest) {
  PagedAllocator a = Paged(20, false, {KvCacheGroup{AttentionKind::kFull, 0, 1}, KvCacheGroup{AttentionKind::kStateOnly, 0, 3}});
  ASSERT_TRUE(a.Admit(MakeAdmitRequest(1, 64, 200), 1000));
  EXPECT_EQ(a.num_used_blocks(), 4 + 1);
  a.CheckInvariants();
  for (int i = 0; i < 40; ++i) ASSERT_TRUE(a.Grow(1, 1));
  EXPECT_EQ(a.num_used_blocks(), 7 + 1);
  a.CheckInvariants();
  // A request that could only ever fit with per-token state pages still fits: 17 pages + 1.
  EXPECT_TRUE(a.CanEverFit(MakeAdmitRequest(2, 16 * 17, 16 * 17)));
  EXPECT_FALSE(a.CanEverFit(MakeAdmitRequest(3, 16 * 18 + 1, 16 * 18 + 1)));
  a.Free(1);
  EXPECT_EQ(a.num_used_blocks(), 0);
  a.CheckInvariants();
}

// vLLM v0 watermark: admission leaves int(0.01 × blocks) free; decode ignores it.
TEST(PagedWorkedExample, V0WatermarkOnlyGatesAdmission) {
  PagedAllocatorOptions o;
  o.num_blocks = 201;  // watermark int(2.01) = 2 blocks
  o.block_size = 16;
  o.watermark_fraction = 0.01;
  PagedAllocator a(o);
  ASSERT_TRUE(a.Admit(MakeAdmitRequest(1, 16 * 198, 16 * 200), 100000));  // 198 of 200 usable blocks
  EXPECT_FALSE(a.PlanAdmit(MakeAdmitRequest(2, 1, 1), 1000).feasible);      // would leave 1 < 2
  EXPECT_TRUE(a.Grow(1, 16));                                  // decode may take them
  EXPECT_TRUE(a.Grow(1, 16));
  EXPECT_FALSE(a.Grow(1, 1));
}

// Contiguous, max reservation (256): a 17-token prompt that will end at 27 holds 256 slots:
// 17 token, 10 reserved, 229 internal fragmentation (the Orca (Max) waste).
TEST(ContiguousWorkedExample, MaxReservation) {
  ContiguousAllocatorOptions o;
  o.capacity_slots = 1000;
  o.max_model_len = 256;
  o.reservation = Reservation::kMax;
  ContiguousAllocator a(o);
  ASSERT_TRUE(a.Admit(MakeAdmitRequest(1, 17, 27), 1000));
  a.SetNextReservation(256);
  const KvAccounting k = a.Accounting();
  EXPECT_EQ(k.token_slots, 17);
  EXPECT_EQ(k.reserved_slots, 10);
  EXPECT_EQ(k.internal_fragmentation_slots, 229);
  EXPECT_EQ(k.free_slots, 744);  // one hole of 744 >= 256: all usable
  EXPECT_EQ(k.external_fragmentation_slots, 0);
  ASSERT_TRUE(a.Admit(MakeAdmitRequest(2, 5, 6), 1000));
  ASSERT_TRUE(a.Admit(MakeAdmitRequest(3, 5, 6), 1000));
  EXPECT_FALSE(a.Admit(MakeAdmitRequest(4, 5, 6), 1000));  // 232 slots free, a 256 region does not fit
  EXPECT_EQ(a.Accounting().external_fragmentation_slots, 232);
  a.CheckInvariants();
}

// Buddy allocator, 64 slots, oracle reservation with pow2 rounding by the buddy system:
// four 16-slot regions fill it; freeing the 2nd and 4th leaves 32 free slots in two 16-slot
// blocks that are not buddies (their buddies are still in use), so a 32-token request cannot be
// placed: all 32 free slots are external fragmentation for it.
TEST(ContiguousWorkedExample, BuddyExternalFragmentation) {
  ContiguousAllocatorOptions o;
  o.capacity_slots = 64;
  o.max_model_len = 64;
  o.reservation = Reservation::kOracle;
  o.placement = Placement::kBuddy;
  ContiguousAllocator a(o);
  for (RequestId id = 1; id <= 4; ++id) ASSERT_TRUE(a.Admit(MakeAdmitRequest(id, 16, 16), 1000));
  a.Free(2);
  a.Free(4);
  EXPECT_FALSE(a.Admit(MakeAdmitRequest(5, 32, 32), 1000));
  const KvAccounting k = a.Accounting();
  EXPECT_EQ(k.token_slots, 32);
  EXPECT_EQ(k.external_fragmentation_slots, 32);
  EXPECT_EQ(k.free_slots, 0);
  // Buddy rounding: a 20-token oracle request takes a 32-slot block; 12 slots are rounding.
  ContiguousAllocator b(o);
  ASSERT_TRUE(b.Admit(MakeAdmitRequest(1, 20, 20), 1000));
  b.SetNextReservation(16);
  EXPECT_EQ(b.Accounting().external_fragmentation_slots, 12);
  EXPECT_EQ(b.Accounting().free_slots, 32);
  b.CheckInvariants();
}

// pow2 over-reserves at most 2×: 25 tokens -> 32 slots (paper's example), 7 internal.
TEST(ContiguousWorkedExample, Pow2Reservation) {
  ContiguousAllocatorOptions o;
  o.capacity_slots = 100;
  o.max_model_len = 64;
  o.reservation = Reservation::kPow2;
  ContiguousAllocator a(o);
  ASSERT_TRUE(a.Admit(MakeAdmitRequest(1, 10, 25), 1000));
  EXPECT_EQ(a.Accounting().internal_fragmentation_slots, 7);
  EXPECT_EQ(a.Accounting().reserved_slots, 15);
}

// First-fit places into the lowest hole that fits; holes smaller than the next reservation are
// external fragmentation.
TEST(ContiguousWorkedExample, FirstFitHoles) {
  ContiguousAllocatorOptions o;
  o.capacity_slots = 100;
  o.max_model_len = 30;
  ContiguousAllocator a(o);
  for (RequestId id = 1; id <= 3; ++id) ASSERT_TRUE(a.Admit(MakeAdmitRequest(id, 10, 20), 1000));  // [0,30) [30,60) [60,90)
  a.Free(2);                                                                           // holes: 30@30, 10@90
  EXPECT_EQ(a.Accounting().external_fragmentation_slots, 10);
  ASSERT_TRUE(a.Admit(MakeAdmitRequest(4, 10, 20), 1000));  // lands at 30
  EXPECT_EQ(a.Accounting().free_slots, 0);
  EXPECT_EQ(a.Accounting().external_fragmentation_slots, 10);
  a.CheckInvariants();
}

}  // namespace
}  // namespace kvsim
