// The vLLM budget end to end, against the facts' worked numbers and real start-up logs.
#include <gtest/gtest.h>

#include "kvcache/budget/capacity_planner.h"
#include "kvcache/base/error.h"
#include "kvcache/base/units.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::SharedModel;

GpuSpec H100(double total_gib = 79.19) {
  GpuSpec g;
  g.id = "h100";
  g.name = "NVIDIA H100 80GB HBM3";
  g.cuda_total_gib = total_gib;
  g.interconnect = Interconnect::kNvls;
  return g;
}

// The settings of the llm-d planner's vLLM 0.19 sweep logs: util 0.95, 8192 / 1024 / 8192.
DeploymentConfig LlmdSweepSettings() {
  DeploymentConfig c;
  c.gpu_memory_utilization = 0.95;
  c.max_model_len = 8192;
  c.max_num_seqs = 1024;
  c.max_num_batched_tokens = 8192;
  return c;
}

// serving-memory-facts §1.9: 54 GiB of KV for Llama-3-8B -> 54·2^30 // 65,536 // 32 = 27,648
// blocks, 442,368 tokens, 54.0x at 8192 tokens.
TEST(CapacityPlannerTest, WorkedBlockArithmetic) {
  DeploymentConfig c;
  c.kv_cache_memory_bytes = 54.0 * kGiB;
  c.max_model_len = 8192;
  const CapacityResult r = PlanCapacity(SharedModel("meta-llama__Meta-Llama-3.1-8B.json"), H100(), c);
  EXPECT_EQ(r.num_gpu_blocks, 27648);
  EXPECT_EQ(r.gpu_kv_cache_tokens, 442368);
  EXPECT_DOUBLE_EQ(r.max_concurrency, 54.0);
}

// Real log (llm-d planner, vLLM 0.19, R066): H100 79.19 GiB, util 0.95, 8192/1024/8192 ->
// weights 14.99, KV 58.11 GiB, 29,751 blocks, 476,016 tokens, 58.11x.
TEST(CapacityPlannerTest, MatchesAVllm019StartupLog) {
  DeploymentConfig c = LlmdSweepSettings();
  c.vllm_version = "0.19";
  const CapacityResult r = PlanCapacity(SharedModel("meta-llama__Llama-3.1-8B-Instruct.json"), H100(), c);
  EXPECT_NEAR(BytesToGiB(r.weights_bytes), 14.99, 0.01);
  EXPECT_NEAR(BytesToGiB(r.kv_cache_bytes), 58.11, 0.58);
  EXPECT_NEAR(static_cast<double>(r.num_gpu_blocks), 29751, 298);
  EXPECT_EQ(r.gpu_kv_cache_tokens, r.num_gpu_blocks * 16);
  EXPECT_NEAR(r.max_concurrency, 58.11, 0.6);
}

// Real log (R073): Llama-4-Scout TP=4 is hybrid (4 groups), so vLLM 0.19 reports
// tokens = blocks // 4 × 16 = 365,968 for 91,495 blocks. From 0.20 the same line prints
// int(max_concurrency × max_model_len) (vllm/v1/core/kv_cache_utils.py).
TEST(CapacityPlannerTest, HybridModelReportsTokensPerGroup) {
  DeploymentConfig c;
  c.vllm_version = "0.19";
  c.tensor_parallel_size = 4;
  c.gpu_memory_utilization = 0.95;
  c.max_model_len = 8192;
  const ModelSpec scout = SharedModel("meta-llama__Llama-4-Scout-17B-16E-Instruct.json");
  const CapacityResult r = PlanCapacity(scout, H100(), c);
  EXPECT_EQ(r.gpu_kv_cache_tokens, r.num_gpu_blocks / 4 * 16);
  EXPECT_NEAR(static_cast<double>(r.num_gpu_blocks), 91495, 0.05 * 91495);
  c.vllm_version = "0.20";
  const CapacityResult v20 = PlanCapacity(scout, H100(), c);
  EXPECT_EQ(v20.gpu_kv_cache_tokens, static_cast<int64_t>(v20.max_concurrency * 8192));
}

