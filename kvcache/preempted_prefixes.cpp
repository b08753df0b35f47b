#include "kvcache/preempted_prefixes.h"

#include <algorithm>
#include <numeric>

#include "kvcache/base/check.h"

namespace kvsim {

void PreemptedPrefixes::Freed(RequestId id, int64_t appended, int64_t blocks, int64_t full_blocks) {
  KVSIM_DCHECK(blocks >= 0 && full_blocks >= 0 && full_blocks <= blocks);
  freed_[id] = Span{appended + blocks, blocks, full_blocks};
}

int64_t PreemptedPrefixes::Front(int64_t taken_from_front) const {
  // Each reclaimed position below the front was skipped, not taken: the front is that much further.
  int64_t front = taken_from_front + passed_;
  for (int64_t p : reclaimed_positions_) {
    if (p >= front) break;
    ++front;
  }
  return front;
}

int64_t PreemptedPrefixes::Surviving(RequestId id, int64_t taken_from_front) const {
  const auto it = freed_.find(id);
  if (it == freed_.end()) return 0;
  const Span& s = it->second;
  // The survivors are the positions from the front on: the highest, which hold the first blocks.
  const int64_t queued = s.end - std::max(s.end - s.blocks, Front(taken_from_front));
  return std::clamp<int64_t>(queued, 0, s.full_blocks);
}

void PreemptedPrefixes::Reclaim(RequestId id, int64_t blocks, int64_t taken_from_front) {
  const auto it = freed_.find(id);
  KVSIM_CHECK(blocks <= Surviving(id, taken_from_front), "reclaimed blocks that were not queued");
  if (it == freed_.end()) return;  // not a preempted request
  const int64_t end = it->second.end;
  freed_.erase(it);
  if (blocks == 0) return;
  // The front only moves on: positions it has passed stay passed, so they are counted, not listed.
  std::vector<int64_t>& r = reclaimed_positions_;
  const auto passed = std::lower_bound(r.begin(), r.end(), Front(taken_from_front));
  passed_ += passed - r.begin();
  r.erase(r.begin(), passed);
  // The first `blocks` blocks hold the top positions of the request's span, which no other listed
  // position falls within.
  std::vector<int64_t> span(static_cast<size_t>(blocks));
  std::iota(span.begin(), span.end(), end - blocks);
  r.insert(std::lower_bound(r.begin(), r.end(), end - blocks), span.begin(), span.end());
  reclaimed_ += blocks;
}

}  // namespace kvsim
