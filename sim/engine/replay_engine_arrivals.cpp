// ReplayEngine's arrivals (replay_engine.h): a request joins the waiting queue with a slot, or as a
// compact backlog record while the queue is long, and gets its slot when admission reaches it.
#include "sim/engine/replay_engine.h"

#include <algorithm>

#include "kvcache/base/check.h"

namespace kvsim {

ReplayEngine::Slot ReplayEngine::NewSlot() {
  if (!free_slots_.empty()) {
    const Slot s = free_slots_.back();
    free_slots_.pop_back();
    return s;
  }
  slots_.emplace_back();
  return static_cast<Slot>(slots_.size() - 1);
}

// speed: inlined into Arrive, which runs once per request.
[[gnu::always_inline]] inline void ReplayEngine::TakeSlot(TraceRequest&& r, int64_t target, int64_t in_flight_end_ns, int64_t eligible_ns) {
  const Slot slot = NewSlot();
  Live& l = slots_[slot];
  l = Live{};
  l.target = target;
  l.record.id = r.id;
  l.record.arrival_ns = r.arrival_ns;
  l.record.in_flight_end_ns = in_flight_end_ns;
  l.record.eligible_ns = eligible_ns;
  l.record.prompt_tokens = r.prompt_tokens;
  l.record.adapter = r.adapter;
  l.req = std::move(r);
  // A waiting request keeps the trace's block ids (one per 512 tokens in Mooncake) and gets its
  // pool-block keys (one per 16 tokens) only when admission first considers it: a backlog of
  // thousands of long prompts would otherwise hold 32 times the memory.
  if (l.req.block_ids.capacity() != l.req.block_ids.size()) l.req.block_ids.shrink_to_fit();
  l.in_use = true;
  waiting_.push_back(slot);
  if (eligible_ns < 0) not_yet_eligible_.push_back(slot);
}

void ReplayEngine::Arrive(TraceRequest&& r) {
  ++counters_.events;
  if (r.prompt_tokens >= o_.max_model_len) {
    Reject(std::move(r), "prompt_tokens >= max_model_len");
    return;
  }
  if (!o_.lora.enabled()) r.adapter = 0;  // without --enable-lora every request runs on the base model
  else if (r.adapter != 0) ++counters_.lora.requests;
  const int64_t target = TargetOf(r.prompt_tokens, r.output_tokens);
  // Its keys are not computed yet (EnsureKeys): whether it can ever fit does not depend on them.
  if (!alloc_.CanEverFit(FreshAdmission(r.id, r.prompt_tokens, target))) {
    Reject(std::move(r), "needs more KV cache than the whole pool");
    return;
  }
  if (!o_.prefix_caching && r.block_ids.capacity() != 0) std::vector<uint64_t>().swap(r.block_ids);
  waiting_tokens_ += r.prompt_tokens;
  // Deliver moved an idle engine's clock to the arrival: its step in flight ends now.
  // With SGLang's recv interval an arrival during a batch waits for an iteration that receives.
  const bool waits_for_pass = (o_.async_scheduling || recv_.skips()) && !running_.empty();
  const int64_t eligible_ns = waits_for_pass ? -1 : now_ns_;
  if (!waits_for_pass && recv_.skips()) recv_.ReceivedWhileIdle(step_ + 1);
  if (eligible_ns < 0) ++unseen_arrivals_;
  // The head of the waiting queue always has a slot (a non-empty backlog implies a non-empty waiting_),
  // so "anything waiting?" is one test on the hot paths (QuietDecodeStep).
  if (!backlog_.empty() || (!waiting_.empty() && waiting_.size() >= o_.slotted_arrivals)) {
    backlog_.Push(r, now_ns_, eligible_ns);
    if (eligible_ns < 0) unseen_backlog_.push_back(backlog_.BackSeq());
    return;
  }
  TakeSlot(std::move(r), target, now_ns_, eligible_ns);
}

void ReplayEngine::PromoteFront() {
  const ArrivalBacklog::Arrival& a = backlog_.Front();
  if (a.eligible_ns < 0) {
    // Not reached by admission (it stops at the first request no pass has seen); kept exact anyway:
    // the oldest unseen backlog entry is the newest unseen slotted arrival.
    KVSIM_DCHECK(!unseen_backlog_.empty() && unseen_backlog_.front() == backlog_.FrontSeq());
    unseen_backlog_.pop_front();
  }
  TraceRequest r;
  r.id = a.id;
  r.arrival_ns = a.arrival_ns;
  r.prompt_tokens = a.prompt_tokens;
  r.output_tokens = a.output_tokens;
  r.block_id_tokens = a.block_id_tokens;
  r.adapter = a.adapter;
  const int64_t in_flight_end_ns = a.in_flight_end_ns, eligible_ns = a.eligible_ns;
  backlog_.PopFront(backlog_ids_);  // (`a` ends here)
  r.block_ids.assign(backlog_ids_.begin(), backlog_ids_.end());
  const int64_t target = TargetOf(r.prompt_tokens, r.output_tokens);
  TakeSlot(std::move(r), target, in_flight_end_ns, eligible_ns);
}

}  // namespace kvsim