// Models outside the presets, with hybrid sliding-window groups, against real vLLM 0.19 logs
// (llm-d planner sweep, H100 79.19 GiB, util 0.95, 8192 / 1024 / 8192): Gemma-3-4B logged weights
// 8.58 GiB, KV 62.51 GiB, 204,817 blocks, 468,144 tokens (7 groups), 57.05x; Gemma-2-2B logged
// 4.90 GiB, 66.47 GiB, 83,770 blocks, 670,160 tokens (2 groups), 81.73x.
TEST(CapacityPlannerTest, HybridGemmaModelsMatchVllmLogs) {
  DeploymentConfig c = LlmdSweepSettings();
  c.dtype = "bfloat16";
  struct Case { const char* file; double weights, kv, blocks, tokens, concurrency; };
  for (const Case& k : {Case{"gemma-3-4b-it.json", 8.58, 62.51, 204817, 468144, 57.05},
                        Case{"gemma-2-2b-it.json", 4.90, 66.47, 83770, 670160, 81.73}}) {
    const ModelSpec spec = LoadModelConfigFile(std::string(KVSIM_TEST_DATA_DIR) + "/models/" + k.file);
    const CapacityResult r = PlanCapacity(spec, H100(), c);
    EXPECT_NEAR(BytesToGiB(r.weights_bytes), k.weights, 0.02 * k.weights) << k.file;
    EXPECT_NEAR(BytesToGiB(r.kv_cache_bytes), k.kv, 0.02 * k.kv) << k.file;
    EXPECT_NEAR(static_cast<double>(r.num_gpu_blocks), k.blocks, 0.02 * k.blocks) << k.file;
    EXPECT_NEAR(static_cast<double>(r.gpu_kv_cache_tokens), k.tokens, 0.02 * k.tokens) << k.file;
    EXPECT_NEAR(r.max_concurrency, k.concurrency, 0.02 * k.concurrency) << k.file;
  }
}

// Granite 3.3 8B (R057, same sweep): logged weights 15.25 GiB, KV 58.66 GiB, 24,027 blocks.
TEST(CapacityPlannerTest, GraniteMatchesItsVllmLog) {
  const ModelSpec spec = LoadModelConfigFile(std::string(KVSIM_TEST_DATA_DIR) + "/models/granite-3.3-8b-instruct.json");
  const CapacityResult r = PlanCapacity(spec, H100(), LlmdSweepSettings());
  EXPECT_NEAR(BytesToGiB(r.weights_bytes), 15.25, 0.02 * 15.25);
  EXPECT_NEAR(BytesToGiB(r.kv_cache_bytes), 58.66, 0.02 * 58.66);
  EXPECT_NEAR(static_cast<double>(r.num_gpu_blocks), 24027, 0.02 * 24027);
}

// Tensor parallelism on PCIe-only GPUs adds no NVLS / custom all-reduce buffers. R020: 2 x RTX
// 4090 (23.64 GiB), V0 engine, util 0.98, max_model_len 131072: the log gives weights 13.95 GiB,
// non-torch 0.25 GiB, activation 0.19 GiB and KV 8.69 GiB for one worker, and the engine's KV
// capacity, 81,536 tokens (the minimum over the workers: 81,536 x 98,304 B = 7.46 GiB). V0 samples
// on the driver only (the worker's 0.19 GiB has no sampler in it), and the profile samples all 256
// dummy sequences with top-k/top-p: 256 x 152,064 logits x 32 B = 1.16 GiB on the driver, which
// is the worker kvsim plans, so its KV lies below the other worker's 8.69 GiB and near the
// engine's 81,536 tokens (+5.4%: 0.4 GiB of the driver's use is not explained). R130: Qwen3-32B on
// 2 x RTX PRO 6000 Blackwell (94.973 GiB), vLLM 0.28, util 0.92, 40960 / 128 / 2048: 462,144 tokens.
TEST(CapacityPlannerTest, PcieTensorParallelKeepsTheKvBudgetOfItsLogs) {
  GpuSpec rtx4090;
  rtx4090.name = "NVIDIA GeForce RTX 4090";
  rtx4090.cuda_total_gib = 23.64;
  rtx4090.interconnect = Interconnect::kPcie;
  DeploymentConfig c;
  c.tensor_parallel_size = 2;
  c.gpu_memory_utilization = 0.98;
  c.vllm_version = "v0";
  c.max_model_len = 32768;  // the log's 131072 does not fit; the budget does not depend on it here
  c.max_num_batched_tokens = 512;  // V0's chunked-prefill default at that length
  const ModelSpec qwen14 = LoadModelConfigFile(std::string(KVSIM_TEST_DATA_DIR) + "/models/DeepSeek-R1-Distill-Qwen-14B.json");
  const CapacityResult r020 = PlanCapacity(qwen14, rtx4090, c);
  EXPECT_NEAR(BytesToGiB(r020.stages.front().overhead.non_torch_bytes), 0.25, 0.15);
  EXPECT_LT(BytesToGiB(r020.kv_cache_bytes), 8.69);
  EXPECT_NEAR(static_cast<double>(r020.gpu_kv_cache_tokens), 81536, 0.06 * 81536);

  GpuSpec pro6000;
  pro6000.name = "NVIDIA RTX PRO 6000 Blackwell Server Edition";
  pro6000.cuda_total_gib = 94.973;
  pro6000.interconnect = GuessInterconnect(pro6000.name);
  EXPECT_EQ(pro6000.interconnect, Interconnect::kPcie);
  c = {};
  c.tensor_parallel_size = 2;
  c.gpu_memory_utilization = 0.92;
  c.max_model_len = 40960;
  c.max_num_seqs = 128;
  c.max_num_batched_tokens = 2048;
  c.vllm_version = "0.28";
  const CapacityResult r130 = PlanCapacity(SharedModel("Qwen__Qwen3-32B.json"), pro6000, c);
  EXPECT_NEAR(static_cast<double>(r130.gpu_kv_cache_tokens), 462144, 0.02 * 462144);
  // The same deployment on NVSwitch H100s pays NCCL's NVLS buffers: 1.85 GiB less KV per GPU.
  pro6000.interconnect = Interconnect::kNvls;
  const CapacityResult nvls = PlanCapacity(SharedModel("Qwen__Qwen3-32B.json"), pro6000, c);
  EXPECT_NEAR(BytesToGiB(r130.kv_cache_bytes - nvls.kv_cache_bytes), 1.85, 1e-9);
}

