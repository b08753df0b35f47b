// The tail of a replica's waiting queue that admission has not looked at yet, kept compact.
//
// An overloaded replay holds a hundred thousand waiting requests at its peak (the Mooncake
// conversation trace tiled ten times: 98,252), while the scheduler only ever looks at the head of
// the queue: as many requests as one step's admission pass considers. A full engine slot for each
// (ReplayEngine's Live: request, record, keys, scheduling state, ~360 bytes, plus a vector of trace
// block ids) made the backlog most of the replay's memory. An entry here keeps what the engine
// needs to build the slot when admission reaches it (64 bytes), and the trace's block ids go to
// one byte FIFO shared by all entries, each id written as the LEB128 varint of its zigzag
// difference from the previous id of the same prompt: Mooncake's ids mostly count up by one, so
// most take one byte instead of eight.
//
// Entries leave in arrival order only (PopFront); each keeps its absolute position (Seq) so the
// engine can refer to one until it leaves (async scheduling marks arrivals eligible by position).
#ifndef KVSIM_SIM_ENGINE_ARRIVAL_BACKLOG_H_
#define KVSIM_SIM_ENGINE_ARRIVAL_BACKLOG_H_

#include <cstdint>
#include <deque>
#include <vector>

#include "kvcache/base/check.h"
#include "workloads/request_source.h"

namespace kvsim {

class ArrivalBacklog {
 public:
  // What a waiting request is before admission first considers it. The trace's session and line
  // are left out: the router used the session before delivery, and nothing after it reads either.
  struct Arrival {
    uint64_t id = 0;
    int64_t arrival_ns = 0;
    int64_t in_flight_end_ns = 0;  // RequestRecord's: the engine's clock at delivery
    int64_t eligible_ns = 0;       // RequestRecord's: -1 until a scheduler pass could see it
    int64_t prompt_tokens = 0;
    int64_t output_tokens = 0;
    int64_t block_id_tokens = 0;
    uint32_t adapter = 0;
    uint32_t id_bytes = 0;  // its block ids' bytes in the shared FIFO
  };

  bool empty() const { return entries_.empty(); }
  size_t size() const { return count_; }  // (speed: std::deque's size() is a computation, read every step)
  // Appends `r` (its block ids encoded; pass them empty to keep none).
  void Push(const TraceRequest& r, int64_t in_flight_end_ns, int64_t eligible_ns);
  const Arrival& Front() const {
    KVSIM_DCHECK(!entries_.empty());
    return entries_.front();
  }
  // Removes the front entry, its block ids decoded into `block_ids` (replacing its contents).
  void PopFront(std::vector<uint64_t>& block_ids);

  // Absolute positions: the n-th entry ever pushed is Seq n - 1, as long as it is here.
  uint64_t FrontSeq() const { return popped_; }
  uint64_t BackSeq() const { return popped_ + count_ - 1; }
  bool Holds(uint64_t seq) const { return seq >= popped_ && seq - popped_ < count_; }
  Arrival& At(uint64_t seq) {
    KVSIM_DCHECK(Holds(seq));
    return entries_[static_cast<size_t>(seq - popped_)];
  }
  // The shared FIFO's size in bytes (for tests of the encoding's size).
  size_t IdBytes() const { return ids_.size(); }

 private:
  std::deque<Arrival> entries_;
  std::deque<uint8_t> ids_;  // a deque frees its chunks as the front is consumed: no doubling, no compaction
  uint64_t popped_ = 0;
  size_t count_ = 0;  // entries_.size()
};

}  // namespace kvsim

#endif  // KVSIM_SIM_ENGINE_ARRIVAL_BACKLOG_H_
