// The behaviours every KvAllocator promises (kv_allocator.h), run against each implementation
// through one typed test suite, plus a seeded random-operation property test per implementation.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>

#include "kvcache/checked_allocator.h"
#include "kvcache/contiguous_allocator.h"
#include "kvcache/paged_allocator.h"
#include "kvcache/prefix_keys.h"

namespace kvsim {
namespace {

constexpr int64_t kBlock = 16;
constexpr int64_t kPoolBlocks = 64;  // including the paged null block
constexpr int64_t kMaxLen = 256;

struct PagedFactory {
  static std::unique_ptr<KvAllocator> Make() {
    PagedAllocatorOptions o;
    o.num_blocks = kPoolBlocks;
    o.block_size = kBlock;
    o.enable_prefix_caching = true;
    return std::make_unique<PagedAllocator>(o);
  }
};
struct PagedSlidingFactory {
  static std::unique_ptr<KvAllocator> Make() {
    PagedAllocatorOptions o;
    o.num_blocks = kPoolBlocks;
    o.block_size = kBlock;
    o.groups = {KvCacheGroup{AttentionKind::kFull, 0, 1}, KvCacheGroup{AttentionKind::kSlidingWindow, 40, 1}};
    return std::make_unique<PagedAllocator>(o);
  }
};
template <Reservation R, Placement P>
struct ContiguousFactory {
  static std::unique_ptr<KvAllocator> Make() {
    ContiguousAllocatorOptions o;
    o.capacity_slots = kPoolBlocks * kBlock;
    o.max_model_len = kMaxLen;
    o.reservation = R;
    o.placement = P;
    return std::make_unique<ContiguousAllocator>(o);
  }
};

template <typename Factory>
class AllocatorContractTest : public ::testing::Test {
 protected:
  std::unique_ptr<KvAllocator> alloc_ = Factory::Make();
};

using Implementations =
    ::testing::Types<PagedFactory, PagedSlidingFactory, ContiguousFactory<Reservation::kMax, Placement::kFirstFit>,
                     ContiguousFactory<Reservation::kPow2, Placement::kBuddy>,
                     ContiguousFactory<Reservation::kOracle, Placement::kBestFit>>;
TYPED_TEST_SUITE(AllocatorContractTest, Implementations);

bool SameAccounting(const KvAccounting& a, const KvAccounting& b) {
  return a.token_slots == b.token_slots && a.reserved_slots == b.reserved_slots &&
         a.internal_fragmentation_slots == b.internal_fragmentation_slots &&
         a.external_fragmentation_slots == b.external_fragmentation_slots && a.cached_slots == b.cached_slots &&
         a.free_slots == b.free_slots;
}

TYPED_TEST(AllocatorContractTest, AdmitGrowFreeReturnsEverything) {
  KvAllocator& a = *this->alloc_;
  const KvAccounting empty = a.Accounting();
  ASSERT_TRUE(a.Admit(MakeAdmitRequest(1, 40, 60), 1000));
  EXPECT_EQ(a.ComputedTokens(1), 40);
  EXPECT_TRUE(a.Grow(1, 1));
  EXPECT_EQ(a.ComputedTokens(1), 41);
  EXPECT_EQ(a.Accounting().Sum(), a.Accounting().capacity_slots);
  // 41 computed tokens in every layer group (nothing has slid out of the 40-token window yet:
  // a block is released only once wholly before token 41 − 40 + 1).
  EXPECT_EQ(a.Accounting().token_slots, 41 * a.slots_per_token());
  a.Free(1);
  a.CheckInvariants();
  EXPECT_FALSE(a.IsLive(1));
  // Nothing leaks; paged prefix blocks may stay cached, which is still reclaimable memory.
  const KvAccounting after = a.Accounting();
  EXPECT_EQ(after.token_slots + after.reserved_slots + after.internal_fragmentation_slots, 0);
  EXPECT_EQ(after.free_slots + after.cached_slots, empty.free_slots + empty.cached_slots);
}

TYPED_TEST(AllocatorContractTest, ChunkedAdmissionComputesOnlyTheBudget) {
  KvAllocator& a = *this->alloc_;
  ASSERT_TRUE(a.Admit(MakeAdmitRequest(7, 100, 120), 30));
  EXPECT_EQ(a.ComputedTokens(7), 30);
  EXPECT_TRUE(a.Grow(7, 70));
  EXPECT_EQ(a.ComputedTokens(7), 100);
  a.CheckInvariants();
}

TYPED_TEST(AllocatorContractTest, FailuresHaveNoSideEffects) {
  KvAllocator& a = *this->alloc_;
  RequestId id = 1;
  while (a.Admit(MakeAdmitRequest(id, 200, 250), 1000)) ++id;  // fill the pool
  const KvAccounting full = a.Accounting();
  EXPECT_FALSE(a.PlanAdmit(MakeAdmitRequest(id, 200, 250), 1000).feasible);
  EXPECT_FALSE(a.Admit(MakeAdmitRequest(id, 200, 250), 1000));
  EXPECT_FALSE(a.IsLive(id));
  EXPECT_TRUE(SameAccounting(full, a.Accounting()));
  // Grow every request until one fails; the failure must leave the accounting as it was.
  for (RequestId r = 1; r < id; ++r) {
    while (a.CanGrow(r, 16)) ASSERT_TRUE(a.Grow(r, 16));
    const KvAccounting before = a.Accounting();
    EXPECT_FALSE(a.Grow(r, 16));
    EXPECT_TRUE(SameAccounting(before, a.Accounting()));
  }
  a.CheckInvariants();
}

TYPED_TEST(AllocatorContractTest, RequestLargerThanThePoolNeverFits) {
  EXPECT_FALSE(this->alloc_->CanEverFit(MakeAdmitRequest(1, kPoolBlocks * kBlock * 2, kPoolBlocks * kBlock * 2)));
  EXPECT_TRUE(this->alloc_->CanEverFit(MakeAdmitRequest(1, 20, 40)));
}

// At least 1,000,000 seeded random operations through CheckedAllocator, which runs every
// invariant check and the interface contract (a failed call changes nothing, Admit does what
// PlanAdmit planned, a Grow within GrowRoom succeeds without taking memory, GrowThenRoom is Grow
// then GrowRoom) after each one.
TYPED_TEST(AllocatorContractTest, RandomOperationsKeepEveryInvariant) {
  KvAllocator& inner = *this->alloc_;
  CheckedAllocator a(inner);
  std::mt19937_64 rng(20261122);
  std::map<RequestId, int64_t> live;  // id -> final tokens
  RequestId next = 1;
  std::vector<std::vector<BlockKey>> prompts;  // a few shared prefixes so prefix caching is exercised
  for (int p = 0; p < 4; ++p) {
    std::vector<uint64_t> ids(8);
    for (auto& x : ids) x = rng() % 5;  // small alphabet: many shared leading blocks
    prompts.push_back(KeysFromTraceBlocks(ids, 16, 128, kBlock));
  }
  const int64_t kOps = 1000000;
  int64_t admitted = 0, grow_failures = 0, frees = 0, grows_within_room = 0;
  for (int64_t op = 0; op < kOps; ++op) {
    const int choice = static_cast<int>(rng() % 100);
    if (choice < 30 || live.empty()) {
      const int64_t prompt = 1 + static_cast<int64_t>(rng() % 120);
      AdmitRequest q = MakeAdmitRequest(next, prompt, prompt + static_cast<int64_t>(rng() % 100));
      q.prefix_keys = prompts[rng() % prompts.size()];
      if (a.Admit(q, 1 + static_cast<int64_t>(rng() % 128))) live[next] = q.final_tokens, ++admitted;
      ++next;
    } else if (choice < 78) {
      auto it = std::next(live.begin(), static_cast<long>(rng() % live.size()));
      // Half the grows fill exactly the room the request holds (must succeed without taking memory:
      // CheckedAllocator checks it), the others ask for 1-20 tokens, often beyond the room.
      const int64_t room = a.GrowRoom(it->first);
      const bool within_room = room > 0 && rng() % 2 == 0;
      grows_within_room += within_room;
      const int64_t tokens = within_room ? room : 1 + static_cast<int64_t>(rng() % 20);
      // Odd ids grow through GrowThenRoom, which CheckedAllocator checks against Grow and GrowRoom.
      grow_failures += it->first % 2 == 1 ? a.GrowThenRoom(it->first, tokens) < 0 : !a.Grow(it->first, tokens);
    } else {
      auto it = std::next(live.begin(), static_cast<long>(rng() % live.size()));
      a.Free(it->first);
      live.erase(it);
      ++frees;
    }
  }
  // The run must have exercised every path, memory pressure included.
  EXPECT_GT(admitted, 100000);
  EXPECT_GT(grow_failures, 500);
  EXPECT_GT(frees, 100000);
  EXPECT_GT(grows_within_room, 50000);
  if (auto* paged = dynamic_cast<PagedAllocator*>(&inner); paged && paged->pool().key_map().size() > 0) {
    EXPECT_GT(paged->prefix_hit_blocks(), 10000);
  }
  for (const auto& [id, final_tokens] : live) a.Free(id);
  a.CheckInvariants();
  const KvAccounting end = a.Accounting();
  EXPECT_EQ(end.token_slots + end.reserved_slots + end.internal_fragmentation_slots, 0) << "leaked slots";
}

}  // namespace
}  // namespace kvsim
