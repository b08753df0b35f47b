#include "sim/fleet/closed_loop_clients.h"

#include <algorithm>

#include "kvcache/base/check.h"

namespace kvsim {

ClosedLoopClients::ClosedLoopClients(int64_t clients) : clients_(clients), idle_from_start_(clients) {
  KVSIM_CHECK(clients >= 1, "closed-loop load needs a client");
}

int64_t ClosedLoopClients::SendTimeNs(int64_t scheduled_ns) const {
  // Never before an earlier send: a reply that ended before the last send frees a client that
  // the list could only use from its own next request on.
  const int64_t floor = std::max(scheduled_ns, last_sent_ns_);
  if (idle_from_start_ > 0) return floor;
  if (freed_ns_.empty()) return INT64_MAX;
  return std::max(floor, freed_ns_.top());
}

void ClosedLoopClients::Sent(int64_t sent_ns) {
  KVSIM_DCHECK(sent_ns >= last_sent_ns_);
  last_sent_ns_ = sent_ns;
  if (idle_from_start_ > 0) {
    --idle_from_start_;
    return;
  }
  KVSIM_CHECK(!freed_ns_.empty(), "a closed-loop request was sent with every client busy");
  freed_ns_.pop();
}

void ClosedLoopClients::OnRequestDone(const RequestRecord& record) {
  // A rejected request's reply (an error) comes back as it arrives.
  freed_ns_.push(record.rejected_reason.empty() ? record.finished_ns : record.arrival_ns);
  released_ = true;
}

}  // namespace kvsim
