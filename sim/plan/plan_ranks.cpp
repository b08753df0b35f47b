#include "sim/plan/plan_ranks.h"

#include <sstream>

#include "kvcache/base/check.h"
#include "kvcache/base/interrupt.h"
#include "kvcache/base/text_format.h"
#include "sim/plan/plan_window.h"

namespace kvsim {
namespace {

// A task is one number (the farm's wire): the configuration and the most replicas to search.
constexpr int64_t kUpperSpan = 1024;  // above --max-replicas' 256

double TaskOf(const ConfigTask& t) { return static_cast<double>(static_cast<int64_t>(t.config) * kUpperSpan + t.upper); }

// A configuration's answer as a judged point: its outcome, the search's figures in the label.
PointOutcome Encode(const ConfigPlan& p) {
  PointOutcome o = p.outcome;
  o.label = Format("%d %lld %lld %lld %lld", p.found ? 1 : 0, static_cast<long long>(p.replicas),
                   static_cast<long long>(p.replays), static_cast<long long>(p.nearest_replicas),
                   static_cast<long long>(p.upper));
  return o;
}

ConfigPlan Decode(const ConfigTask& t, PointOutcome o) {
  ConfigPlan p;
  p.config = t.config;
  int found = 0;
  std::istringstream in(o.label);
  in >> found >> p.replicas >> p.replays >> p.nearest_replicas >> p.upper;
  KVSIM_CHECK(static_cast<bool>(in), "a plan task's answer carries its search's figures");
  p.found = found != 0;
  p.outcome = std::move(o);
  return p;
}

}  // namespace

std::optional<PlanResult> SearchPlanOnRanks(RankFarm& farm, const PlanSpace& space, const PlanSettings& settings,
                                            const PlanPointEvaluator& evaluate,
                                            const std::function<void(size_t, size_t)>& progress) {
  const TaskEvaluator run_task = [&](double task, const std::atomic<bool>* stop) {
    const auto whole = static_cast<int64_t>(task);
    try {
      return Encode(SearchReplicas(static_cast<size_t>(whole / kUpperSpan), whole % kUpperSpan, settings.exhaustive,
                                   evaluate, stop));
    } catch (const PlanInterrupted&) {
      PointOutcome o;
      o.interrupted = true;
      return o;
    }
  };
  if (!farm.leader()) {
    farm.Serve(run_task);
    return std::nullopt;
  }
  // Each free slot of any rank takes the window's next search; the window decides each one's bound,
  // so the plan is the one a single process prints.
  const ConfigStreamRunner stream = [&](PlanWindow& window) {
    bool interrupted = false;
    const auto next = [&]() -> std::optional<FarmTask> {
      if (interrupted) return std::nullopt;
      const std::optional<ConfigTask> t = window.Next();
      if (!t) return std::nullopt;
      return FarmTask{t->config, TaskOf(*t)};
    };
    const auto done = [&](uint64_t config, PointOutcome o) {
      if (o.interrupted) {
        interrupted = true;
        return;
      }
      window.Done(Decode(ConfigTask{static_cast<size_t>(config), 0}, std::move(o)));
    };
    const auto ahead = [&] { return window.Unstarted() > static_cast<size_t>(settings.jobs); };
    const FarmRound round = farm.Stream(next, done, ahead, run_task);
    if (round.partial || interrupted) throw PlanInterrupted{};
  };
  PlanResult result;
  try {
    result = SearchPlan(space, settings, evaluate, progress, &StopFlag(), stream);
  } catch (...) {
    farm.Finish();
    throw;
  }
  farm.Finish();
  return result;
}

}  // namespace kvsim
