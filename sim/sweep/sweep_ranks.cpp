#include "sim/sweep/sweep_ranks.h"

#include <csignal>
#include <memory>
#include <mutex>

namespace kvsim {
namespace {

using TracePtr = std::shared_ptr<const PreloadedTrace>;

// One preload per distinct trace input, as RunVariants shares them; with `broadcast` the leader
// reads each and sends it (a collective: every rank walks the same list in the same order).
std::vector<TracePtr> PreloadOnRanks(RankFarm& farm, const std::vector<Variant>& variants, bool broadcast) {
  std::vector<TracePtr> preloads(variants.size());
  for (size_t i = 0; i < variants.size(); ++i) {
    for (size_t j = 0; j < i && !preloads[i]; ++j)
      if (SameTraceInput(variants[i].replay, variants[j].replay)) preloads[i] = preloads[j];
    if (preloads[i]) continue;
    const ReplayOptions& options = variants[i].replay;
    preloads[i] = broadcast ? farm.ShareTrace([&] { return PreloadTrace(options); }) : PreloadTrace(options);
  }
  return preloads;
}

// A replay's work is mostly its steps; on the same trace a smaller batch cap means more of them.
double ExpectedCost(const Variant& v) {
  const auto cap = v.deployment.config.max_num_seqs.value_or(256);  // unset: vLLM's default
  return 1.0 / static_cast<double>(std::max<int64_t>(cap, 1));
}

std::string StopReason(const FarmRound& round) { return round.reason.empty() ? "stopped" : round.reason; }

}  // namespace

std::optional<RankedGrid> EvaluatePointsOnRanks(RankFarm& farm, std::vector<Variant> variants,
                                                const SweepCriteria& criteria, bool broadcast_trace) {
  const std::vector<TracePtr> preloads = PreloadOnRanks(farm, variants, broadcast_trace);
  const TaskEvaluator evaluate = [&](double task, const std::atomic<bool>* stop) {
    Variant v = variants.at(static_cast<size_t>(task));
    return EvaluateOne(v, criteria, preloads[static_cast<size_t>(task)], stop);
  };
  if (!farm.leader()) {
    farm.Serve(evaluate);
    return std::nullopt;
  }
  std::vector<double> tasks, cost;
  for (size_t i = 0; i < variants.size(); ++i) {
    tasks.push_back(static_cast<double>(i));
    cost.push_back(ExpectedCost(variants[i]));
  }
  FarmRound round = farm.Run(tasks, cost, evaluate);
  farm.Finish();
  RankedGrid grid;
  for (auto& o : round.outcomes)
    if (o) grid.finished.push_back(std::move(*o));
  grid.partial = round.partial;
  grid.signal = round.signal;
  grid.reason = round.partial ? StopReason(round) : "";
  for (const auto& l : round.lost) grid.lost.push_back(variants[l.index].label + " (" + l.where + ")");
  return grid;
}

std::optional<RankedSearch> SearchOnRanks(RankFarm& farm, int jobs, const std::function<Variant(double)>& make,
                                          const SweepCriteria& criteria, bool broadcast_trace,
                                          const std::function<SearchResult(ProbeRounds&)>& search) {
  // Every probe replays the same trace (a probe changes max_num_seqs or the rate scale only).
  const Variant first = make(1.0);
  const TracePtr preload = broadcast_trace ? farm.ShareTrace([&] { return PreloadTrace(first.replay); })
                                           : PreloadTrace(first.replay);
  std::mutex make_mu;  // `make` may share caches (the CLI's ResolveCache); replays run on `jobs` threads
  const TaskEvaluator evaluate = [&](double value, const std::atomic<bool>* stop) {
    Variant v = [&] {
      std::lock_guard lock(make_mu);
      return make(value);
    }();
    return EvaluateOne(v, criteria, preload, stop);
  };
  if (!farm.leader()) {
    farm.Serve(evaluate);
    return std::nullopt;
  }
  ProbeRounds rounds;
  rounds.width = farm.size() * jobs;
  rounds.run = [&](const std::vector<double>& values) {
    FarmRound round = farm.Run(values, std::vector<double>(values.size(), 1.0), evaluate);
    if (round.partial) {
      std::string lost;
      for (const auto& l : round.lost) lost += (lost.empty() ? "" : ", ") + make(values[l.index]).label + " (" + l.where + ")";
      throw RanksStopped(StopReason(round) + "; probes not finished: " + lost, round.signal ? round.signal : SIGTERM);
    }
    std::vector<PointOutcome> outcomes;
    for (auto& o : round.outcomes) outcomes.push_back(std::move(*o));
    return outcomes;
  };
  RankedSearch out;
  try {
    out.result = search(rounds);
  } catch (...) {
    farm.Finish();
    throw;
  }
  farm.Finish();
  out.rounds = rounds.rounds;
  out.probes = rounds.probes;
  return out;
}

}  // namespace kvsim
