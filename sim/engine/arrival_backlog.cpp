#include "sim/engine/arrival_backlog.h"

namespace kvsim {

void ArrivalBacklog::Push(const TraceRequest& r, int64_t in_flight_end_ns, int64_t eligible_ns) {
  Arrival a;
  a.id = r.id;
  a.arrival_ns = r.arrival_ns;
  a.in_flight_end_ns = in_flight_end_ns;
  a.eligible_ns = eligible_ns;
  a.prompt_tokens = r.prompt_tokens;
  a.output_tokens = r.output_tokens;
  a.block_id_tokens = r.block_id_tokens;
  a.adapter = r.adapter;
  const size_t before = ids_.size();
  uint64_t previous = 0;
  for (const uint64_t id : r.block_ids) {
    // Zigzag: a small step back costs as little as a small step forward.
    const uint64_t delta = id - previous;  // modulo 2^64, undone exactly by the decoder's sum
    uint64_t z = (delta << 1) ^ (static_cast<uint64_t>(static_cast<int64_t>(delta) >> 63));
    previous = id;
    while (z >= 0x80) {
      ids_.push_back(static_cast<uint8_t>(z | 0x80));
      z >>= 7;
    }
    ids_.push_back(static_cast<uint8_t>(z));
  }
  const size_t bytes = ids_.size() - before;
  KVSIM_CHECK(bytes <= UINT32_MAX, "a request's block ids take more than 4 GiB encoded");
  a.id_bytes = static_cast<uint32_t>(bytes);
  entries_.push_back(a);
  ++count_;
}

void ArrivalBacklog::PopFront(std::vector<uint64_t>& block_ids) {
  KVSIM_DCHECK(!entries_.empty());
  const uint32_t bytes = entries_.front().id_bytes;
  KVSIM_DCHECK(bytes <= ids_.size());
  block_ids.clear();
  uint64_t previous = 0, z = 0;
  int shift = 0;
  auto it = ids_.begin();
  for (uint32_t i = 0; i < bytes; ++i, ++it) {
    const uint8_t byte = *it;
    z |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (byte & 0x80) {
      shift += 7;
      continue;
    }
    const uint64_t delta = (z >> 1) ^ (~(z & 1) + 1);  // zigzag undone: -(z & 1) as all ones or zero
    previous += delta;
    block_ids.push_back(previous);
    z = 0;
    shift = 0;
  }
  KVSIM_DCHECK(shift == 0);  // the entry's bytes end with a whole id
  ids_.erase(ids_.begin(), it);
  entries_.pop_front();
  --count_;
  ++popped_;
  KVSIM_DCHECK(count_ == entries_.size() && (count_ > 0 || ids_.empty()));  // every entry's bytes and no others
}

}  // namespace kvsim
