// A plan's error bars: each SLO's predicted latency with the band of kvsim's measured errors in the
// same regime (sim/stats/error_bands.h: model class, GPU family, load), whether the SLO holds at
// the band's pessimistic edge (predicted x high), and --robust's judgement by that edge.
#ifndef KVSIM_SIM_PLAN_PLAN_BANDS_H_
#define KVSIM_SIM_PLAN_PLAN_BANDS_H_

#include <string>
#include <vector>

#include "kvcache/budget/deployment_settings.h"
#include "sim/stats/error_bands.h"
#include "sim/sweep/sweep.h"

namespace kvsim {

// The regime of a replayed point: the model's class, the GPU's family, and the load as the share of
// the batch slots busy on average (mean running requests per replica over max-num-seqs: how close
// the replica runs to the batch its scheduler saturates at).
ErrorRegime RegimeOf(const Deployment& deployment, const ReplaySummary& summary, int64_t replicas);

struct LatencyBand {
  SloConstraint slo;
  double predicted_s = 0;
  ErrorBand band;                 // measured / predicted; [1, 1] with runs = 0 when there is no data
  double pessimistic_s = 0;       // predicted x high
  bool holds = false;             // predicted <= limit
  bool holds_at_edge = false;     // pessimistic <= limit
};

// One band per latency SLO (goodput has none).
std::vector<LatencyBand> BandsFor(const ReplaySummary& summary, const ErrorRegime& regime, const SweepCriteria& criteria,
                                  const ErrorBands& bands);

// --robust: a point that meets its SLOs as predicted but not at a band's pessimistic edge is judged
// infeasible, the edge named in its violations.
void JudgeAtPessimisticEdge(PointOutcome& point, const std::vector<LatencyBand>& bands);

}  // namespace kvsim

#endif  // KVSIM_SIM_PLAN_PLAN_BANDS_H_
