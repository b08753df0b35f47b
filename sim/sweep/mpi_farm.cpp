#include "sim/sweep/mpi_farm.h"

#include <cstdlib>

#if KVSIM_WITH_MPI

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <deque>
#include <mutex>
#include <numeric>
#include <thread>

#include "kvcache/base/error.h"
#include "kvcache/base/interrupt.h"
#include "sim/sweep/mpi_library.h"
#include "sim/sweep/point_wire.h"
#endif

namespace kvsim {

bool LaunchedByMpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

#if !KVSIM_WITH_MPI

std::unique_ptr<RankFarm> JoinMpiJob(int) { return nullptr; }

#else

namespace {

enum Tag : int { kTagTask = 1, kTagResult = 2, kTagStop = 3 };
// How long an idle MPI thread sleeps between polls. Each wake-up takes the core from a replay for
// a moment, so polls are rare (at 200 µs the two ranks of a 2-core run lost ~5% of their replay
// time); a worker holds one task beyond its slots, so it never waits for this poll to get work.
constexpr auto kPoll = std::chrono::milliseconds(5);
constexpr int kQueuedAhead = 1;

// The process's stop signal (kvsim's one interrupt mechanism, kvcache/base/interrupt.h): the
// leader sees a signal that arrives between two rounds of a search in the next one.
bool Signalled() { return StopFlag().load(std::memory_order_relaxed); }

void Check(int rc, const char* call) {
  if (rc != MPI_SUCCESS) throw InternalError(std::string(call) + " failed with MPI error " + std::to_string(rc));
}

// A task on the wire: which Run(), which task in it, and its value.
struct TaskHeader {
  uint64_t round = 0, index = 0;
  double value = 0;
};

void SendBytes(const MpiLibrary& mpi, const std::string& bytes, int dest, int tag) {
  Check(mpi.send(bytes.data(), static_cast<int>(bytes.size()), mpi.byte_type, dest, tag, mpi.comm_world), "MPI_Send");
}

std::string RecvBytes(const MpiLibrary& mpi, const MPI_Status& probed) {
  int n = 0;
  Check(mpi.get_count(&probed, mpi.byte_type, &n), "MPI_Get_count");
  std::string bytes(static_cast<size_t>(n), '\0');
  Check(mpi.recv(bytes.data(), n, mpi.byte_type, probed.MPI_SOURCE, probed.MPI_TAG, mpi.comm_world, MPI_STATUS_IGNORE),
        "MPI_Recv");
  return bytes;
}

// The first message waiting from `source` (MPI_ANY_SOURCE for all), if any.
std::optional<MPI_Status> Poll(const MpiLibrary& mpi, int source) {
  int flag = 0;
  MPI_Status st;
  Check(mpi.iprobe(source, MPI_ANY_TAG, mpi.comm_world, &flag, &st), "MPI_Iprobe");
  return flag ? std::optional<MPI_Status>(st) : std::nullopt;
}

// A queue of tasks shared by a rank's replay threads and its MPI thread.
class TaskQueue {
 public:
  void Push(TaskHeader t) {
    std::lock_guard lock(mu_);
    tasks_.push_back(t);
    cv_.notify_one();
  }
  // Blocks until a task is available, or returns nullopt once closed and empty (or `drain` false).
  std::optional<TaskHeader> Pop(bool wait) {
    std::unique_lock lock(mu_);
    if (wait) cv_.wait(lock, [&] { return !tasks_.empty() || closed_; });
    if (tasks_.empty() || (closed_ && !drain_)) return std::nullopt;
    TaskHeader t = tasks_.front();
    tasks_.pop_front();
    return t;
  }
  void Close(bool drain) {
    std::lock_guard lock(mu_);
    closed_ = true;
    drain_ = drain;
    cv_.notify_all();
  }
  size_t Size() {
    std::lock_guard lock(mu_);
    return tasks_.size();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<TaskHeader> tasks_;
  bool closed_ = false, drain_ = true;
};

class MpiFarm final : public RankFarm {
 public:
  MpiFarm(MpiLibrary mpi, int rank, int size, int jobs) : mpi_(mpi), rank_(rank), size_(size), jobs_(jobs) {}
  // After a signal the job is being torn down and a rank may be dead: MPI_Finalize would wait
  // for it until mpirun's SIGKILL, so the leader leaves without it.
  ~MpiFarm() override {
    if (!Signalled()) mpi_.finalize();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::shared_ptr<const PreloadedTrace> ShareTrace(
      const std::function<std::shared_ptr<const PreloadedTrace>()>& load) override {
    std::string bytes;
    std::shared_ptr<const PreloadedTrace> trace;
    uint64_t header[2] = {0, 0};  // size, and 1 when the leader could not read the trace (bytes: why)
    if (leader()) {
      try {
        trace = load();
        bytes = EncodePreloadedTrace(*trace);
      } catch (const Error& e) {
        bytes = e.what();
        header[1] = 1;
      }
      header[0] = bytes.size();
    }
    Check(mpi_.bcast(header, 2, mpi_.uint64_type, 0, mpi_.comm_world), "MPI_Bcast");
    const uint64_t n = header[0];
    bytes.resize(n);
    // MPI counts are ints: send in pieces of at most 1 GiB.
    for (uint64_t at = 0; at < n; at += (1ull << 30)) {
      const int piece = static_cast<int>(std::min<uint64_t>(n - at, 1ull << 30));
      Check(mpi_.bcast(bytes.data() + at, piece, mpi_.byte_type, 0, mpi_.comm_world), "MPI_Bcast");
    }
    // Every rank fails alike (and finalizes), rather than the workers waiting for a trace forever.
    if (header[1] == 1) throw Error(bytes);
    if (!leader()) trace = std::make_shared<const PreloadedTrace>(DecodePreloadedTrace(bytes));
    return trace;
  }

  FarmRound Run(const std::vector<double>& tasks, const std::vector<double>& expected_cost,
                const TaskEvaluator& evaluate) override;
  FarmRound Stream(const std::function<std::optional<FarmTask>()>& next,
                   const std::function<void(uint64_t, PointOutcome)>& done, const std::function<bool()>& queue_ahead,
                   const TaskEvaluator& evaluate) override;
  void Finish() override {
    if (Signalled()) return;  // see ~MpiFarm
    for (int w = 1; w < size_; ++w) Check(mpi_.send(nullptr, 0, mpi_.byte_type, w, kTagStop, mpi_.comm_world), "MPI_Send");
  }
  void Serve(const TaskEvaluator& evaluate) override;

 private:
  MpiLibrary mpi_;
  int rank_, size_, jobs_;
  uint64_t round_ = 0;
};

// Longest expected first; ties in task order.
std::vector<size_t> LongestFirst(const std::vector<double>& cost) {
  std::vector<size_t> order(cost.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return cost[a] > cost[b]; });
  return order;
}

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

FarmRound MpiFarm::Stream(const NextTask& next, const TaskDone& done, const std::function<bool()>& queue_ahead,
                          const TaskEvaluator& evaluate) {
  if (!leader()) throw InternalError("RankFarm::Stream: leader only");
  LeaderStream stream(mpi_, ++round_, size_, next, done);
  // The first fill queues nothing ahead, so that every rank gets work before any holds a spare.
  for (int w = 1; w < size_; ++w) stream.Fill(w, jobs_, /*ahead=*/false);
  stream.StartLocal(jobs_, evaluate);
  stream.Collect(jobs_, queue_ahead);
  return stream.Finish();
}

FarmRound MpiFarm::Run(const std::vector<double>& tasks, const std::vector<double>& expected_cost,
                       const TaskEvaluator& evaluate) {
  if (!leader() || expected_cost.size() != tasks.size()) throw InternalError("RankFarm::Run: leader only, one cost per task");
  const std::vector<size_t> order = LongestFirst(expected_cost);
  size_t handed = 0;
  std::vector<std::optional<PointOutcome>> outcomes(tasks.size());
  const NextTask next = [&]() -> std::optional<FarmTask> {
    if (handed == order.size()) return std::nullopt;
    const size_t i = order[handed++];
    return FarmTask{i, tasks[i]};
  };
  const TaskDone done = [&](uint64_t i, PointOutcome p) { outcomes[i] = std::move(p); };
  // A queued task waits on one rank while another idles when fewer are left than the leader's
  // slots take: a short round (a search's) queues nothing.
  const auto ahead = [&] { return order.size() - handed > static_cast<size_t>(jobs_); };
  FarmRound round = Stream(next, done, ahead, evaluate);
  round.outcomes = std::move(outcomes);
  for (size_t i = 0; i < round.outcomes.size(); ++i) {
    const bool named = std::any_of(round.lost.begin(), round.lost.end(), [&](const auto& l) { return l.index == i; });
    if (!round.outcomes[i] && !named) round.lost.push_back({i, "not started"});
  }
  if (!round.lost.empty() && !round.partial) {
    round.partial = true;
    round.reason = "stopped";
  }
  return round;
}

void MpiFarm::Serve(const TaskEvaluator& evaluate) {
  // Test hook (tests/mpi): the worker holds its first task this many milliseconds, sending
  // nothing, then dies with SIGKILL, as a node lost mid-sweep would; the leader meanwhile finishes
  // other points.
  const char* die_after_ms = std::getenv("KVSIM_TEST_MPI_DIE_AFTER_MS");
  TaskQueue queue;
  std::mutex outbox_mu;
  std::condition_variable outbox_cv;
  std::deque<std::string> outbox;
  auto slot = [&] {
    while (auto t = queue.Pop(/*wait=*/true)) {
      PointOutcome p = evaluate(t->value, nullptr);
      uint64_t header[2] = {t->round, t->index};
      std::string bytes(reinterpret_cast<const char*>(header), sizeof(header));
      bytes += EncodePointOutcome(p);
      std::lock_guard lock(outbox_mu);
      outbox.push_back(std::move(bytes));
      outbox_cv.notify_one();  // the MPI thread sends it now rather than after its sleep
    }
  };
  std::vector<std::thread> threads;
  for (int j = 0; j < jobs_; ++j) threads.emplace_back(slot);
  for (bool stopped = false; !stopped;) {
    bool busy = false;
    if (const auto st = Poll(mpi_, 0)) {
      busy = true;
      const std::string bytes = RecvBytes(mpi_, *st);
      if (st->MPI_TAG == kTagStop) {
        stopped = true;
      } else if (st->MPI_TAG == kTagTask && bytes.size() == sizeof(TaskHeader)) {
        TaskHeader t;
        std::memcpy(&t, bytes.data(), sizeof(t));
        if (die_after_ms) {
          std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(die_after_ms)));
          std::raise(SIGKILL);
        }
        queue.Push(t);
      } else {
        throw InternalError("MPI: unexpected message on rank " + std::to_string(rank_));
      }
    }
    for (;;) {
      std::string next;
      {
        std::lock_guard lock(outbox_mu);
        if (outbox.empty()) break;
        next = std::move(outbox.front());
        outbox.pop_front();
      }
      busy = true;
      SendBytes(mpi_, next, 0, kTagResult);
    }
    if (!busy) {
      std::unique_lock lock(outbox_mu);
      outbox_cv.wait_for(lock, kPoll, [&] { return !outbox.empty(); });
    }
  }
  queue.Close(/*drain=*/false);
  for (auto& t : threads) t.join();
}

}  // namespace

std::unique_ptr<RankFarm> JoinMpiJob(int jobs) {
  if (!LaunchedByMpi()) return nullptr;
  const MpiLibrary mpi = LoadMpiLibrary();
  int provided = 0;
  Check(mpi.init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  int rank = 0, size = 1;
  mpi.comm_rank(mpi.comm_world, &rank);
  mpi.comm_size(mpi.comm_world, &size);
  if (size < 2) {
    mpi.finalize();
    return nullptr;
  }
  if (provided < MPI_THREAD_FUNNELED) throw InternalError("MPI: the library does not support MPI_THREAD_FUNNELED");
  return std::make_unique<MpiFarm>(mpi, rank, size, jobs);
}

#endif

}  // namespace kvsim
