#include "sim/plan/plan_run.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "kvcache/base/check.h"

namespace kvsim {
namespace {

// The searches on `jobs` threads of this process.
void RunOnThreads(PlanWindow& window, const PlanSettings& settings, const PlanPointEvaluator& evaluate,
                  const std::atomic<bool>* stop) {
  std::mutex mu;  // guards the window
  std::condition_variable changed;
  size_t running = 0;
  bool interrupted = false;
  std::exception_ptr error;
  auto worker = [&] {
    std::unique_lock lock(mu);
    while (!interrupted && !error) {
      const std::optional<ConfigTask> task = window.Next();
      if (!task) {
        if (window.AllStarted()) return;
        KVSIM_CHECK(running > 0, "the window waits only for a running search");
        changed.wait(lock);
        continue;
      }
      ++running;
      lock.unlock();
      ConfigPlan plan;
      std::exception_ptr failed;
      bool cut = false;
      try {
        plan = SearchReplicas(task->config, task->upper, settings.exhaustive, evaluate, stop);
      } catch (const PlanInterrupted&) {
        cut = true;
      } catch (...) {
        failed = std::current_exception();
      }
      lock.lock();
      --running;
      if (!cut && !failed) {
        try {  // pricing the plan may fail too (--robust's bands): it ends the search as a replay's error does
          window.Done(std::move(plan));
        } catch (...) {
          failed = std::current_exception();
        }
      }
      if (cut) interrupted = true;
      else if (failed) error = failed;
      changed.notify_all();
    }
  };
  const int jobs = std::max(1, settings.jobs);
  std::vector<std::thread> pool;
  for (int j = 1; j < jobs; ++j) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
  if (interrupted) throw PlanInterrupted{};
}

}  // namespace

PlanResult SearchPlan(const PlanSpace& space, const PlanSettings& settings, const PlanPointEvaluator& evaluate,
                      const std::function<void(size_t, size_t)>& progress, const std::atomic<bool>* stop,
                      const ConfigStreamRunner& run_stream) {
  PlanWindow window(space, settings, settings.window_lag, progress);
  bool partial = false;
  try {
    if (run_stream) run_stream(window);
    else RunOnThreads(window, settings, evaluate, stop);
  } catch (const PlanInterrupted&) {
    partial = true;
  }
  if (stop && stop->load()) partial = true;
  return window.Result(partial);
}

}  // namespace kvsim
