// Compiled with the MPI headers only (the header needs them).
#if KVSIM_WITH_MPI

#include "sim/sweep/mpi_leader.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kvcache/base/check.h"
#include "kvcache/base/error.h"
#include "sim/sweep/mpi_wire.h"
#include "sim/sweep/point_wire.h"

namespace kvsim {
namespace {

using mpi_wire::kPoll;
using mpi_wire::kTagResult;
using mpi_wire::kTagTask;
using mpi_wire::Poll;
using mpi_wire::RecvBytes;
using mpi_wire::SendBytes;
using mpi_wire::Signalled;
using mpi_wire::TaskHeader;

// A worker holds one task beyond its slots, so it never waits for the leader's poll to get work.
constexpr int kQueuedAhead = 1;

using NextTask = std::function<std::optional<FarmTask>()>;
using TaskDone = std::function<void(uint64_t, PointOutcome)>;

// One Stream() on the leader: its own replay threads and the workers' slots take tasks from `next`
// as they free up. Everything but MPI is guarded by one mutex; only the main thread calls MPI.
class LeaderStream {
 public:
  LeaderStream(const MpiLibrary& mpi, uint64_t round, int ranks, const NextTask& next, const TaskDone& done)
      : mpi_(mpi), round_(round), next_(next), done_(done), in_flight_(static_cast<size_t>(ranks)) {}
  ~LeaderStream() {  // on an exception: stop and join the leader's replays
    Stop();
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }
  LeaderStream(const LeaderStream&) = delete;
  LeaderStream& operator=(const LeaderStream&) = delete;

  // The leader's own slots ask for tasks as the workers' slots do.
  void StartLocal(int jobs, const TaskEvaluator& evaluate) {
    for (int j = 0; j < jobs; ++j)
      threads_.emplace_back([this, &evaluate] {
        std::unique_lock lock(mu_);
        while (!stop_.load()) {
          const std::optional<FarmTask> t = next_();
          if (!t) {
            if (Idle()) return;  // nothing runs that could make a task ready: the stream is over
            changed_.wait(lock);
            continue;
          }
          local_running_.push_back(t->id);
          lock.unlock();
          PointOutcome p = evaluate(t->value, &stop_);
          lock.lock();
          if (stop_.load()) return;  // interrupted: the replay ended early, its figures are not final
          local_running_.erase(std::find(local_running_.begin(), local_running_.end(), t->id));
          done_(t->id, std::move(p));
          refill_ = true;  // a worker slot waiting on this task's answer gets its next on the main thread's poll
          changed_.notify_all();
        }
      });
  }

  // Sends worker `w` tasks until it holds one per slot, plus (`ahead`) one queued.
  void Fill(int w, int jobs, bool ahead) {
    std::lock_guard lock(mu_);
    FillLocked(w, jobs, ahead);
  }

  // Receives results until the stream is over (or a signal), refilling the worker after each.
  void Collect(int jobs, const std::function<bool()>& queue_ahead) {
    while (!Signalled()) {
      const auto st = Poll(mpi_, MPI_ANY_SOURCE);
      if (!st) {
        std::unique_lock lock(mu_);
        if (refill_ || Idle()) {
          refill_ = false;
          for (int w = 1; w < static_cast<int>(in_flight_.size()); ++w) FillLocked(w, jobs, queue_ahead());
        }
        // Nothing runs even after every worker was offered a task: `next` has none left.
        if (Idle()) return;
        lock.unlock();
        std::this_thread::sleep_for(kPoll);
        continue;
      }
      const std::string bytes = RecvBytes(mpi_, *st);
      uint64_t header[2];
      if (st->MPI_TAG != kTagResult || bytes.size() < sizeof(header)) throw InternalError("MPI: unexpected message");
      std::memcpy(header, bytes.data(), sizeof(header));
      if (header[0] != round_) continue;  // a late answer from an interrupted round
      std::lock_guard lock(mu_);
      auto& held = in_flight_[static_cast<size_t>(st->MPI_SOURCE)];
      held.erase(std::find(held.begin(), held.end(), header[1]));
      done_(header[1], DecodePointOutcome(bytes.substr(sizeof(header))));
      changed_.notify_all();  // a local slot waiting on this answer may start the next task
      for (int w = 1; w < static_cast<int>(in_flight_.size()); ++w) FillLocked(w, jobs, queue_ahead());
    }
  }

  // Joins the leader's own replays (ending them at their next step after a signal), then names
  // what did not finish.
  FarmRound Finish() {
    if (Signalled()) Stop();
    for (auto& t : threads_) t.join();
    threads_.clear();
    FarmRound out;
    out.signal = StopSignal();
    for (size_t w = 1; w < in_flight_.size(); ++w)
      for (uint64_t i : in_flight_[w]) out.lost.push_back({i, "sent to rank " + std::to_string(w)});
    for (uint64_t i : local_running_) out.lost.push_back({i, "running on rank 0"});
    if (Signalled()) {
      out.partial = true;
      out.reason = out.signal == SIGINT ? "interrupted (SIGINT)"
                                        : "stopped by SIGTERM (mpirun and srun send it when a rank dies or the job is interrupted)";
    }
    return out;
  }

 private:
  bool Idle() const {  // under mu_
    return local_running_.empty() &&
           std::all_of(in_flight_.begin(), in_flight_.end(), [](const auto& v) { return v.empty(); });
  }
  void FillLocked(int w, int jobs, bool ahead) {
    auto& held = in_flight_[static_cast<size_t>(w)];
    while (held.size() < static_cast<size_t>(jobs) + (ahead ? kQueuedAhead : 0)) {
      const std::optional<FarmTask> t = next_();
      if (!t) return;
      const TaskHeader header{round_, t->id, t->value};
      std::string bytes(sizeof(TaskHeader), '\0');
      std::memcpy(bytes.data(), &header, sizeof(TaskHeader));
      SendBytes(mpi_, bytes, w, kTagTask);
      held.push_back(t->id);
    }
  }
  void Stop() {
    std::lock_guard lock(mu_);
    stop_.store(true);
    changed_.notify_all();
  }

  const MpiLibrary& mpi_;
  const uint64_t round_;
  const NextTask& next_;
  const TaskDone& done_;
  std::mutex mu_;  // guards the callbacks, in_flight_, local_running_, refill_
  std::condition_variable changed_;
  std::vector<uint64_t> local_running_;
  std::vector<std::vector<uint64_t>> in_flight_;  // per rank, the task ids it holds
  bool refill_ = false;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

}  // namespace

FarmRound StreamFromLeader(const MpiLibrary& mpi, uint64_t round, int ranks, int jobs, const NextTask& next,
                           const TaskDone& done, const std::function<bool()>& queue_ahead, const TaskEvaluator& evaluate) {
  LeaderStream stream(mpi, round, ranks, next, done);
  // The first fill queues nothing ahead, so that every rank gets work before any holds a spare.
  for (int w = 1; w < ranks; ++w) stream.Fill(w, jobs, /*ahead=*/false);
  stream.StartLocal(jobs, evaluate);
  stream.Collect(jobs, queue_ahead);
  return stream.Finish();
}

}  // namespace kvsim

#endif
