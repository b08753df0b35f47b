// A plan's error bars: the pessimistic edge is the prediction times the band's high ratio, and
// --robust turns a point that meets an SLO only as predicted into a miss that names the edge.
#include <gtest/gtest.h>

#include "kvcache/budget/deployment.h"
#include "kvcache/model/model_catalog.h"
#include "sim/plan/plan_bands.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

TEST(PlanBandsTest, PessimisticEdgeDecidesUnderRobust) {
  const SweepCriteria c = ParseCriteria("throughput", "ttft-p99=1s,tpot-p99=100ms", -1);
  ReplaySummary s;
  s.latency_s.ttft.p99 = 0.8;
  s.latency_s.tpot.p99 = 0.05;
  const ErrorBands none;  // no table: every band [1, 1], the prediction alone
  std::vector<LatencyBand> bands = BandsFor(s, ErrorRegime{}, c, none);
  ASSERT_EQ(bands.size(), 2u);
  EXPECT_TRUE(bands[0].holds && bands[0].holds_at_edge);
  EXPECT_EQ(bands[0].band.runs, 0);
  // A band whose high edge is 1.5: TTFT 0.8 s x 1.5 = 1.2 s > 1 s at the edge; TPOT 0.075 s holds.
  for (LatencyBand& b : bands) {
    b.band.high = 1.5;
    b.band.runs = 10;
    b.band.regime = "dense/ada/moderate";
    b.pessimistic_s = b.predicted_s * b.band.high;
    b.holds_at_edge = b.pessimistic_s <= b.slo.limit_s;
  }
  PointOutcome p;
  p.feasible = true;
  p.distance = 0.8;
  JudgeAtPessimisticEdge(p, bands);
  EXPECT_FALSE(p.feasible);
  ASSERT_EQ(p.violations.size(), 1u);
  EXPECT_NE(p.violations[0].find("ttft-p99 at the pessimistic edge 1.2 s (0.8 s x 1.5, dense/ada/moderate) > 1 s"),
            std::string::npos)
      << p.violations[0];
  EXPECT_DOUBLE_EQ(p.distance, 1.2);
}

TEST(PlanBandsTest, RegimeFromTheModelTheGpuAndTheBusySlots) {
  DeploymentOptions d;
  d.gpu = "l40s";
  d.max_num_seqs = "64";
  const Deployment dep = ResolveDeployment(d, DataDirectory());
  ReplaySummary s;
  s.concurrency.mean_running = 48;  // 48 of 64 slots: 0.75, moderate
  const ErrorRegime r = RegimeOf(dep, s, 1);
  EXPECT_EQ(r.model, ModelClass::kDense);
  EXPECT_EQ(r.gpu_family, "ada");
  EXPECT_EQ(r.load, LoadRegime::kModerate);
  EXPECT_EQ(RegimeOf(dep, s, 4).load, LoadRegime::kLight);  // four replicas: 48 of 256 slots
}

}  // namespace
}  // namespace kvsim
