// The sweep tests' small case: synthetic requests on an L4 (the default model, max-model-len
// 4096), small enough to replay in milliseconds, whose TPOT grows with the batch cap.
#ifndef KVSIM_TESTS_SIM_SMALL_L4_CASE_H_
#define KVSIM_TESTS_SIM_SMALL_L4_CASE_H_

#include <cstdint>
#include <string>

#include "kvcache/budget/deployment.h"
#include "kvcache/model/model_catalog.h"
#include "sim/run/replay_options.h"
#include "sim/sweep/variant.h"

namespace kvsim::testing {

struct SmallL4Case {
  std::string label;
  int64_t max_num_seqs = 1;
  int64_t requests = 400;
  double rate = 8;        // requests per second
  double rate_scale = 1;  // --rate-scale
  std::string prompt_len = "uniform:200:800";   // empty: the replay default
  std::string output_len = "uniform:50:200";    // empty: the replay default
  int64_t replicas = 1;
};

inline Variant MakeSmallL4Variant(const SmallL4Case& c) {
  Variant v;
  v.label = c.label;
  DeploymentOptions d;
  d.gpu = "l4";
  d.max_model_len = "4096";
  d.max_num_seqs = std::to_string(c.max_num_seqs);
  v.deployment = ResolveDeployment(d, DataDirectory());
  v.replay.synthetic = c.requests;
  v.replay.rate = c.rate;
  v.replay.window.rate_scale = c.rate_scale;
  if (!c.prompt_len.empty()) v.replay.prompt_len = c.prompt_len;
  if (!c.output_len.empty()) v.replay.output_len = c.output_len;
  v.replay.replicas = c.replicas;
  ValidateReplayOptions(v.replay, DataDirectory());
  return v;
}

}  // namespace kvsim::testing

#endif  // KVSIM_TESTS_SIM_SMALL_L4_CASE_H_
