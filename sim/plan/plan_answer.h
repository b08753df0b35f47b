// What `kvsim plan` answers, typed, for the reports (reports/plan_report.h) and the Python module:
// the space, every configuration's fewest replicas, the winner, the Pareto front, the error bars
// and the `vllm serve` line of each configuration.
#ifndef KVSIM_SIM_PLAN_PLAN_ANSWER_H_
#define KVSIM_SIM_PLAN_PLAN_ANSWER_H_

#include <string>
#include <vector>

#include "sim/plan/pareto.h"
#include "sim/plan/plan_bands.h"
#include "sim/plan/plan_search.h"
#include "sim/plan/plan_space.h"

namespace kvsim {

struct PlanAnswer {
  std::string model;
  std::string slo_text;
  SweepCriteria criteria;
  PlanObjective objective = PlanObjective::kCost;
  bool robust = false;
  bool exhaustive = false;
  int64_t max_replicas = 0;
  int64_t max_gpus = 0;
  PlanAxes axes;
  PlanSpace space;
  PlanResult result;
  FrontQuantiles quantiles;
  std::vector<size_t> front;                     // into result.plans
  std::vector<std::string> serve_lines;          // per configuration (a P/D one: its prefill instances')
  std::vector<std::string> decode_serve_lines;   // per configuration: a P/D one's decode instances' (else empty)
  std::vector<std::vector<LatencyBand>> bands;   // per configuration: its found plan's bands (else empty)
  std::string bands_source;                      // the error-band table read, or why none was
};

// The rejected families: configurations that start but met the SLOs at no replica count searched,
// grouped by format and GPU (a family none of whose configurations met them), each with the nearest miss ("awq on l40s: tpot-p99 0.21 s > 0.1 s ...").
struct RejectedFamily {
  std::string family;
  int64_t configurations = 0;
  size_t nearest = 0;  // the plan nearest to meeting the SLOs (smallest largest violated ratio)
};
std::vector<RejectedFamily> RejectedFamilies(const PlanAnswer& answer);

}  // namespace kvsim

#endif  // KVSIM_SIM_PLAN_PLAN_ANSWER_H_
