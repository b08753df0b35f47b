#include "kvcache/paged_allocator.h"

#include <algorithm>

#include "kvcache/base/check.h"
#include "kvcache/base/units.h"

namespace kvsim {
namespace {
// Key buffers up to this many keys stay with their request slot for the next admission.
constexpr size_t kKeptKeyCapacity = 1024;
}  // namespace

PagedAllocator::PagedAllocator(PagedAllocatorOptions o)
    : block_size_(o.block_size),
      groups_(o.groups.empty() ? std::vector<KvCacheGroup>{KvCacheGroup{}} : o.groups),
      caching_(o.enable_prefix_caching),
      watermark_fraction_(o.watermark_fraction),
      pool_(o.num_blocks, o.enable_prefix_caching && (o.groups.size() <= 1) &&
                                  (o.groups.empty() || o.groups[0].kind == AttentionKind::kFull)
                              ? FreeBlockOrder::kLru
                              : FreeBlockOrder::kLifo) {
  KVSIM_DCHECK(o.block_size >= 1 && o.num_blocks >= 2);
  if ((block_size_ & (block_size_ - 1)) == 0)
    while ((int64_t{1} << (shift_ + 1)) <= block_size_) ++shift_;
  // Prefix caching is modelled for models with a single full-attention group.
  one_full_group_ = groups_.size() == 1 && groups_[0].kind == AttentionKind::kFull;
  caching_ = caching_ && one_full_group_;
  has_sliding_ = std::any_of(groups_.begin(), groups_.end(),
                             [](const KvCacheGroup& g) { return g.kind == AttentionKind::kSlidingWindow; });
  counting_ = o.count_interchangeable_blocks && !caching_ &&
              std::all_of(groups_.begin(), groups_.end(), [](const KvCacheGroup& g) { return g.kind == AttentionKind::kFull; });
  find_preempted_ = o.find_preempted_prefixes && counting_ && one_full_group_;
}

int64_t PagedAllocator::WatermarkBlocks() const {
  return static_cast<int64_t>(watermark_fraction_ * static_cast<double>(pool_.num_blocks()));
}

AdmitPlan PagedAllocator::PlanAdmit(const AdmitRequest& request, int64_t token_budget) const {
  AdmitPlan plan;
  int64_t hits_in_queue = 0;
  const int64_t hits = caching_ && !request.prefix_keys.empty() ? PrefixHits(request, &hits_in_queue) : 0;
  plan.cached_tokens = hits * block_size_;
  if (find_preempted_ && !preempted_.empty()) [[unlikely]]  // the last token is computed, as for any hit
    plan.cached_tokens = std::min(preempted_.Surviving(request.id, TakenFromFront()), Index(request.prompt_tokens - 1)) * block_size_;
  // Loaded tokens follow the hits; the last prompt token is still computed.
  plan.loaded_tokens = std::clamp<int64_t>(request.loaded_tokens, 0, request.prompt_tokens - 1 - plan.cached_tokens);
  plan.new_tokens = std::min(request.prompt_tokens - plan.cached_tokens - plan.loaded_tokens, token_budget);
  if (plan.new_tokens + plan.loaded_tokens <= 0) return plan;
  const int64_t target = plan.cached_tokens + plan.loaded_tokens + plan.new_tokens;
  for (const auto& g : groups_) plan.blocks_needed += GroupBlocksFor(g, target);
  plan.blocks_needed -= hits * static_cast<int64_t>(groups_.size());
  plan.blocks_needed += hits_in_queue;
  plan.slots_needed = plan.blocks_needed * block_size_;
  plan.feasible = plan.blocks_needed <= QueuedBlocks() - WatermarkBlocks();
  return plan;
}

bool PagedAllocator::CanEverFit(const AdmitRequest& request) const {
  // In an empty pool every block is free; a request needs its whole final length at once in
  // full-attention groups (sliding-window groups need no more than the full ones).
  const int64_t tokens = std::max(request.final_tokens, request.prompt_tokens);
  int64_t blocks = 0;
  for (const auto& g : groups_) blocks += GroupBlocksFor(g, tokens);
  return blocks <= pool_.num_blocks() - 1 - WatermarkBlocks();
}

std::optional<AdmitPlan> PagedAllocator::Admit(const AdmitRequest& request, int64_t token_budget) {
  KVSIM_DCHECK(!IsLive(request.id) && request.prompt_tokens >= 1);
  const AdmitPlan plan = PlanAdmit(request, token_budget);
  if (!plan.feasible) return std::nullopt;

  // A reused slot: reset every field, keep the vectors' capacity.
  RequestState& r = requests_.insert(request.id);
  r.computed = 0;
  r.keys_registered = 0;
  r.final_tokens = std::max(request.final_tokens, request.prompt_tokens);
  r.keys.clear();
  if (caching_) r.keys.assign(request.prefix_keys.begin(), request.prefix_keys.end());
  r.key_group = KeyGroupOf(request);
  r.groups.resize(groups_.size());
  for (GroupBlocks& gb : r.groups) {
    gb.first_live = 0;
    gb.blocks.clear();
    gb.tail_reserved = 0;
    gb.counted = 0;
  }
  // Counting mode finds only a preempted request's own blocks; they are not first lookups.
  const int64_t own_blocks = find_preempted_ ? plan.cached_tokens / block_size_ : 0;
  const int64_t hits = plan.cached_tokens / block_size_ - own_blocks;
  prefix_queried_blocks_ += caching_ ? std::min<int64_t>(static_cast<int64_t>(request.prefix_keys.size()),
                                                          (request.prompt_tokens - 1) / block_size_)
                                     : 0;
  prefix_hit_blocks_ += hits;
  // PlanAdmit left the probe of this request's hits valid.
  KVSIM_DCHECK(hits == 0 || (ProbeMatches(request) && static_cast<int64_t>(probe_.hits.size()) == hits));
  if (hits > 0) {
    // As AddRef on each hit; the probe is dropped right after, so no watched block is counted.
    r.groups[0].blocks.assign(probe_.hits.begin(), probe_.hits.end());
    int64_t revived_slots = 0, shared_slots = 0;
    for (const BlockId b : probe_.hits) {
      Block& blk = pool_.at(b);
      if (blk.queued) {
        pool_.Remove(b);
        revived_slots += blk.filled_slots;  // cached content is live again
      } else {
        shared_slots += blk.filled_slots;
      }
      ++blk.ref_count;
    }
    token_slots_ += revived_slots;
    shared_saved_ += shared_slots;
    DropProbe();
  }
  r.computed = plan.cached_tokens;
  if (find_preempted_ && !preempted_.empty()) [[unlikely]] {
    preempted_.Reclaim(request.id, own_blocks, TakenFromFront());  // before CommitGrow takes from the front
    token_slots_ += plan.cached_tokens;                              // their tokens are live again
  }
  // The hits are found by their keys, so they are registered already.
  r.keys_registered = std::min<int64_t>(hits, static_cast<int64_t>(r.keys.size()));
  CommitGrow(r, plan.loaded_tokens + plan.new_tokens);
  return plan;
}

int64_t PagedAllocator::BlocksToGrow(const RequestState& r, int64_t tokens, int64_t* released) const {
  *released = 0;
  int64_t need = 0;
  const int64_t target = r.computed + tokens;
  if (one_full_group_)  // the common case, in short
    return std::max<int64_t>(0, BlocksFor(target) - r.groups[0].held());
  for (size_t g = 0; g < groups_.size(); ++g) {
    const GroupBlocks& gb = r.groups[g];
    if (groups_[g].kind == AttentionKind::kSlidingWindow) {
      const int64_t skip_upto = Index(std::max<int64_t>(0, r.computed - groups_[g].window_tokens + 1));
      // Same rule as ReleaseSkipped: never the last block.
      const int64_t n = std::min<int64_t>(skip_upto - gb.first_live, static_cast<int64_t>(gb.blocks.size()) - 1);
      for (int64_t i = 0; i < n; ++i)
        if (pool_.at(gb.blocks[i]).ref_count == 1) ++*released;
    }
    const int64_t held = gb.held();
    need += std::max<int64_t>(0, GroupBlocksFor(groups_[g], target) - held);
  }
  return need;
}

bool PagedAllocator::CanGrow(RequestId id, int64_t tokens) const {
  const RequestState& r = requests_.at(id);
  int64_t released = 0;
  const int64_t need = BlocksToGrow(r, tokens, &released);
  return need <= QueuedBlocks() + released;
}

bool PagedAllocator::Grow(RequestId id, int64_t tokens) { return GrowState(requests_.at(id), tokens); }
int64_t PagedAllocator::GrowRoom(RequestId id) const { return RoomOf(requests_.at(id)); }
int64_t PagedAllocator::GrowThenRoom(RequestId id, int64_t tokens) {
  RequestState& r = requests_.at(id);
  return GrowState(r, tokens) ? RoomOf(r) : -1;
}

inline bool PagedAllocator::GrowState(RequestState& r, int64_t tokens) {
  if (counting_ && one_full_group_) {
    // speed: BlocksToGrow and CommitGrow's common case without their dispatch, its blocks counted
    // once and committed inline (a replay's every explicit decode token).
    const int64_t take = std::max<int64_t>(0, BlocksFor(r.computed + tokens) - r.groups[0].held());
    if (take > QueuedBlocks()) return false;
    CommitGrowOneGroup(r, tokens, take, /*from_held=*/false);
    return true;
  }
  int64_t released = 0;
  if (BlocksToGrow(r, tokens, &released) > QueuedBlocks() + released) return false;
  CommitGrow(r, tokens);
  return true;
}

inline int64_t PagedAllocator::RoomOf(const RequestState& r) const {
  // Slots left in the last block (never shared: only full blocks are).
  int64_t room = Offset(block_size_ - Offset(r.computed));
  if (!has_sliding_) return room;
  for (size_t g = 0; g < groups_.size(); ++g) {
    const GroupBlocks& gb = r.groups[g];
    if (groups_[g].kind == AttentionKind::kSlidingWindow) {
      // A Grow at computed c releases blocks below (c − W + 1) / B: the first c that passes the
      // next boundary must be an explicit call.
      const int64_t release_at = (gb.first_live + 1) * block_size_ + groups_[g].window_tokens - 1;
      room = std::min(room, std::max<int64_t>(0, release_at - r.computed));
    }
  }
  return room;
}

void PagedAllocator::ReleaseSkipped(RequestState& r) {
  for (size_t g = 0; g < groups_.size(); ++g) {
    if (groups_[g].kind != AttentionKind::kSlidingWindow) continue;
    GroupBlocks& gb = r.groups[g];
    const int64_t skip_upto = Index(std::max<int64_t>(0, r.computed - groups_[g].window_tokens + 1));
    int64_t n = std::min<int64_t>(skip_upto - gb.first_live, static_cast<int64_t>(gb.blocks.size()) - 1);
    if (n <= 0) continue;
    // Oldest first: these blocks are the head of the sequence; the last block is never skipped here.
    for (int64_t i = 0; i < n; ++i) DropRef(gb.blocks[i]);
    gb.blocks.erase(gb.blocks.begin(), gb.blocks.begin() + n);
    gb.first_live += n;
  }
}

void PagedAllocator::CommitGrow(RequestState& r, int64_t tokens) {
  if (counting_) return CommitGrowCounted(r, tokens);
  ClearTail(r);
  if (has_sliding_) ReleaseSkipped(r);
  const int64_t target = r.computed + tokens;
  for (size_t g = 0; g < groups_.size(); ++g) {
    GroupBlocks& gb = r.groups[g];
    if (groups_[g].kind == AttentionKind::kStateOnly) {
      // One page holds the layer's whole state from the first token on; it counts as in use.
      if (gb.blocks.empty() && tokens > 0) {
        const BlockId b = TakeFreeBlock();
        AddRef(b);
        AddFill(b, static_cast<int32_t>(block_size_));
        gb.blocks.push_back(b);
      }
      continue;
    }
    int64_t pos = r.computed;
    if (Offset(pos) != 0 && !gb.blocks.empty() && tokens > 0) {
      const BlockId last = gb.blocks.back();
      KVSIM_DCHECK(pool_.at(last).ref_count == 1);
      const int32_t room = static_cast<int32_t>(block_size_ - Offset(pos));
      const int32_t add = static_cast<int32_t>(std::min<int64_t>(room, target - pos));
      AddFill(last, add);
      pos += add;
    }
    if (pos < target) {
      // New blocks, all full but perhaps the last, each held by this request alone (no sharing
      // accounting): taken from the queue's front as a run.
      const int64_t n = BlocksFor(target - pos);
      const size_t first = gb.blocks.size();
      gb.blocks.resize(first + static_cast<size_t>(n));
      BlockId* out = gb.blocks.data() + first;
      TakeFreeBlocks(n, out);
      const uint16_t full = static_cast<uint16_t>(block_size_);
      for (int64_t k = 0; k + 1 < n; ++k) {
        Block& blk = pool_.at(out[k]);
        blk.ref_count = 1;
        blk.filled_slots = full;
      }
      Block& last = pool_.at(out[n - 1]);
      last.ref_count = 1;
      last.filled_slots = static_cast<uint16_t>(target - pos - (n - 1) * block_size_);
      token_slots_ += target - pos;
    }
  }
  r.computed = target;
  // RegisterKeys has nothing to do once every key is registered and the copy of the keys is kept.
  if (caching_ && (r.keys_registered < static_cast<int64_t>(r.keys.size()) || r.keys.capacity() > kKeptKeyCapacity))
    RegisterKeys(r);
  SetTail(r);
}

void PagedAllocator::RegisterKeys(RequestState& r) {
  // Prompt blocks that are now full become findable (only group 0 exists when caching is on).
  GroupBlocks& gb = r.groups[0];
  const int64_t full = std::min<int64_t>(Index(r.computed), static_cast<int64_t>(r.keys.size()));
  if (r.keys_registered < full) {
    pool_.UseKeyGroup(r.key_group);
    const int64_t group = pool_.key_group();
    if (probe_.valid && probe_.has_next &&
        std::find(r.keys.begin() + r.keys_registered, r.keys.begin() + full, probe_.next_key) != r.keys.begin() + full)
      probe_.extend = true;  // the probe's first miss becomes findable: it may extend its hits
    // Run by run: the blocks of one run are registered together.
    for (int64_t i = r.keys_registered; i < full;) {
      const int64_t pos = i % group;  // in its run
      const int64_t n = std::min<int64_t>(group - pos, full - i);
      pool_.AssignKeys(&gb.blocks[static_cast<size_t>(i)], &r.keys[static_cast<size_t>(i)], n,
                       r.keys[static_cast<size_t>(i - pos)], pos);
      i += n;
    }
  }
  r.keys_registered = std::max(r.keys_registered, full);
  if (r.keys_registered == static_cast<int64_t>(r.keys.size()) && r.keys.capacity() > kKeptKeyCapacity) {
    // Every key is in the map: a long prompt's copy is not kept for the rest of its decode.
    std::vector<BlockKey>().swap(r.keys);
    r.keys_registered = 0;
  }
}

void PagedAllocator::TakeFreeBlocks(int64_t n, BlockId* out) {
  if (!probe_.valid) return pool_.PopFront(n, out, [](BlockId) {});
  // The eviction points: a watched block's cached key is dropped with it.
  pool_.PopFront(n, out, [this](BlockId b) {
    if (const int32_t w = watched_[static_cast<size_t>(b)]) CutProbe(static_cast<size_t>(w - 1), pool_.key(b));
  });
}

BlockId PagedAllocator::TakeFreeBlock() {
  // The eviction point: the front block's cached key, if any, is dropped with it.
  const BlockId front = pool_.front();
  if (probe_.valid && watched_[static_cast<size_t>(front)])
    CutProbe(static_cast<size_t>(watched_[static_cast<size_t>(front)] - 1), pool_.key(front));
  return pool_.PopFront();
}

void PagedAllocator::AddRef(BlockId b) {
  Block& blk = pool_.at(b);
  if (blk.ref_count >= 1) shared_saved_ += blk.filled_slots;
  else if (probe_.valid && watched_[static_cast<size_t>(b)]) ++probe_.hits_in_use;
  ++blk.ref_count;
}

void PagedAllocator::DropRef(BlockId b) {
  Block& blk = pool_.at(b);
  KVSIM_DCHECK(blk.ref_count >= 1);
  --blk.ref_count;
  if (blk.ref_count >= 1) {
    shared_saved_ -= blk.filled_slots;
    return;
  }
  if (probe_.valid && watched_[static_cast<size_t>(b)]) --probe_.hits_in_use;
  token_slots_ -= blk.filled_slots;
  if (!blk.keyed) blk.filled_slots = 0;  // a keyed (full) block keeps its content while cached
  pool_.PushBack(b);
}

void PagedAllocator::AddFill(BlockId b, int32_t slots) {
  Block& blk = pool_.at(b);
  blk.filled_slots = static_cast<uint16_t>(blk.filled_slots + slots);
  token_slots_ += slots;
  shared_saved_ += static_cast<int64_t>(blk.ref_count - 1) * slots;
}

void PagedAllocator::ClearTail(RequestState& r) {
  for (GroupBlocks& gb : r.groups) {
    reserved_slots_ -= gb.tail_reserved;
    gb.tail_reserved = 0;
  }
}

void PagedAllocator::SetTail(RequestState& r) {
  // The last block holds exactly the request's tokens past its last full block; the slots it will
  // still fill before finishing are reserved, the rest internal fragmentation.
  const int64_t remaining = std::max<int64_t>(0, r.final_tokens - r.computed);
  const int64_t offset = Offset(r.computed);
  const int32_t unfilled = static_cast<int32_t>(offset == 0 ? 0 : block_size_ - offset);
  const int32_t value = static_cast<int32_t>(std::min<int64_t>(unfilled, remaining));
  for (size_t g = 0; g < r.groups.size(); ++g) {
    GroupBlocks& gb = r.groups[g];
    if (gb.held() == 0 || groups_[g].kind == AttentionKind::kStateOnly) continue;
    reserved_slots_ += value;
    gb.tail_reserved = value;
  }
}

void PagedAllocator::Free(RequestId id) {
  RequestState& r = requests_.at(id);
  if (counting_) {
    FreeCounted(r);
    requests_.erase(id);
    return;
  }
  ClearTail(r);
  // As DropRef on every block, tail first; the blocks whose last reference this was are appended.
  const bool watching = probe_.valid;
  int64_t freed_slots = 0, unshared_slots = 0;
  for (GroupBlocks& gb : r.groups) {
    pool_.PushBackTailFirst(gb.blocks.data(), gb.blocks.size(), [&](BlockId b, Block& blk) {
      KVSIM_DCHECK(blk.ref_count >= 1);
      if (--blk.ref_count >= 1) {
        unshared_slots += blk.filled_slots;
        return false;
      }
      if (watching && watched_[static_cast<size_t>(b)]) --probe_.hits_in_use;
      freed_slots += blk.filled_slots;
      if (!blk.keyed) blk.filled_slots = 0;  // a keyed (full) block keeps its content while cached
      return true;
    });
  }
  token_slots_ -= freed_slots;
  shared_saved_ -= unshared_slots;
  requests_.erase(id);
}

int64_t PagedAllocator::ComputedTokens(RequestId id) const { return requests_.at(id).computed; }

KvAccounting PagedAllocator::Accounting() const {
  KvAccounting a;
  FillAccounting(&a, 0);
  return a;
}

void PagedAllocator::FillAccounting(KvAccounting* out, int64_t filled) const {
  const int64_t used_blocks = num_used_blocks();
  // Held blocks are used and reserved: lazy decoders' tokens will fill them.
  const int64_t reserved = reserved_slots_ + held_ * block_size_;
  KvAccounting& a = *out;
  a.capacity_slots = pool_.num_blocks() * block_size_;
  a.token_slots = token_slots_ + filled;
  a.reserved_slots = reserved - filled;
  a.internal_fragmentation_slots = used_blocks * block_size_ - token_slots_ - reserved;
  a.external_fragmentation_slots = block_size_;  // the null block
  a.cached_slots = pool_.num_cached() * block_size_;
  a.free_slots = (QueuedBlocks() - pool_.num_cached()) * block_size_;
  a.shared_saved_slots = shared_saved_;
}

}  // namespace kvsim
