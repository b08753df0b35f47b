// The step timer's options a replay derives from the deployment.
#include <gtest/gtest.h>

#include "kvcache/budget/deployment.h"
#include "kvcache/model/model_catalog.h"
#include "sim/run/replay_setup.h"

namespace kvsim {
namespace {

bool TimedAsEager(const DeploymentOptions& o) {
  return TimerOptions(ResolveDeployment(o, DataDirectory()), ReplayOptions()).enforce_eager;
}

// No graphs captured means every kernel is launched from the CPU: -O0 and cudagraph_mode NONE are
// timed as --enforce-eager is (vllm/config/vllm.py OPTIMIZATION_LEVEL_00 sets cudagraph_mode NONE).
TEST(TimerOptionsTest, NoGraphsAreTimedAsEager) {
  DeploymentOptions o;
  o.model = "meta-llama/Llama-3.1-8B-Instruct";
  o.gpu = "h100";
  EXPECT_FALSE(TimedAsEager(o));
  o.enforce_eager = true;
  EXPECT_TRUE(TimedAsEager(o));
  o.enforce_eager = false;
  o.optimization_level = "0";
  EXPECT_TRUE(TimedAsEager(o));
  o.optimization_level = "1";  // piecewise graphs
  EXPECT_FALSE(TimedAsEager(o));
  o.optimization_level.clear();
  o.compilation_config = R"({"cudagraph_mode": "NONE"})";
  EXPECT_TRUE(TimedAsEager(o));
}

}  // namespace
}  // namespace kvsim
