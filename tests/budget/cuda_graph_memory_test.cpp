// CUDA-graph memory and the releases that charge it to the KV budget (kvcache/budget/
// cuda_graph_memory.h), with graph counts derived by hand from vLLM's capture-size rule
// (vllm/config/compilation.py: [1, 2, 4] + range(8, 256, 8) + range(256, max + 1, 16),
// max_cudagraph_capture_size = min(2 x max_num_seqs, 512)).
#include <gtest/gtest.h>

#include "kvcache/base/error.h"
#include "kvcache/base/units.h"
#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/cuda_graph_memory.h"
#include "kvcache/budget/deployment.h"
#include "kvcache/model/model_catalog.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

CapacityResult Plan(DeploymentOptions o) {
  const Deployment d = ResolveDeployment(o, DataDirectory());
  return PlanCapacity(d.model, d.gpu, d.config);
}

// Llama-3.1-8B on an H100 (vLLM's batch defaults there: max_num_seqs 1024, 8,192 tokens).
DeploymentOptions Llama8bH100(const char* version) {
  DeploymentOptions o;
  o.model = "meta-llama/Llama-3.1-8B-Instruct";
  o.gpu = "h100";
  o.max_model_len = "8192";
  o.vllm_version = version;
  return o;
}

// max_num_seqs 256: sizes 1, 2, 4 (3), 8..248 (31), 256..512 (17) = 51 piecewise graphs; the FULL
// decode graphs stop at 256 sequences: 3 + 31 + 1 = 35. vLLM's own start-up logs with all defaults
// capture exactly 51 PIECEWISE and 35 FULL graphs.
TEST(CudaGraphMemoryTest, DefaultSizesGiveVllmsGraphCounts) {
  CudaGraphShape shape;
  shape.max_num_seqs = 256;
  shape.max_num_batched_tokens = 8192;
  shape.layers_on_gpu = 32;
  const CudaGraphMemory m = EstimateCudaGraphMemory({}, shape, ParseVllmVersion("0.21"));
  EXPECT_EQ(m.mode, CudaGraphMode::kFullAndPiecewise);
  EXPECT_EQ(m.piecewise_graphs, 51);
  EXPECT_EQ(m.full_graphs, 35);
  EXPECT_TRUE(m.charged_to_kv);
  EXPECT_DOUBLE_EQ(m.bytes, 86.0 * 32 * 270 * 1024);
  // The token budget caps the sizes: 64 tokens keep 1, 2, 4, 8..64 = 11 sizes, all decode-sized.
  shape.max_num_batched_tokens = 64;
  const CudaGraphMemory small = EstimateCudaGraphMemory({}, shape, ParseVllmVersion("0.21"));
  EXPECT_EQ(small.piecewise_graphs, 11);
  EXPECT_EQ(small.full_graphs, 11);
}

