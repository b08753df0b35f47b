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
#include "sim/sweep/mpi_leader.h"
#include "sim/sweep/mpi_library.h"
#include "sim/sweep/mpi_wire.h"
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

using mpi_wire::Check;
using mpi_wire::kPoll;
using mpi_wire::kTagResult;
using mpi_wire::kTagStop;
using mpi_wire::kTagTask;
using mpi_wire::Poll;
using mpi_wire::RecvBytes;
using mpi_wire::SendBytes;
using mpi_wire::Signalled;
using mpi_wire::TaskHeader;

// A worker's queue of tasks, shared by its replay threads and its MPI thread.
class TaskQueue {
 public:
  void Push(TaskHeader t) {
    std::lock_guard lock(mu_);
    tasks_.push_back(t);
    cv_.notify_one();
  }
  // Blocks until a task is available; nullopt once closed (the tasks left are dropped).
  std::optional<TaskHeader> Pop() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return !tasks_.empty() || closed_; });
    if (closed_) return std::nullopt;
    TaskHeader t = tasks_.front();
    tasks_.pop_front();
    return t;
  }
  void Close() {
    std::lock_guard lock(mu_);
    closed_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<TaskHeader> tasks_;
  bool closed_ = false;
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

FarmRound MpiFarm::Stream(const std::function<std::optional<FarmTask>()>& next,
                          const std::function<void(uint64_t, PointOutcome)>& done,
                          const std::function<bool()>& queue_ahead, const TaskEvaluator& evaluate) {
  if (!leader()) throw InternalError("RankFarm::Stream: leader only");
  return StreamFromLeader(mpi_, ++round_, size_, jobs_, next, done, queue_ahead, evaluate);
}

FarmRound MpiFarm::Run(const std::vector<double>& tasks, const std::vector<double>& expected_cost,
                       const TaskEvaluator& evaluate) {
  if (!leader() || expected_cost.size() != tasks.size()) throw InternalError("RankFarm::Run: leader only, one cost per task");
  const std::vector<size_t> order = LongestFirst(expected_cost);
  size_t handed = 0;
  std::vector<std::optional<PointOutcome>> outcomes(tasks.size());
  const std::function<std::optional<FarmTask>()> next = [&]() -> std::optional<FarmTask> {
    if (handed == order.size()) return std::nullopt;
    const size_t i = order[handed++];
    return FarmTask{i, tasks[i]};
  };
  const std::function<void(uint64_t, PointOutcome)> done = [&](uint64_t i, PointOutcome p) { outcomes[i] = std::move(p); };
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
    while (auto t = queue.Pop()) {
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
  queue.Close();
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
