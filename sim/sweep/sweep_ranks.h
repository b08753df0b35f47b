// `kvsim sweep` on the ranks of an MPI job (sim/sweep/mpi_farm.h): a grid's points and a search's probe
// rounds. Every rank calls these with the same arguments, as every rank parsed the same command
// line; the leader (rank 0) gets the results, the workers serve and get nullopt.
#ifndef KVSIM_SIM_SWEEP_RANKS_H_
#define KVSIM_SIM_SWEEP_RANKS_H_

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/sweep/mpi_farm.h"
#include "sim/sweep/sweep.h"
#include "sim/sweep/sweep_search.h"

namespace kvsim {

struct RankedGrid {
  std::vector<PointOutcome> finished;  // in grid order; points that did not finish are left out
  bool partial = false;
  int signal = 0;                      // what stopped the job (SIGTERM, SIGINT), 0 if nothing
  std::string reason;
  std::vector<std::string> lost;       // "max-num-seqs=16 (sent to rank 1)"
};

// The grid's points judged across the ranks, as EvaluatePoints would judge them. Each rank reads
// the trace itself, or receives the leader's copy when `broadcast_trace`.
std::optional<RankedGrid> EvaluatePointsOnRanks(RankFarm& farm, std::vector<Variant> variants,
                                                const SweepCriteria& criteria, bool broadcast_trace);

// Thrown on the leader when a signal stops a search between or during its rounds.
class RanksStopped : public std::runtime_error {
 public:
  RanksStopped(const std::string& message, int signal) : std::runtime_error(message), signal_(signal) {}
  int signal() const { return signal_; }

 private:
  int signal_;
};

struct RankedSearch {
  SearchResult result;
  int rounds = 0;       // rounds of probes run
  int64_t probes = 0;   // probes evaluated, the speculative ones the search did not need included
};

// A search (`search` runs one of sweep_search.h's with the rounds it is given) with one probe per
// slot and round: ranks × `jobs` values at once. `make` builds a probe's variant from its value.
std::optional<RankedSearch> SearchOnRanks(RankFarm& farm, int jobs, const std::function<Variant(double)>& make,
                                          const SweepCriteria& criteria, bool broadcast_trace,
                                          const std::function<SearchResult(ProbeRounds&)>& search);

}  // namespace kvsim

#endif  // KVSIM_SIM_SWEEP_RANKS_H_
