// MoE routing, expert-parallel all-to-all and low-bit GEMMs, against figures derived by hand: the
// multinomial's exact expectation, normal order statistics from tables, link rates from datasheets
// and DeepEP's README, tile and wave counts worked out below.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/deployment.h"
#include "kvcache/budget/serving_engine.h"
#include "kvcache/model/gpu_catalog.h"
#include "kvcache/model/model_catalog.h"
#include "sim/timing/expert_parallel.h"
#include "sim/timing/gemm_time.h"
#include "sim/timing/link_rates.h"
#include "sim/timing/lowbit_gemm.h"
#include "sim/timing/moe_layer.h"
#include "sim/timing/moe_routing.h"
#include "sim/timing/step_model.h"
#include "tests/sim/timing/operator_costs.h"

namespace kvsim {
namespace {

const GpuCatalog& Gpus() {
  static const GpuCatalog catalog = GpuCatalog::Load(DataDirectory() + "/gpus.csv");
  return catalog;
}

using testing::ByName;

struct Timed {
  Deployment d;
  CapacityResult cap;
};

Timed OnEp(const std::string& model, const std::string& gpu, int dp, const std::string& all2all = "", bool ep = true,
           int tp = 1, const std::string& vllm_version = kDefaultVllmVersion) {
  DeploymentOptions o;
  o.model = model;
  o.gpu = gpu;
  o.data_parallel_size = dp;
  o.tensor_parallel_size = tp;
  o.enable_expert_parallel = ep;
  o.all2all_backend = all2all;
  o.vllm_version = vllm_version;
  o.max_model_len = "4096";
  Timed t{ResolveDeployment(o, DataDirectory()), {}};
  t.cap = PlanCapacity(t.d.model, t.d.gpu, t.d.config);
  return t;
}

StepWork Decode(int64_t seqs, int64_t context) { return {seqs, seqs * context, seqs * (context + 1), seqs}; }

// Two ranks sharing 16 assignments: the busier holds max(X, 16 − X), X ~ Binomial(16, 1/2), whose
// mean is 8 + E|X − 8| = 8 + 8·C(16, 8)/2^16 = 9.5710. Thirty-two ranks sharing 4096 tokens × 8:
// loads of mean 1024 and standard deviation 32, the largest of 32 normals 2.0697 deviations above
// the mean (expected order statistics tables): 1090.2.
TEST(MoeRoutingTest, ExpectedMaxLoadOfTheBusiestRank) {
  EXPECT_NEAR(ExpectedMaxLoad(16, 2), 8 + 8 * 12870.0 / 65536, 0.01 * 9.571);
  EXPECT_NEAR(ExpectedMaxLoad(4096.0 * 8, 32), 1024 + 2.0697 * 32, 0.005 * 1090.2);
  EXPECT_DOUBLE_EQ(ExpectedMaxLoad(100, 1), 100);
}

// One token routed to 2 of 8 experts: each expert holds it with probability 1/4 and then fills one
// 16-row block: 4 padded rows expected. 64 tokens at 1/4 never exceed one 64-row block: 64 rows
// unless the expert gets none, (3/4)^64.
TEST(MoeRoutingTest, ExpectedPaddedRowsFillWholeBlocks) {
  EXPECT_NEAR(ExpectedPaddedRows(1, 0.25, 16), 4.0, 1e-12);
  EXPECT_NEAR(ExpectedPaddedRows(64, 0.25, 64), 64 * (1 - std::pow(0.75, 64)), 1e-9);
  EXPECT_NEAR(ExpectedTouchedExperts(8, 2, 4), 8 * (1 - std::pow(0.75, 4)), 1e-12);
}

// The kernels' M blocks: Marlin MoE takes the first block the mean rows fill below 90% (10 rows:
// 10/8 ≥ 0.9, 10/16 < 0.9 → 16); FlashInfer rounds the mean up to a power of two within 8..64;
// Triton fused_moe 16 while tokens <= experts, else 64.
TEST(MoeRoutingTest, KernelBlockRows) {
  EXPECT_EQ(MoeBlockRows(MoeKernel::kMarlinMoe, 40, 8, 10), 16);
  EXPECT_EQ(MoeBlockRows(MoeKernel::kMarlinMoe, 4000, 8, 1000), 64);
  EXPECT_EQ(MoeBlockRows(MoeKernel::kFlashInferMoe, 640, 256, 20), 32);
  EXPECT_EQ(MoeBlockRows(MoeKernel::kFlashInferMoe, 8, 256, 0.25), 8);
  EXPECT_EQ(MoeBlockRows(MoeKernel::kTritonFusedMoe, 8, 8, 2), 16);
  EXPECT_EQ(MoeBlockRows(MoeKernel::kTritonFusedMoe, 9, 8, 2.25), 64);
}

// DeepSeek-R1 (256 experts, top 8, 58 MoE layers, FP8) decoding 8 sequences on each of 8 H200s with
// DP 8 and expert parallelism: 64 tokens meet in each MoE layer, 512 assignments over 8 ranks of 32
// experts. The mean rank touches 256·(1 − (31/32)^64) / 8 = 27.81 of its experts; the busiest rank
// holds 64 + 1.4236·8 = 75.4 tokens' worth (the largest of 8 normals, 1.4236 deviations) and touches
// 256·(1 − (31/32)^75.4) / 8 = 29.08. Decode is weight-streaming bound, so the imbalance adds the
// extra experts' weights, 29.08 / 27.81 − 1 = 4.6%, less the share of the kernel floors (5 µs of
// ~220 µs per layer).
TEST(MoeLayerTest, ImbalanceOfTheBusiestRankAtSmallBatch) {
  const Timed t = OnEp("deepseek-ai/DeepSeek-R1", "h200", 8);
  const StepModel model(t.d.model, t.cap, t.d.gpu, StepModelOptions{});
  const auto ops = ByName(model.Operators(Decode(8, 1000)));
  const double even = ops.at("experts_up").seconds + ops.at("experts_down").seconds;
  const double ratio = ops.at("experts_imbalance").seconds / even;
  EXPECT_GT(ratio, 0.040);
  EXPECT_LT(ratio, 0.050);
  // One rank streams its 27.81 touched experts' FP8 weights (3 × 2048 × 7168 bytes each, plus block
  // scales) per layer: at 80% of 4.8 TB/s, about 200 µs per layer before the floors.
  const double per_layer = even / 58;
  EXPECT_NEAR(per_layer, 27.81 * 3 * 2048 * 7168 * (1 + 4.0 / (128 * 128)) / (4.8e12 * 0.8) + 2 * 5e-6, 0.03 * per_layer);
}

// gpt-oss-120b (MXFP4 experts: 128, top 4, hidden 2880, width 2880; 36 layers) at TP 8 on H100 runs its
// experts on Marlin, which vLLM feeds padded shapes (mxfp4.py, Mxfp4MoEMethod.create_weights: hidden up
// to a multiple of 256, each rank's width up to 128): 3072 and 384 instead of 2880 and 360. One decoding
// sequence touches its 4 experts with one row each, so the up projection does 2 · 1 · (2 · 384) · 3072
// FLOPs per expert and the down projection 2 · 1 · 3072 · 384, over 4 experts and 36 layers.
TEST(MoeLayerTest, MarlinRunsMxfp4ExpertsOnPaddedShapes) {
  DeploymentOptions o;
  o.model = "openai/gpt-oss-120b";
  o.gpu = "h100";
  o.tensor_parallel_size = 8;
  o.max_model_len = "4096";
  const Deployment d = ResolveDeployment(o, DataDirectory());
  const CapacityResult cap = PlanCapacity(d.model, d.gpu, d.config);
  const StepModel model(d.model, cap, d.gpu, StepModelOptions{});
  ASSERT_TRUE(model.Moe().has_value());
  EXPECT_STREQ(model.Moe()->kernel, "marlin moe");
  const auto ops = ByName(model.Operators(Decode(1, 1000)));
  EXPECT_NEAR(ops.at("experts_up").flops, 2.0 * 768 * 3072 * 4 * 36, 1.0);
  EXPECT_NEAR(ops.at("experts_down").flops, 2.0 * 3072 * 384 * 4 * 36, 1.0);
}

// A compute-bound prefill through 8 experts, top 2: 4,096 tokens touch all 8 (1 − (3/4)^4096 is 1 to
// double precision) with 8,192 / 8 = 1,024 rows each. The up projection (gate and up, 1,024 outputs
// over hidden 1,024) is 2 · 1,024 · 1,024 · 1,024 · 8 = 2^34 FLOPs; on a device of 1 PFLOP/s with no
// wave quantization and bandwidth to spare (50 MB at 8 TB/s: 6.3 µs), Triton's fused MoE sustains
// half the peak (its gathered and scattered rows; Liger-Kernel PR #1294, vLLM's benchmark_moe
// tables): 2^34 / 0.5e15 = 34.36 µs plus the 5 µs kernel floor. FlashInfer's grouped GEMM keeps the
// dense 75%: 2^34 / 0.75e15 = 22.91 µs plus the floor.
TEST(MoeLayerTest, TritonFusedMoeRunsAtHalfThePeakWhenComputeBound) {
  MoeLayerShape shape;
  shape.layers = 1;
  shape.num_experts = 8;
  shape.top_k = 2;
  shape.hidden = 1024;
  shape.up_n = 1024;
  shape.down_k = 512;
  shape.up_weight_bytes = 1024.0 * 1024 * 2;
  shape.down_weight_bytes = 1024.0 * 512 * 2;
  const GemmDevice device{1e15, 1e13, 0, 0.75, 0.80, 5e-6};
  const ExpertParallelLinks links;
  auto up_seconds = [&](MoeKernel kernel) {
    const MoeLayerTimer timer(shape, LowBitGemm{}, device, kernel, links);
    std::vector<OperatorCost> ops;
    double seconds = 0;
    timer.AddExperts(4096, &ops, &seconds);
    return ByName(ops).at("experts_up").seconds;
  };
  EXPECT_NEAR(up_seconds(MoeKernel::kTritonFusedMoe), 34.3597e-6 + 5e-6, 1e-9);
  EXPECT_NEAR(up_seconds(MoeKernel::kFlashInferMoe), 22.9065e-6 + 5e-6, 1e-9);
}

// 128 tokens per rank, hidden 7168, top 8 (DeepEP's low-latency setting) on H800s: 1,024 copies of
// 7,168 FP8 bytes + 56 fp32 scales = 7,392 B to dispatch (7,569,408 B), 14,336 B each to combine
// (14,680,064 B). The H800's NVLink runs 200 GB/s per direction and its NIC 400 Gb/s; 80% of each is
// achievable (160 and 40 GB/s); the NVSwitch small-message latency is 8 µs.
//   EP 8, one node: 7/8 of the bytes over NVLink: dispatch 6,623,232 / 160e9 + 8 µs = 49.40 µs,
//   combine 12,845,056 / 160e9 + 8 µs = 88.28 µs.
//   EP 16, two nodes: half the bytes over RDMA, the slower link: dispatch 3,784,704 / 40e9 + 8 µs =
//   102.62 µs, combine 7,340,032 / 40e9 + 8 µs = 191.50 µs.
TEST(ExpertParallelTest, DispatchAndCombineOverNvlinkAndRdma) {
  const GpuSpec& h800 = Gpus().Find("h800");
  const ExpertParallelLinks links = LinksOf(h800, 0);
  const double dispatch = DispatchBytesPerToken(7168, true, 2), combine = DispatchBytesPerToken(7168, false, 2);
  EXPECT_DOUBLE_EQ(dispatch, 7392);
  EXPECT_NEAR(AllToAllSeconds(SplitAllToAll(1024, dispatch, 8, links), links), 49.3952e-6, 1e-10);
  EXPECT_NEAR(AllToAllSeconds(SplitAllToAll(1024, combine, 8, links), links), 88.2816e-6, 1e-10);
  EXPECT_NEAR(AllToAllSeconds(SplitAllToAll(1024, dispatch, 16, links), links), 102.6176e-6, 1e-10);
  EXPECT_NEAR(AllToAllSeconds(SplitAllToAll(1024, combine, 16, links), links), 191.5008e-6, 1e-10);

  // The same in a step: DeepSeek-R1 with DP 16 and expert parallelism over DeepEP's low-latency
  // kernels (one copy per expert), 128 decoding sequences per rank: one dispatch and one combine in
  // each of its 58 MoE layers.
  const Timed t = OnEp("deepseek-ai/DeepSeek-R1", "h800", 16, "deepep_low_latency");
  const StepModel model(t.d.model, t.cap, t.d.gpu, StepModelOptions{});
  const auto ops = ByName(model.Operators(Decode(128, 1000)));
  EXPECT_NEAR(ops.at("moe_dispatch").seconds, 58 * 102.6176e-6, 1e-9);
  EXPECT_NEAR(ops.at("moe_combine").seconds, 58 * 191.5008e-6, 1e-9);
}

// DeepEP's normal kernels send a token once to each rank holding one of its experts. Four experts
// over two ranks, top 2: of the C(4, 2) = 6 expert pairs, 2 sit on one rank and 4 span both, so a
// token goes to (2·1 + 4·2) / 6 = 10/6 ranks on average. Qwen3-30B-A3B's 128 experts over 4 ranks,
// top 8: a rank misses all 8 with probability C(96, 8) / C(128, 8) = 0.0927473, so 4 × 0.9072527 =
// 3.6290109 ranks.
TEST(ExpertParallelTest, DestinationRanksOfATokensExperts) {
  EXPECT_NEAR(ExpectedDestinationRanks(4, 2, 2), 10.0 / 6.0, 1e-12);
  EXPECT_NEAR(ExpectedDestinationRanks(128, 8, 4), 3.6290109, 1e-7);
  EXPECT_NEAR(ExpectedDestinationRanks(128, 8, 1), 1.0, 1e-12);
}

// One all-gather dispatch of Qwen3-30B-A3B (hidden 2048, 128 experts, top 8, bf16; 48 MoE layers)
// on H100s (NVLink 450 GB/s per direction, 80% achievable = 360 GB/s, 8 µs per call; 8 GPUs a
// domain), 64 decoding sequences on each of 4 DP ranks (TP 1) with expert parallelism:
//   allgather_reducescatter: each rank receives the other three ranks' 64 tokens, 192 copies of the
//     hidden state and the router logits, (2048 + 128) × 2 = 4,352 B: 835,584 B over NVLink,
//     8 µs + 835,584 / 360e9 = 10.3211 µs; the reduce-scatter sends back 192 × 4,096 B = 786,432 B,
//     10.1845 µs.
//   naive (vLLM 0.10): the same gather, and an all-reduce of the gathered buffer, twice the bytes:
//     1,572,864 B, 12.3691 µs.
//   deepep_low_latency: 64 × 8 copies of 4,096 B (bf16 experts: no FP8 dispatch), 3/4 of them to the
//     other ranks: 1,572,864 B, 12.3691 µs each way.
//   deepep_high_throughput: 64 × 3.6290109 destinations, 3/4 elsewhere: 174.1925 copies of 4,096 B =
//     713,492.6 B, 9.9819 µs each way.
// Without expert parallelism at TP 2 × DP 2, a rank gathers over its DP group (2 ranks, TP apart):
// the other DP rank's 64 tokens, 64 × 4,352 = 278,528 B, 8.7737 µs.
TEST(ExpertParallelTest, AllGatherDispatchOfQwen3MoeOnH100) {
  auto step = [](const Timed& t) { return ByName(StepModel(t.d.model, t.cap, t.d.gpu, StepModelOptions{}).Operators(Decode(64, 1000))); };
  const auto ag = step(OnEp("Qwen/Qwen3-30B-A3B", "h100", 4, "allgather_reducescatter"));
  EXPECT_NEAR(ag.at("moe_dispatch").seconds, 48 * 10.3211e-6, 48 * 1e-10);
  EXPECT_NEAR(ag.at("moe_combine").seconds, 48 * 10.184533e-6, 48 * 1e-10);
  EXPECT_NEAR(ag.at("moe_dispatch").bytes, 48 * 835584.0, 1e-3);
  // The default of the newest release is the all-gather.
  EXPECT_NEAR(step(OnEp("Qwen/Qwen3-30B-A3B", "h100", 4)).at("moe_dispatch").seconds, ag.at("moe_dispatch").seconds, 1e-15);
  const auto naive = step(OnEp("Qwen/Qwen3-30B-A3B", "h100", 4, "", true, 1, "0.10"));  // 0.10's default
  EXPECT_NEAR(naive.at("moe_dispatch").seconds, ag.at("moe_dispatch").seconds, 1e-15);
  EXPECT_NEAR(naive.at("moe_combine").seconds, 48 * 12.369067e-6, 48 * 1e-10);
  const auto ll = step(OnEp("Qwen/Qwen3-30B-A3B", "h100", 4, "deepep_low_latency"));
  EXPECT_NEAR(ll.at("moe_dispatch").seconds, 48 * 12.369067e-6, 48 * 1e-10);
  const auto ht = step(OnEp("Qwen/Qwen3-30B-A3B", "h100", 4, "deepep_high_throughput"));
  EXPECT_NEAR(ht.at("moe_dispatch").seconds, 48 * 9.981924e-6, 48 * 1e-10);
  EXPECT_NEAR(ht.at("moe_combine").seconds, 48 * 9.981924e-6, 48 * 1e-10);
  const auto no_ep = step(OnEp("Qwen/Qwen3-30B-A3B", "h100", 2, "", false, 2));
  EXPECT_NEAR(no_ep.at("moe_dispatch").seconds, 48 * 8.773689e-6, 48 * 1e-10);
}

// A W4A16 GEMM (int4, group 128, scales only) of an 8192 × 8192 weight on an A100 80GB (312 TFLOPS,
// 2,039 GB/s, 108 SMs), run by Marlin:
//   weights 8192² / 2 = 33,554,432 B packed + 64 groups × 8192 × 2 B of scales = 34,603,008 B.
//   batch 1: streaming them and the 2 × 8192 × 2 B of activations at 80% of 2,039 GB/s, 21.23 µs,
//     plus the 5 µs floor: 26.23 µs, 3.33× faster than the 16-bit weights' 87.30 µs. (Its MMA work,
//     one 16-row slice, is a quarter of a 64-row tile's: ~13 µs, below the streaming.)
//   batch 256: compute bound. 256×128 tiles, 64 of them, K split 8 ways: 512 units in 5 waves over
//     108 SMs, each 2·256·128·1024 FLOPs × 1.1 (unpacking) at 312/108 TFLOPS × 0.75 per SM =
//     34.07 µs; 170.36 µs + 2 µs split-K reduction + 5 µs floor = 177.36 µs. The 16-bit GEMM runs
//     the same tiling without the unpacking, 161.87 µs: W4A16 is 0.91× as fast at this batch.
TEST(LowBitGemmTest, W4a16StreamsAtBatchOneAndComputesAtBatch256) {
  const GpuSpec& a100 = Gpus().Find("a100-80gb");
  const LowBitGemm marlin = ChooseLowBitGemm(QuantMethod::kInt4Symmetric, a100);
  ASSERT_EQ(marlin.kernel, LowBitKernel::kWeightOnly);
  const GemmDevice dev{312e12, 2.039e12, 108, 0.75, 0.80, 5e-6};
  QuantizationSpec q;
  q.method = QuantMethod::kInt4Symmetric;
  q.bits = 4;
  q.group_size = 128;
  const double w4 = LinearWeightBytes(q, 8192, 8192, 2);
  EXPECT_DOUBLE_EQ(w4, 34603008);
  auto w4a16 = [&](int64_t m) {
    return GemmSeconds({m, 8192, 8192, w4, 2, marlin.dequant_factor * KernelRowShare(marlin, m)}, dev);
  };
  auto fp16 = [&](int64_t m) { return GemmSeconds({m, 8192, 8192, 8192.0 * 8192 * 2, 2, 1.0}, dev); };
  EXPECT_NEAR(w4a16(1), (34603008 + 32768) / (2.039e12 * 0.8) + 5e-6, 1e-11);
  EXPECT_NEAR(fp16(1) / w4a16(1), 87.30 / 26.23, 0.01);
  const double per_unit = 2.0 * 256 * 128 * 1024 * 1.1 / (312e12 / 108 * 0.75);
  EXPECT_NEAR(w4a16(256), 5 * per_unit + 2e-6 + 5e-6, 1e-11);
  EXPECT_NEAR(fp16(256) / w4a16(256), 161.87 / 177.36, 0.005);
}

// Per generation: FP8 checkpoints on Hopper at the FP8 peak; MXFP4 on Hopper through Marlin, on
// Blackwell as FP4 × FP8 at the FP8 peak; NVFP4 on Blackwell at the FP4 peak (B200: 9 PFLOPS dense,
// HGX B200 datasheet 18 with sparsity); GPTQ on an A100 through Marlin.
TEST(LowBitGemmTest, KernelPerFormatAndGeneration) {
  const GpuSpec& h100 = Gpus().Find("h100");
  const GpuSpec& b200 = Gpus().Find("b200");
  EXPECT_EQ(ChooseLowBitGemm(QuantMethod::kFp8, h100).kernel, LowBitKernel::kW8A8);
  EXPECT_DOUBLE_EQ(ChooseLowBitGemm(QuantMethod::kFp8, h100).peak_flops, 1978.9e12);
  EXPECT_EQ(ChooseLowBitGemm(QuantMethod::kMxfp4, h100).kernel, LowBitKernel::kWeightOnly);
  EXPECT_EQ(ChooseMoeKernel(ChooseLowBitGemm(QuantMethod::kMxfp4, h100), h100), MoeKernel::kMarlinMoe);
  EXPECT_EQ(ChooseLowBitGemm(QuantMethod::kMxfp4, b200).kernel, LowBitKernel::kFp4xFp8);
  EXPECT_DOUBLE_EQ(ChooseLowBitGemm(QuantMethod::kMxfp4, b200).peak_flops, 4500e12);
  EXPECT_EQ(ChooseLowBitGemm(QuantMethod::kNvfp4, b200).kernel, LowBitKernel::kFp4xFp4);
  EXPECT_DOUBLE_EQ(ChooseLowBitGemm(QuantMethod::kNvfp4, b200).peak_flops, 9000e12);
  EXPECT_EQ(ChooseMoeKernel(ChooseLowBitGemm(QuantMethod::kNvfp4, b200), b200), MoeKernel::kFlashInferMoe);
  EXPECT_EQ(ChooseLowBitGemm(QuantMethod::kGptq, Gpus().Find("a100-80gb")).kernel, LowBitKernel::kWeightOnly);
  EXPECT_DOUBLE_EQ(Gpus().Find("gb300").fp4_dense_tflops, 15000);
  EXPECT_EQ(Gpus().Find("gb300").nvlink_domain_gpus, 72);
}

}  // namespace
}  // namespace kvsim
