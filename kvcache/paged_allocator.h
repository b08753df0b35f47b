// PagedAllocator: vLLM's PagedAttention block manager (v1 KVCacheManager + BlockPool), with exact
// waste accounting.
//
// - A pool of num_blocks blocks of block_size tokens; block 0 is the null block (counted as
//   external fragmentation: memory no request can use).
// - Blocks are taken only for tokens computed now (no reservation for future output): a prefill
//   chunk takes cdiv(tokens, block_size) blocks, a decode step a new block only when it crosses a
//   block boundary.
// - Prefix caching: each full prompt block is registered under its chained key; a new request
//   reuses the longest run of leading hits (capped so the last prompt token is always computed),
//   bumping their reference counts and taking cached ones out of the free queue. Freed blocks keep
//   their key until reused; a request's blocks are freed tail first, so the tail of a chain is
//   evicted first (LRU by the free queue).
// - Sharing is by full prompt blocks only (as in vLLM v1, which has no copy-on-write: parallel
//   sampling fans out into requests that share the prompt's cached blocks), so a request's last,
//   partly filled block is always its own.
// - Layer groups (hybrid models): every group holds its own block list per request, all drawn from
//   the one pool; sliding-window groups release blocks that slide wholly out of the window (before
//   allocating, as vLLM's remove_skipped_blocks). Prefix caching applies to full-attention-only
//   models.
// - vLLM v0's admission watermark (a fraction of blocks that admission leaves free). v0's swap
//   preemption is not modelled: v0 preempts single-sequence requests by recompute, as v1 does.
// - Counting mode (default when no prefix hit is possible: caching off and only full-attention
//   groups): blocks are interchangeable, so a request holds a count of blocks, not ids, and grows
//   and frees in runs; the pool's list is never touched. Every figure (waste categories, used and
//   free blocks) is the same as with ids: the last block holds Offset(computed) tokens, every other
//   block is full. `count_interchangeable_blocks = false` keeps the ids (the reference). Only this
//   mode offers held growth (kvcache/held_growth.h).
// Complexity: admit/grow/free O(blocks touched); Accounting() O(1).
#ifndef KVSIM_KVCACHE_PAGED_ALLOCATOR_H_
#define KVSIM_KVCACHE_PAGED_ALLOCATOR_H_

#include <algorithm>
#include <span>
#include <vector>

#include "kvcache/block_pool.h"
#include "kvcache/held_growth.h"
#include "kvcache/kv_allocator.h"
#include "kvcache/budget/kv_cache_layout.h"
#include "kvcache/preempted_prefixes.h"
#include "kvcache/request_table.h"
#include "kvcache/base/check.h"
#include "kvcache/base/units.h"

namespace kvsim {

struct PagedAllocatorOptions {
  int64_t num_blocks = 0;          // including the null block, as vLLM's num_gpu_blocks
  int64_t block_size = 16;         // tokens per block
  bool enable_prefix_caching = false;
  // One entry per layer group; default: one full-attention group.
  std::vector<KvCacheGroup> groups = {KvCacheGroup{}};
  double watermark_fraction = 0.0; // vLLM v0: 0.01
  bool count_interchangeable_blocks = true;  // counting mode when no prefix hit is possible
  // Prefix caching is on but requests carry no keys (counting mode): a preempted request still
  // finds its own blocks that were not reused when it is admitted again (PreemptedPrefixes).
  bool find_preempted_prefixes = false;
};

class PagedAllocator final : public KvAllocator, public HeldGrowth {
 public:
  explicit PagedAllocator(PagedAllocatorOptions options);

  AdmitPlan PlanAdmit(const AdmitRequest& request, int64_t token_budget) const override;
  std::optional<AdmitPlan> Admit(const AdmitRequest& request, int64_t token_budget) override;
  bool CanEverFit(const AdmitRequest& request) const override;
  bool CanGrow(RequestId id, int64_t tokens) const override;
  bool Grow(RequestId id, int64_t tokens) override;
  int64_t GrowThenRoom(RequestId id, int64_t tokens) override;
  int64_t GrowRoom(RequestId id) const override;
  void Free(RequestId id) override;
  void FreePreempted(RequestId id) override;
  bool IsLive(RequestId id) const override { return requests_.count(id) > 0; }
  int64_t ComputedTokens(RequestId id) const override;
  int64_t live_requests() const override { return static_cast<int64_t>(requests_.size()); }
  KvAccounting Accounting() const override;
  void FillAccounting(KvAccounting* out, int64_t filled) const override;
  int64_t UsedBlocks() const override { return num_used_blocks(); }
  void CheckInvariants() const override;
  std::string name() const override { return "paged"; }
  int64_t slots_per_token() const override { return static_cast<int64_t>(groups_.size()); }
  bool GrowsCompose() const override {
    for (const auto& g : groups_)
      if (g.kind == AttentionKind::kSlidingWindow) return false;
    return true;
  }

