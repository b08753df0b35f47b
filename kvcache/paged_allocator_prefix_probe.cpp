// PagedAllocator's prefix probe (paged_allocator.h): the cached blocks a waiting request's prompt
// would hit, kept for the blocked head request between steps and trimmed or extended as blocks are
// evicted or registered.
#include "kvcache/paged_allocator.h"

#include <algorithm>

#include "kvcache/base/check.h"

namespace kvsim {

bool PagedAllocator::ProbeMatches(const AdmitRequest& request) const {
  const std::span<const BlockKey> keys = request.prefix_keys;
  return probe_.valid && probe_.id == request.id && probe_.prompt_tokens == request.prompt_tokens &&
         probe_.keys == keys.data() && probe_.num_keys == keys.size() && probe_.last_key == keys.back();
}

void PagedAllocator::DropProbe() const {
  if (!probe_.valid) return;
  for (BlockId b : probe_.hits) watched_[static_cast<size_t>(b)] = 0;
  probe_.hits.clear();
  probe_.valid = false;
}

void PagedAllocator::Probe(const AdmitRequest& request, int64_t limit) const {
  DropProbe();
  if (watched_.empty()) watched_.assign(static_cast<size_t>(pool_.num_blocks()), 0);
  probe_.valid = true;
  probe_.id = request.id;
  probe_.prompt_tokens = request.prompt_tokens;
  probe_.keys = request.prefix_keys.data();
  probe_.num_keys = request.prefix_keys.size();
  probe_.last_key = request.prefix_keys.back();
  probe_.hits_in_use = 0;
  ExtendProbe(request, limit);
}

void PagedAllocator::ExtendProbe(const AdmitRequest& request, int64_t limit) const {
  const std::span<const BlockKey> keys = request.prefix_keys;
  pool_.UseKeyGroup(KeyGroupOf(request));
  const int64_t group = pool_.key_group();
  int64_t hits = static_cast<int64_t>(probe_.hits.size());
  int64_t pos = hits % group;  // in its run
  int32_t run = pos == 0 ? -1 : pool_.FindRun(keys[static_cast<size_t>(hits - pos)]);
  for (; hits < limit; ++hits) {
    if (pos == 0) run = pool_.FindRun(keys[static_cast<size_t>(hits)]);
    const BlockId b = pool_.RunBlock(run, pos);
    if (b == kNoBlock) break;
    KVSIM_DCHECK(pool_.key(b) == keys[static_cast<size_t>(hits)]);
    probe_.hits.push_back(b);
    watched_[static_cast<size_t>(b)] = static_cast<int32_t>(hits + 1);
    if (pool_.at(b).ref_count > 0) ++probe_.hits_in_use;
    if (++pos == group) pos = 0;
  }
  probe_.has_next = hits < limit;
  probe_.next_key = probe_.has_next ? request.prefix_keys[static_cast<size_t>(hits)] : 0;
  probe_.extend = false;
}

void PagedAllocator::CutProbe(size_t n, BlockKey evicted_key) const {
  for (size_t i = n; i < probe_.hits.size(); ++i) {
    const BlockId b = probe_.hits[i];
    watched_[static_cast<size_t>(b)] = 0;
    if (pool_.at(b).ref_count > 0) --probe_.hits_in_use;
  }
  probe_.hits.resize(n);
  probe_.has_next = true;  // the evicted block's key, n < limit
  probe_.next_key = evicted_key;
  probe_.extend = false;
}

int64_t PagedAllocator::PrefixHits(const AdmitRequest& request, int64_t* hits_in_free_queue) const {
  *hits_in_free_queue = 0;
  if (!caching_ || request.prefix_keys.empty()) return 0;
  // The last prompt token is always recomputed (its logits are needed), so at most
  // (prompt − 1) / block_size full blocks can come from the cache.
  const int64_t limit = std::min<int64_t>(static_cast<int64_t>(request.prefix_keys.size()),
                                          (request.prompt_tokens - 1) / block_size_);
  if (limit <= 0) return 0;
  if (!ProbeMatches(request)) Probe(request, limit);
  else if (probe_.extend) ExtendProbe(request, limit);
  const int64_t hits = static_cast<int64_t>(probe_.hits.size());
  *hits_in_free_queue = hits - probe_.hits_in_use;
  return hits;
}

}  // namespace kvsim