TEST(CapacityPlannerTest, InterconnectIsGuessedFromTheGpuName) {
  EXPECT_EQ(GuessInterconnect("NVIDIA H100 80GB HBM3"), Interconnect::kNvls);
  EXPECT_EQ(GuessInterconnect("NVIDIA H100 PCIe"), Interconnect::kPcie);
  EXPECT_EQ(GuessInterconnect("NVIDIA H100 NVL"), Interconnect::kNvlink);
  EXPECT_EQ(GuessInterconnect("NVIDIA A100-SXM4-80GB"), Interconnect::kNvlink);
  EXPECT_EQ(GuessInterconnect("NVIDIA GeForce RTX 3090"), Interconnect::kPcie);
  EXPECT_EQ(GuessInterconnect("NVIDIA L40S"), Interconnect::kPcie);
  EXPECT_EQ(GuessInterconnect("AMD Instinct MI300X"), Interconnect::kXgmi);
  EXPECT_THROW(ParseEnum<Interconnect>("infiniband", "--interconnect"), Error);
}

// Multimodal wrappers, int8 W8A8 and MLA with DeepSeek-style MoE under another model_type, same
// sweep (H100, util 0.95): Mistral-Small-3.1 W8A8 logged 24.07 / 48.73 GiB and 19,959 blocks at
// TP 1, 12.11 / 59.02 GiB and 48,349 blocks at TP 2 (R098/R099); Kimi-VL-A3B 15.53 / 54.78 GiB
// and 118,181 blocks at TP 2 (R081).
TEST(CapacityPlannerTest, WrappedModelsMatchTheirVllmLogs) {
  struct Case { const char* file; int tp; double weights, kv, blocks; };
  for (const Case& k : {Case{"Mistral-Small-3.1-24B-Instruct-2503-quantized.w8a8.json", 1, 24.07, 48.73, 19959},
                        Case{"Mistral-Small-3.1-24B-Instruct-2503-quantized.w8a8.json", 2, 12.11, 59.02, 48349},
                        Case{"Kimi-VL-A3B-Instruct.json", 2, 15.53, 54.78, 118181}}) {
    DeploymentConfig c = LlmdSweepSettings();
    c.tensor_parallel_size = k.tp;
    const ModelSpec spec = LoadModelConfigFile(std::string(KVSIM_TEST_DATA_DIR) + "/models/" + k.file);
    const CapacityResult r = PlanCapacity(spec, H100(), c);
    EXPECT_NEAR(BytesToGiB(r.stages.front().weights.total_bytes()), k.weights, 0.02 * k.weights) << k.file << " tp " << k.tp;
    EXPECT_NEAR(BytesToGiB(r.kv_cache_bytes), k.kv, 0.03 * k.kv) << k.file << " tp " << k.tp;
    EXPECT_NEAR(static_cast<double>(r.num_gpu_blocks), k.blocks, 0.03 * k.blocks) << k.file << " tp " << k.tp;
  }
}

TEST(CapacityPlannerTest, InvalidSettingsAreErrors) {
  const ModelSpec llama = SharedModel("meta-llama__Llama-3.1-8B-Instruct.json");
  DeploymentConfig c;
  c.tensor_parallel_size = 3;  // 32 heads
  EXPECT_THROW(PlanCapacity(llama, H100(), c), Error);
  c = {};
  c.max_model_len = 10000000;
  EXPECT_THROW(PlanCapacity(llama, H100(), c), Error);
  c = {};
  c.gpu_memory_utilization = 1.5;
  EXPECT_THROW(PlanCapacity(llama, H100(), c), Error);
}