  HeldGrowth* held_growth() override { return counting_ ? this : nullptr; }
  int64_t HeldBlockSize() const override { return block_size_; }
  int64_t FreeBlocks() const override { return QueuedBlocks(); }
  int64_t HeldBlocks() const override { return held_; }
  bool HoldBlocks(int64_t blocks) override;
  void GrowFromHeld(RequestId id, int64_t tokens) override;

  int64_t num_free_blocks() const { return QueuedBlocks(); }  // free + cached
  int64_t num_used_blocks() const { return pool_.num_blocks() - 1 - QueuedBlocks(); }
  bool counting() const { return counting_; }
  int64_t block_size() const { return block_size_; }
  const BlockPool& pool() const { return pool_; }

  // The blocks request `id` holds in layer group `group`, first to last (not in counting mode).
  std::span<const BlockId> BlocksOf(RequestId id, size_t group = 0) const { return requests_.at(id).groups[group].blocks; }

  // Prefix-cache statistics since construction: prompt blocks looked up and found.
  int64_t prefix_queried_blocks() const { return prefix_queried_blocks_; }
  int64_t prefix_hit_blocks() const { return prefix_hit_blocks_; }

 private:
  struct GroupBlocks {
    int64_t first_live = 0;         // logical index of blocks_[0]; earlier ones slid out of the window
    std::vector<BlockId> blocks;
    int32_t tail_reserved = 0;      // unfilled slots of blocks.back() this request will still fill
    int64_t counted = 0;            // counting mode: blocks held (no ids; `blocks` stays empty)
    int64_t held() const { return first_live + static_cast<int64_t>(blocks.size()) + counted; }
  };
  struct RequestState {
    int64_t computed = 0;
    int64_t final_tokens = 0;
    std::vector<BlockKey> keys;     // prefix keys of the prompt's full blocks
    int64_t key_group = 1;          // their runs (AdmitRequest::prefix_key_group)
    int64_t keys_registered = 0;    // leading blocks already offered to the key map
    std::vector<GroupBlocks> groups;
  };

  // The prefix lookup of the last request planned, kept while it stays valid: the request at the
  // head of a blocked waiting queue is planned at every step, and its hundreds of key look-ups
  // would otherwise be repeated although nothing it found changed. The hit blocks are watched and
  // the probe kept exact rather than redone: evicting hit i (TakeFreeBlock) cuts the hits to the
  // first i (key i now misses, the leading ones still hit); registering the key of its first miss
  // (RegisterKeys) marks it for extension, which the next plan does by looking up only the keys
  // past the hits; a hit block's reference count crossing zero adjusts hits_in_use. (A blocked
  // head request whose cached prefix is being evicted block by block would otherwise look its
  // whole prefix up again at every step.)
  struct PrefixProbe {
    bool valid = false;
    RequestId id = 0;
    int64_t prompt_tokens = 0;
    const BlockKey* keys = nullptr;
    size_t num_keys = 0;
    BlockKey last_key = 0;
    std::vector<BlockId> hits;      // the blocks of the longest run of leading hits
    int64_t hits_in_use = 0;        // of them, held by a running request (not in the free queue)
    bool has_next = false;          // a first miss below the limit exists
    BlockKey next_key = 0;          // its key
    bool extend = false;            // next_key has been registered since: look up past the hits
  };
  static int64_t KeyGroupOf(const AdmitRequest& request) { return std::max<int64_t>(1, request.prefix_key_group); }
  bool ProbeMatches(const AdmitRequest& request) const;
  void Probe(const AdmitRequest& request, int64_t limit) const;
  // Looks up keys from probe_.hits.size() on, appending the leading run of hits.
  void ExtendProbe(const AdmitRequest& request, int64_t limit) const;
  // Keeps the first `n` hits (hit n is being evicted).
  void CutProbe(size_t n, BlockKey evicted_key) const;
  void DropProbe() const;
  int64_t PrefixHits(const AdmitRequest& request, int64_t* hits_in_free_queue) const;
  int64_t BlocksToGrow(const RequestState& r, int64_t tokens, int64_t* released) const;
  void CommitGrow(RequestState& r, int64_t tokens);
  void ReleaseSkipped(RequestState& r);
  void ClearTail(RequestState& r);
  void SetTail(RequestState& r);
  void RegisterKeys(RequestState& r);
  BlockId TakeFreeBlock();
  // n TakeFreeBlock calls into out[0..n).
  void TakeFreeBlocks(int64_t n, BlockId* out);
  void AddRef(BlockId b);
  void DropRef(BlockId b);
  void AddFill(BlockId b, int32_t slots);
  int64_t WatermarkBlocks() const;
  // CheckInvariants' walks (paged_allocator_invariants.cpp).
  struct BlockTotals {
    int64_t token = 0, saved = 0, queued = 0, cached = 0;
  };
  // Counts owners per block; returns Σ tail reservations; counted: counting mode's tokens and blocks.
  int64_t CheckOwners(std::vector<int32_t>& refs, BlockTotals& counted) const;
  BlockTotals CheckBlocks(const std::vector<int32_t>& refs) const;
  void CheckFreeQueue(const BlockTotals& totals) const;
  // Free blocks: the pool's queue less the blocks counting mode took without dequeuing them.
  int64_t QueuedBlocks() const { return pool_.num_queued() - counted_taken_; }
  // `from_held`: the new blocks come out of held_ instead of the free pool.
  void CommitGrowCounted(RequestState& r, int64_t tokens, bool from_held = false);
  bool GrowState(RequestState& r, int64_t tokens);  // Grow and GrowRoom, the request looked up
  int64_t RoomOf(const RequestState& r) const;
  // Its one-group case, given the blocks the grow takes (speed: inline in Grow, which counted them).
  void CommitGrowOneGroup(RequestState& r, int64_t tokens, int64_t take, bool from_held) {
    GroupBlocks& gb = r.groups[0];
    reserved_slots_ -= gb.tail_reserved;
    const int64_t target = r.computed + tokens;
    gb.counted += take;
    if (from_held) held_ -= take;
    else counted_taken_ += take;
    KVSIM_CHECK(held_ >= 0, "GrowFromHeld took more blocks than were held");
    token_slots_ += tokens;
    r.computed = target;
    const int64_t offset = Offset(target);
    const int64_t unfilled = offset == 0 ? 0 : block_size_ - offset;
    gb.tail_reserved = gb.held() == 0 ? 0 : static_cast<int32_t>(std::min(unfilled, std::max<int64_t>(0, r.final_tokens - target)));
    reserved_slots_ += gb.tail_reserved;
  }
  void FreeCounted(RequestState& r);
  // Counting mode: blocks taken from the front of vLLM's free queue so far (PreemptedPrefixes).
  int64_t TakenFromFront() const { return counted_taken_ + freed_counted_ - preempted_.reclaimed(); }

