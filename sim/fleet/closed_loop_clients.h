// Closed-loop load: N clients, each sending its next request when its last one ends. This is
// `vllm bench serve --max-concurrency N` (vllm/benchmarks/serve.py: every request of the list is
// scheduled at --request-rate, inf by default, then waits on an asyncio.Semaphore(N) before it is
// sent, and its latencies count from the send), inference-perf's constant concurrency and
// genai-perf's --concurrency. A request is sent at the later of its scheduled time and the time a
// slot frees; slots free in the order requests end (asyncio wakes a semaphore's waiters first in,
// first out), so the earliest release goes to the next request of the list.
//
// The clients watch the engines as a ReplayObserver (a request ends when its last token is out, or
// when it is rejected); the event loop (event_loop.h) asks them when the next request may be sent.
// As for open-loop arrivals, a send reaches the engine at once: the API server's and tokenizer's
// time (ttft_components) is added to the client's TTFT but does not delay the client's next send,
// which makes a client's cycle shorter by those milliseconds than a real client's.
#ifndef KVSIM_SIM_FLEET_CLOSED_LOOP_CLIENTS_H_
#define KVSIM_SIM_FLEET_CLOSED_LOOP_CLIENTS_H_

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "sim/engine/replay_observer.h"

namespace kvsim {

class ClosedLoopClients final : public ReplayObserver {
 public:
  // REQUIRES: clients >= 1.
  explicit ClosedLoopClients(int64_t clients);
  // When a request scheduled at `scheduled_ns` is sent: INT64_MAX while every client waits on a reply.
  int64_t SendTimeNs(int64_t scheduled_ns) const;
  // The request was sent at `sent_ns` (SendTimeNs): it takes the slot freed first.
  void Sent(int64_t sent_ns);
  // True once after any request has ended since the last call: the loop then asks SendTimeNs again.
  bool TakeRelease() {
    const bool r = released_;
    released_ = false;
    return r;
  }
  int64_t clients() const { return clients_; }

  void OnRequestDone(const RequestRecord& record) override;

 private:
  int64_t clients_;
  int64_t idle_from_start_;  // clients that have not sent yet (free from time 0)
  int64_t last_sent_ns_ = 0;
  // When each busy client's reply ended, earliest first (slots freed and not taken yet).
  std::priority_queue<int64_t, std::vector<int64_t>, std::greater<>> freed_ns_;
  bool released_ = false;
};

}  // namespace kvsim

#endif  // KVSIM_SIM_FLEET_CLOSED_LOOP_CLIENTS_H_