TEST(CudaGraphMemoryTest, ModesSizesAndSwitches) {
  CudaGraphShape shape;
  shape.max_num_seqs = 256;
  shape.layers_on_gpu = 10;
  const VllmVersion v21 = ParseVllmVersion("0.21");
  CudaGraphSettings s;
  s.mode = CudaGraphMode::kPiecewise;
  EXPECT_EQ(EstimateCudaGraphMemory(s, shape, v21).full_graphs, 0);
  s.mode = CudaGraphMode::kFullDecodeOnly;
  EXPECT_EQ(EstimateCudaGraphMemory(s, shape, v21).piecewise_graphs, 0);
  EXPECT_EQ(EstimateCudaGraphMemory(s, shape, v21).full_graphs, 35);
  s = {};
  s.capture_sizes = {8, 4, 2, 1, 4};  // vLLM sorts and de-duplicates
  EXPECT_EQ(CudaGraphCaptureSizes(s, shape), (std::vector<int64_t>{1, 2, 4, 8}));
  EXPECT_EQ(EstimateCudaGraphMemory(s, shape, v21).piecewise_graphs + EstimateCudaGraphMemory(s, shape, v21).full_graphs, 8);
  // Speculative decoding: a decode batch of 256 requests x (1 + 3) tokens reaches every size up to 512.
  shape.speculative_tokens = 3;
  EXPECT_EQ(EstimateCudaGraphMemory({}, shape, v21).full_graphs, 51);
  shape.speculative_tokens = 0;
  shape.enforce_eager = true;
  const CudaGraphMemory eager = EstimateCudaGraphMemory({}, shape, v21);
  EXPECT_EQ(eager.piecewise_graphs + eager.full_graphs, 0);
  EXPECT_FALSE(eager.charged_to_kv);
  shape.enforce_eager = false;
  // Before 0.21 the estimate is opt-in (0.18-0.20) or absent (earlier); a given total replaces kvsim's.
  EXPECT_FALSE(EstimateCudaGraphMemory({}, shape, ParseVllmVersion("0.19")).charged_to_kv);
  s = {};
  s.estimate_in_budget = true;
  EXPECT_TRUE(EstimateCudaGraphMemory(s, shape, ParseVllmVersion("0.19")).charged_to_kv);
  EXPECT_FALSE(EstimateCudaGraphMemory(s, shape, ParseVllmVersion("0.15")).charged_to_kv);
  s.estimate_in_budget = false;
  EXPECT_FALSE(EstimateCudaGraphMemory(s, shape, v21).charged_to_kv);
  s = {};
  s.total_bytes = GiBToBytes(1.0);
  EXPECT_DOUBLE_EQ(EstimateCudaGraphMemory(s, shape, v21).bytes, GiBToBytes(1.0));
}

// Llama-3.1-8B on an H100, vLLM 0.21: 1,024 sequences give 51 piecewise + 51 FULL graphs over 32
// layers, 102 x 32 x 270 KiB = 902,430,720 B, taken out of the KV cache; at the same utilization the
// KV cache is that much smaller than with the estimate off.
TEST(CudaGraphMemoryTest, Vllm021ChargesTheEstimateToTheKvBudget) {
  DeploymentOptions o = Llama8bH100("0.21");
  o.gpu_memory_utilization = "0.9";
  const CapacityResult on = Plan(o);
  o.cuda_graph_estimate = "off";
  const CapacityResult off = Plan(o);
  EXPECT_EQ(on.cuda_graphs_captured, 102);
  EXPECT_DOUBLE_EQ(on.cuda_graph_bytes, 902430720.0);
  EXPECT_NEAR(off.kv_cache_bytes - on.kv_cache_bytes, 902430720.0, 1.0);
  EXPECT_DOUBLE_EQ(off.cuda_graph_bytes, 0.0);
  // --enforce-eager captures nothing.
  o.cuda_graph_estimate = "auto";
  o.enforce_eager = true;
  EXPECT_DOUBLE_EQ(Plan(o).cuda_graph_bytes, 0.0);
}

// 0.21 also raised the default utilization from 0.90 to 0.92 (vllm/config/cache.py).
TEST(CudaGraphMemoryTest, DefaultUtilizationByRelease) {
  EXPECT_DOUBLE_EQ(Plan(Llama8bH100("0.19")).settings.gpu_memory_utilization, 0.9);
  EXPECT_DOUBLE_EQ(Plan(Llama8bH100("0.21")).settings.gpu_memory_utilization, 0.92);
  EXPECT_DOUBLE_EQ(Plan(Llama8bH100("0.28")).settings.gpu_memory_utilization, 0.92);
}

// --compilation-config as vLLM takes it, pasted or given to kvsim.
TEST(CudaGraphMemoryTest, CompilationConfigChangesTheGraphs) {
  DeploymentOptions o = Llama8bH100("0.21");
  o.compilation_config = R"({"cudagraph_mode": "piecewise", "max_cudagraph_capture_size": 64})";
  EXPECT_EQ(Plan(o).cuda_graphs_captured, 11);  // 1, 2, 4, 8..64
  o.compilation_config = "0";                   // -O0: no compilation, no graphs
  EXPECT_EQ(Plan(o).cuda_graphs_captured, 0);
  o.compilation_config = R"({"cudagraph_mode": "SOMETIMES"})";
  EXPECT_THROW(Plan(o), Error);
  o.compilation_config = R"({"cudagraph_capture_sizes": [1, "two"]})";
  EXPECT_THROW(Plan(o), Error);
}