  // Block arithmetic; shifts when block_size is a power of two (it is in vLLM, except for
  // hybrid models whose page sizes were unified), divisions otherwise.
  int64_t BlocksFor(int64_t tokens) const { return shift_ >= 0 ? (tokens + block_size_ - 1) >> shift_ : CeilDiv(tokens, block_size_); }
  // Blocks a group holds for `tokens` tokens: one for a state group (one state page from the first token
  // on), BlocksFor(tokens) for an attention group.
  int64_t GroupBlocksFor(const KvCacheGroup& g, int64_t tokens) const {
    return g.kind == AttentionKind::kStateOnly ? 1 : BlocksFor(tokens);
  }
  int64_t Offset(int64_t tokens) const { return shift_ >= 0 ? tokens & (block_size_ - 1) : tokens % block_size_; }
  int64_t Index(int64_t tokens) const { return shift_ >= 0 ? tokens >> shift_ : tokens / block_size_; }

  int64_t block_size_;
  int shift_ = -1;
  std::vector<KvCacheGroup> groups_;
  bool caching_;
  bool has_sliding_ = false;    // a sliding-window group exists (blocks slide out of the window)
  bool one_full_group_ = false; // a single full-attention group: the common case, with short paths
  double watermark_fraction_;
  bool counting_ = false;
  int64_t counted_taken_ = 0;   // counting mode: Σ blocks held by requests, plus held_
  int64_t held_ = 0;            // counting mode: blocks taken for the replay's lazy decoders (HoldBlocks)
  bool find_preempted_ = false;  // counting mode with prefix caching (find_preempted_prefixes)
  int64_t freed_counted_ = 0;    // counting mode: blocks freed so far, each appended to the free queue
  PreemptedPrefixes preempted_;
  BlockPool pool_;
  RequestTable<RequestState> requests_;

  // Incremental accounting over blocks in use.
  int64_t token_slots_ = 0;     // Σ filled over used blocks
  int64_t reserved_slots_ = 0;  // Σ reserved over used blocks
  int64_t shared_saved_ = 0;    // Σ (ref − 1) × filled over used blocks
  int64_t prefix_queried_blocks_ = 0;
  int64_t prefix_hit_blocks_ = 0;
  mutable PrefixProbe probe_;
  mutable std::vector<int32_t> watched_;  // per block: 1 + its index in probe_.hits while it is one, else 0
};

}  // namespace kvsim

#endif  // KVSIM_KVCACHE_PAGED_ALLOCATOR_H_