TEST(CapacityPlannerTest, ModelThatDoesNotFitSaysByHowMuch) {
  DeploymentConfig c;
  const CapacityResult r = PlanCapacity(SharedModel("meta-llama__Llama-3.1-70B-Instruct.json"), H100(22.03), c);
  EXPECT_NE(r.does_not_fit.find("short by"), std::string::npos) << r.does_not_fit;
  EXPECT_EQ(r.num_gpu_blocks, 0);
}

// V0 reported blocks × block_size and concurrency blocks × B / max_model_len.
TEST(CapacityPlannerTest, V0EraReportsAllBlocks) {
  DeploymentConfig c;
  c.vllm_version = "0.6.4";
  c.max_model_len = 4096;
  const CapacityResult r = PlanCapacity(SharedModel("meta-llama__Llama-2-7b-hf.json"), H100(), c);
  EXPECT_EQ(r.gpu_kv_cache_tokens, r.num_gpu_blocks * 16);
  EXPECT_DOUBLE_EQ(r.max_concurrency, static_cast<double>(r.num_gpu_blocks) * 16 / 4096);
}

// The rule of thumb ignores the KV cache: for a long context it is far below the modelled need.
TEST(CapacityPlannerTest, BaselinesAreReported) {
  DeploymentConfig c;
  c.max_model_len = 131072;
  const CapacityResult r = PlanCapacity(SharedModel("meta-llama__Llama-3.1-8B-Instruct.json"), H100(), c);
  EXPECT_DOUBLE_EQ(r.baseline_1_2x_bytes, 1.2 * r.weights_bytes);
  // One 131,072-token request: 8,192 blocks of 16 tokens × 128 KiB per token = exactly 16 GiB of KV
  // on top of weights, activation, runtime and the CUDA graphs the profile charges (vLLM >= 0.21).
  EXPECT_DOUBLE_EQ(r.modelled_one_request_bytes - r.weights_bytes - r.activation_peak_bytes - r.non_torch_bytes -
                       r.cuda_graph_bytes,
                   16.0 * 1024 * 1024 * 1024);
  EXPECT_LT(r.baseline_1_2x_bytes, r.modelled_one_request_bytes);
}

// DeepSeek-V3.2's profile run reserves the sparse indexer's workspaces (vLLM sparse_attn_indexer.py
// dummy-run branch; indexer.py get_max_prefill_buffer_size; flashmla_sparse.py
// get_prefill_workspace_size; one shared workspace buffer, workspace.py). By hand at
// max_model_len 163,840: K-gather 40 x 163,840 x (128 + 4) B + 1 MiB = 866,123,776 B, sparse-MLA
// prefill 5 x 163,840 x (512 + 64) x 2 B = 943,718,400 B (900 MiB, the larger, so the buffer), plus
// the 512 MiB logits placeholder inside the forward. At 2,048 batched tokens the forward plus the
// placeholder outweighs the sampler, so the peak grows by 900 + 512 MiB; a model without an
// indexer reserves nothing, and the budget shrinks by exactly the reservation.
TEST(CapacityPlannerTest, SparseIndexerWorkspacesComeOutOfTheKvBudget) {
  DeploymentConfig c;
  c.gpu_memory_utilization = 0.92;
  c.max_num_seqs = 128;
  c.max_num_batched_tokens = 2048;
  const ModelSpec v32 = SharedModel("deepseek-ai__DeepSeek-V3.2-Exp-16L64E.json");
  const CapacityResult r = PlanCapacity(v32, H100(94.973), c);
  EXPECT_EQ(r.settings.max_model_len, 163840);
  // The LLMServingSim record (row X003): block_size 64 with user_specified_block_size false.
  EXPECT_EQ(r.settings.block_size, 64);
  EXPECT_DOUBLE_EQ(r.sparse_indexer_bytes, 943718400.0 + 536870912.0);
  const double reserved = 0.92 * 94.973 * kGiB;
  EXPECT_NEAR(r.kv_cache_bytes,
              reserved - r.weights_bytes - r.activation_peak_bytes - r.non_torch_bytes - r.sparse_indexer_bytes -
                  r.cuda_graph_bytes,
              1.0);
  // Shorter contexts shrink the buffer: at 4,096 tokens the sparse-MLA workspace (23,592,960 B) is
  // still the larger of the two (the gather: 40 x 4,096 x 132 + 1 MiB = 22,675,456 B).
  c.max_model_len = 4096;
  EXPECT_DOUBLE_EQ(PlanCapacity(v32, H100(94.973), c).sparse_indexer_bytes, 23592960.0 + 536870912.0);
  EXPECT_EQ(PlanCapacity(SharedModel("meta-llama__Meta-Llama-3.1-8B.json"), H100(), c).sparse_indexer_bytes, 0.0);
}

}  // namespace
}  // namespace kvsim