// The pasted line: the environment variable and the compilation flags reach the plan.
TEST(CudaGraphMemoryTest, PastedLineCarriesTheEstimateSwitch) {
  const auto on = testing::RunCli({"capacity", "--vllm-version", "0.21", "--gpu", "h100", "--json", "-", "--", "vllm", "serve",
                                   "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192"});
  ASSERT_EQ(on.exit_code, 0) << on.err;
  EXPECT_EQ(nlohmann::json::parse(on.out).value("cuda_graphs_captured", 0), 102);
  const auto off = testing::RunCli({"capacity", "--vllm-version", "0.21", "--gpu", "h100", "--json", "-", "--",
                                    "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0", "vllm", "serve",
                                    "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192"});
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_FALSE(nlohmann::json::parse(off.out).contains("cuda_graph_gib"));
  const auto sizes = testing::RunCli({"capacity", "--vllm-version", "0.21", "--gpu", "h100", "--json", "-", "--", "vllm", "serve",
                                      "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192",
                                      "--cudagraph-capture-sizes", "1", "2", "4", "8", "-cc.cudagraph_mode=FULL_DECODE_ONLY"});
  ASSERT_EQ(sizes.exit_code, 0) << sizes.err;
  EXPECT_EQ(nlohmann::json::parse(sizes.out).value("cuda_graphs_captured", 0), 4);
}

// From vLLM 0.12 -O sets the optimization level (vllm/config/vllm.py OPTIMIZATION_LEVEL_00..03,
// docs.vllm.ai/en/v0.12.0/design/optimization_levels): -O0 captures no graphs, -O1 the piecewise
// ones only (one per capture size: 51 of FULL_AND_PIECEWISE's 102 here), -O2/-O3 the default. A
// cudagraph_mode the user gives wins over the level's default.
TEST(CudaGraphMemoryTest, OptimizationLevelsFromVllm012) {
  auto captured = [](std::vector<std::string> flags) {
    std::vector<std::string> args = {"capacity", "--vllm-version", "0.21", "--gpu", "h100", "--json", "-", "--", "vllm",
                                     "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192"};
    args.insert(args.end(), flags.begin(), flags.end());
    const auto run = testing::RunCli(args);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return run.exit_code == 0 ? nlohmann::json::parse(run.out).value("cuda_graphs_captured", 0) : -1;
  };
  EXPECT_EQ(captured({"-O0"}), 0);
  EXPECT_EQ(captured({"-O1"}), 51);
  EXPECT_EQ(captured({"-O", "1"}), 51);
  EXPECT_EQ(captured({"--optimization-level", "1"}), 51);
  EXPECT_EQ(captured({"-O3"}), 102);
  EXPECT_EQ(captured({"-O1", "-cc.cudagraph_mode=FULL_AND_PIECEWISE"}), 102);
  const auto bad = testing::RunCli({"capacity", "--gpu", "h100", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "-O7"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--optimization-level"), std::string::npos) << bad.err;
}

// The graph settings are vLLM's: another engine's budget says it does not use them.
TEST(CudaGraphMemoryTest, OtherEnginesSayTheSettingsAreNotModelled) {
  DeploymentOptions o = Llama8bH100("0.21");
  o.engine = "sglang";
  o.cuda_graph_estimate = "on";
  const CapacityResult r = Plan(o);
  EXPECT_DOUBLE_EQ(r.cuda_graph_bytes, 0.0);
  bool noted = false;
  for (const std::string& n : r.notes) noted = noted || n.find("not modelled") != std::string::npos;
  EXPECT_TRUE(noted);
}

}  // namespace
}  // namespace kvsim
