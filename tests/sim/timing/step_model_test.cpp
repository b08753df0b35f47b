// The step model operator by operator, against FLOP and byte counts derived by hand from the model
// configs (dense Llama-3.1-8B with GQA, Mixtral-8x7B's routed experts, DeepSeek-V2-Lite's MLA), and
// the GEMM timing's two regimes from the A100 datasheet.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <numeric>
#include <tuple>

#include "kvcache/base/error.h"
#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/deployment.h"
#include "tests/testutil.h"
#include "kvcache/model/model_catalog.h"
#include "sim/timing/gemm_time.h"
#include "sim/timing/step_model.h"
#include "tests/sim/timing/operator_costs.h"

namespace kvsim {
namespace {

constexpr double kA100Peak = 312e12, kA100Bandwidth = 2.039e12;
constexpr int kA100Sms = 108;

struct Timed {
  Deployment d;
  CapacityResult cap;
};

Timed On(const std::string& model, const std::string& gpu = "a100-80gb", int tp = 1) {
  DeploymentOptions o;
  o.model = model;
  o.gpu = gpu;
  o.tensor_parallel_size = tp;
  o.max_model_len = "4096";
  Timed t{ResolveDeployment(o, DataDirectory()), {}};
  t.cap = PlanCapacity(t.d.model, t.d.gpu, t.d.config);
  return t;
}

using testing::ByName;

StepWork Decode(int64_t seqs, int64_t context) {
  return {seqs, seqs * context, seqs * (context + 1), seqs};
}

TEST(GemmTimeTest, FlopsAndBytesOfOneGemm) {
  const GemmShape g{8, 4096, 4096, 4096.0 * 4096 * 2, 2, 1};
  EXPECT_DOUBLE_EQ(GemmFlops(g), 2.0 * 8 * 4096 * 4096);
  EXPECT_DOUBLE_EQ(GemmBytes(g), 4096.0 * 4096 * 2 + 8.0 * (4096 + 4096) * 2);
}

// One token through a 4096×4096 bf16 weight streams 32 MiB: at 80% of 2,039 GB/s that is 20.6 µs,
// far above the fastest tiling's compute, plus the 5 µs kernel floor.
TEST(GemmTimeTest, SmallBatchIsMemoryBound) {
  const GemmDevice a100{kA100Peak, kA100Bandwidth, kA100Sms, 0.75, 0.80, 5e-6};
  const GemmShape g{1, 4096, 4096, 4096.0 * 4096 * 2, 2, 1};
  const double bytes = 4096.0 * 4096 * 2 + 1.0 * 8192 * 2;
  EXPECT_NEAR(GemmSeconds(g, a100), bytes / (kA100Bandwidth * 0.8) + 5e-6, 1e-12);
}

// 4096³: 256×128 tiles make 16 × 32 = 512 tiles, 4.74 waves over 108 SMs. Whole waves would cost 5;
// splitting K in 8 (4,096 units of 2·256·128·512 FLOPs) fills 38 waves of 37.9, the cheapest
// candidate, plus 2 µs of reduction and the 5 µs floor; per SM 312/108 TFLOPS × 0.75.
TEST(GemmTimeTest, LargeGemmIsComputeBoundInWholeWaves) {
  const GemmDevice a100{kA100Peak, kA100Bandwidth, kA100Sms, 0.75, 0.80, 5e-6};
  const GemmShape g{4096, 4096, 4096, 4096.0 * 4096 * 2, 2, 1};
  const double per_sm = kA100Peak / kA100Sms * 0.75;
  EXPECT_NEAR(GemmSeconds(g, a100), 38 * 2.0 * 256 * 128 * 512 / per_sm + 2e-6 + 5e-6, 1e-12);
  // Never faster than the datasheet peak at that efficiency.
  EXPECT_GT(GemmSeconds(g, a100), GemmFlops(g) / (kA100Peak * 0.75));
}

// Llama-3.1-8B, TP 1: per layer QKV (32 + 2·8 heads × 128) × 4096, O 4096², gate+up 2·14336 × 4096,
// down 4096 × 14336: 218,103,808 weights, × 32 layers = 6,979,321,856 (the 8.03 B parameters less
// the two 128,256 × 4096 embeddings and the norms). Each costs 2 FLOPs per token; bf16 weights
// are read once per step.
TEST(StepModelTest, DenseGqaLinearFlopsAndBytes) {
  const Timed t = On("meta-llama/Llama-3.1-8B-Instruct");
  const StepModel model(t.d.model, t.cap, t.d.gpu, StepModelOptions{});
  const int64_t tokens = 24;
  const auto ops = ByName(model.Operators(Decode(tokens, 100)));
  EXPECT_DOUBLE_EQ(ops.at("qkv_proj").flops, 2.0 * tokens * 6144 * 4096 * 32);
  EXPECT_DOUBLE_EQ(ops.at("o_proj").flops, 2.0 * tokens * 4096 * 4096 * 32);
  EXPECT_DOUBLE_EQ(ops.at("mlp_up_proj").flops, 2.0 * tokens * 28672 * 4096 * 32);
  EXPECT_DOUBLE_EQ(ops.at("mlp_down_proj").flops, 2.0 * tokens * 4096 * 14336 * 32);
  double linear_flops = 0, weight_bytes = 0;
  for (const char* name : {"qkv_proj", "o_proj", "mlp_up_proj", "mlp_down_proj"}) {
    linear_flops += ops.at(name).flops;
    const OperatorCost& op = ops.at(name);
    weight_bytes += op.bytes;
  }
  EXPECT_DOUBLE_EQ(linear_flops, 2.0 * tokens * 6979321856.0);
  // Bytes: the weights plus each GEMM's input and output rows (K + N per token, 2 B each).
  const double activations = 2.0 * tokens * 32 * ((4096 + 6144) + (4096 + 4096) + (4096 + 28672) + (14336 + 4096));
  EXPECT_DOUBLE_EQ(weight_bytes, 2.0 * 6979321856.0 + activations);
  // lm_head: one row per sequence through the 128,256 × 4096 output embedding.
  EXPECT_DOUBLE_EQ(ops.at("lm_head").flops, 2.0 * tokens * 128256 * 4096);
}

// GQA decode reads each context token's K and V once per layer: 2 × 8 KV heads × 128 × 2 B =
// 4,096 B per layer (131,072 B per token over 32 layers), and attends with all 32 query heads:
// QKᵀ and PV cost 2 × 2 × 4096 FLOPs per (query, key) pair.
TEST(StepModelTest, GqaDecodeAttentionReadsTheKvCache) {
  const Timed t = On("meta-llama/Llama-3.1-8B-Instruct");
  const StepModel model(t.d.model, t.cap, t.d.gpu, StepModelOptions{});
  const int64_t seqs = 16, context = 1000;
  const StepWork w = Decode(seqs, context);
  const auto ops = ByName(model.Operators(w));
  const double kv_bytes = 4096.0 * (seqs * context + seqs) * 32;
  const double q_and_out = 2.0 * seqs * (4096 + 4096) * 32;
  EXPECT_DOUBLE_EQ(ops.at("attention").bytes, kv_bytes + q_and_out);
  EXPECT_DOUBLE_EQ(ops.at("attention").flops, 4.0 * 4096 * seqs * (context + 1) * 32);
  // Memory bound: the bytes plus each sequence's fixed cost (550 tokens of K/V reads per layer for a
  // grouped-query decode: FlashInfer's H100 batch-64 curve, 60% of 93% at 1,000 tokens) at 93% of HBM
  // bandwidth, plus a 3 µs kernel floor per layer.
  const double fixed_cost_bytes = 4096.0 * seqs * 550 * 32;
  EXPECT_NEAR(ops.at("attention").seconds,
              (kv_bytes + fixed_cost_bytes + q_and_out) / (kA100Bandwidth * 0.93) + 32 * 3e-6, 1e-12);
  // Long contexts approach 93%, short ones pay the fixed cost: at 1,000 tokens the reads run at
  // 0.93 × 1000 / 1550 of the bandwidth, FlashInfer's measured 60%.
  const double read_s = ops.at("attention").seconds - 32 * 3e-6;
  EXPECT_NEAR(kv_bytes / read_s / kA100Bandwidth, 0.93 * 1001.0 / 1551.0, 0.01);
}

// Mixtral-8x7B: 8 experts, top 2, expert FFN 14,336, 32 MoE layers. One token touches exactly 2
// experts; 1,000 tokens touch all 8 (8·(1 − (3/4)^1000)), 250 tokens each. Either way the expert
// FLOPs are 2 × tokens × top-k × one expert's 3 × 14,336 × 4,096 weights; the bytes read are the
// touched experts' weights.
TEST(StepModelTest, MoeTouchesTheExpectedDistinctExperts) {
  const Timed t = On("mistralai/Mixtral-8x7B-v0.1", "h200");
  const StepModel model(t.d.model, t.cap, t.d.gpu, StepModelOptions{});
  const double up = 2.0 * 14336 * 4096, down = 4096.0 * 14336;
  {
    const auto ops = ByName(model.Operators(Decode(1, 10)));
    EXPECT_DOUBLE_EQ(ops.at("experts_up").flops, 2.0 * 1 * 2 * up * 32);
    EXPECT_DOUBLE_EQ(ops.at("experts_down").flops, 2.0 * 1 * 2 * down * 32);
    EXPECT_DOUBLE_EQ(ops.at("experts_up").bytes, 2 * (up * 2 + 1.0 * (4096 + 28672) * 2) * 32);
    EXPECT_DOUBLE_EQ(ops.at("router").flops, 2.0 * 1 * 8 * 4096 * 32);
  }
  {
    const int64_t tokens = 1000;
    const auto ops = ByName(model.Operators(Decode(tokens, 10)));
    EXPECT_DOUBLE_EQ(ops.at("experts_up").flops, 2.0 * tokens * 2 * up * 32);
    EXPECT_DOUBLE_EQ(ops.at("experts_down").bytes, 8 * (down * 2 + 250.0 * (14336 + 4096) * 2) * 32);
  }
  // Four tokens: 8·(1 − 0.75^4) = 5.46875 experts, each with ceil(8 / 5.46875) = 2 rows.
  const auto ops = ByName(model.Operators(Decode(4, 10)));
  EXPECT_NEAR(ops.at("experts_down").bytes, 5.46875 * (down * 2 + 2.0 * (14336 + 4096) * 2) * 32, 1e-3);
}

// DeepSeek-V2-Lite (MLA): kv_lora_rank 512, rope 64, 16 heads of 128 + 64 (q) and 128 (v), no
// q LoRA, 27 layers. The cache holds the 576-wide latent per token and layer (1,152 B in bf16);
// decode attends in the latent space: 2 × 16 × (2·512 + 64) FLOPs per pair.
TEST(StepModelTest, MlaProjectionsAndLatentAttention) {
  const Timed t = On("deepseek-ai/DeepSeek-V2-Lite");
  const StepModel model(t.d.model, t.cap, t.d.gpu, StepModelOptions{});
  const int64_t seqs = 8, context = 512;
  const auto ops = ByName(model.Operators(Decode(seqs, context)));
  EXPECT_DOUBLE_EQ(ops.at("q_proj").flops, 2.0 * seqs * 16 * 192 * 2048 * 27);
  EXPECT_DOUBLE_EQ(ops.at("kv_a_proj").flops, 2.0 * seqs * 576 * 2048 * 27);
  EXPECT_DOUBLE_EQ(ops.at("kv_b_proj").flops, 2.0 * seqs * 16 * 256 * 512 * 27);
  EXPECT_DOUBLE_EQ(ops.at("o_proj").flops, 2.0 * seqs * 2048 * 16 * 128 * 27);
  EXPECT_DOUBLE_EQ(ops.at("attention").flops, 2.0 * 16 * (2 * 512 + 64) * seqs * (context + 1) * 27);
  EXPECT_DOUBLE_EQ(ops.at("attention").bytes,
                   1152.0 * seqs * (context + 1) * 27 + 2.0 * seqs * 16 * (192 + 128) * 27);
  // Prefill expands the latent: (192 + 128) per head for QKᵀ and PV.
  const StepWork prefill{100, 0, 100 * 101 / 2, 1};
  EXPECT_DOUBLE_EQ(ByName(model.Operators(prefill)).at("attention").flops, 2.0 * 16 * 320 * 5050 * 27);
}

// FP8 W8A8 checkpoints run their GEMMs at the FP8 peak on Hopper: with compute bound shapes the
// same model's linear time roughly halves against bf16.
TEST(StepModelTest, Fp8CheckpointUsesTheFp8Peak) {
  DeploymentOptions o;
  o.model = "meta-llama/Llama-3.1-8B-Instruct";
  o.gpu = "h100";
  o.max_model_len = "4096";
  const Deployment bf16 = ResolveDeployment(o, DataDirectory());
  o.quantization = "fp8";
  const Deployment fp8 = ResolveDeployment(o, DataDirectory());
  const StepModel a(bf16.model, PlanCapacity(bf16.model, bf16.gpu, bf16.config), bf16.gpu, {});
  const StepModel b(fp8.model, PlanCapacity(fp8.model, fp8.gpu, fp8.config), fp8.gpu, {});
  const StepWork big{8192, 0, 8192, 8192};
  const double ratio = b.Breakdown(big).linear / a.Breakdown(big).linear;
  EXPECT_GT(ratio, 0.45);
  EXPECT_LT(ratio, 0.6);
}

// TP 2 over NVLink: two all-reduces per layer of tokens × 4096 × 2 B, each 10 µs plus the ring's
// 2·(tp − 1)/tp of the message over 300 GB/s.
TEST(StepModelTest, TensorParallelAllReducesTwicePerLayer) {
  const Timed t = On("meta-llama/Llama-3.1-8B-Instruct", "a100-80gb", 2);
  const StepModel model(t.d.model, t.cap, t.d.gpu, StepModelOptions{});
  const int64_t tokens = 256;
  const double expected = 2 * 32 * (10e-6 + 2.0 * 1 / 2 * tokens * 4096 * 2.0 / 300e9);
  EXPECT_NEAR(model.Breakdown({tokens, 0, tokens, tokens}).communication, expected, 1e-12);
}

TEST(StepModelTest, FixedStepTimeIgnoresTheWork) {
  const Timed t = On("meta-llama/Llama-3.1-8B-Instruct");
  StepModelOptions o;
  o.fixed_step_ms = 20;
  const StepModel model(t.d.model, t.cap, t.d.gpu, o);
  EXPECT_TRUE(model.fixed());
  EXPECT_EQ(model.StepNs({1, 0, 1, 1}), 20000000);
  EXPECT_EQ(model.StepNs({8192, 100000, 5000000, 64}), 20000000);
}

// A GPU row without a tensor peak is an error that names what is missing, never a silent default.
TEST(StepModelTest, GpuWithoutFiguresIsAnError) {
  Timed t = On("meta-llama/Llama-3.1-8B-Instruct");
  t.d.gpu.bf16_dense_tflops = t.d.gpu.fp16_dense_tflops = 0;
  try {
    StepModel model(t.d.model, t.cap, t.d.gpu, StepModelOptions{});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--gpu-tflops"), std::string::npos) << e.what();
  }
}

// The components add up, and the step time only grows with the work (a property over batches).
TEST(StepModelTest, StepTimeGrowsWithTheBatch) {
  const Timed t = On("meta-llama/Llama-3.1-8B-Instruct");
  const StepModel model(t.d.model, t.cap, t.d.gpu, StepModelOptions{});
  int64_t previous = 0;
  for (int64_t seqs = 1; seqs <= 256; seqs += 5) {
    const StepWork w = Decode(seqs, 2000);
    const StepBreakdown b = model.Breakdown(w);
    double sum = 0;
    for (const OperatorCost& op : model.Operators(w)) sum += op.seconds;
    EXPECT_NEAR(sum, b.total(), 1e-12);
    EXPECT_GE(model.StepNs(w), previous);
    previous = model.StepNs(w);
  }
}

// Dense, MLA, sliding-window and TP deployments for the decode-run tests: (model, GPU, TP).
std::vector<std::tuple<std::string, std::string, int>> DecodeDeployments() {
  return {{"meta-llama/Llama-3.1-8B-Instruct", "h100", 1},
          {"deepseek-ai/DeepSeek-V2-Lite", "a100-80gb", 1},
          {"openai/gpt-oss-20b", "l40s", 1},
          {"meta-llama/Llama-3.1-70B-Instruct", "h100", 4}};
}

// Gemma-3n's shapes with num_kv_shared_layers: 30 layers, every fifth full attention, the rest a
// 512-token window, the last 10 reading another layer's KV.
ModelSpec KvSharingGemma3n() {
  std::string types;
  for (int i = 0; i < 30; ++i) types += std::string(i ? "," : "") + ((i + 1) % 5 == 0 ? "\"full_attention\"" : "\"sliding_attention\"");
  return testing::SpecFromJson(R"({"architectures":["Gemma3nForCausalLM"],"model_type":"gemma3n_text",
    "hidden_size":2048,"intermediate_size":8192,"num_hidden_layers":30,"num_attention_heads":8,"num_key_value_heads":2,
    "head_dim":256,"vocab_size":262400,"max_position_embeddings":32768,"sliding_window":512,"torch_dtype":"bfloat16",
    "num_kv_shared_layers":10,"layer_types":[)" + types + "]}");
}

// A quiet decode run times its steps with DecodeSteps: the same nanoseconds as StepNs for every
// context, on dense, MLA, sliding-window and TP deployments, eagerly and with CUDA graphs, and past
// the largest graph batch (where the launch term depends on the GPU time).
TEST(StepModelTest, DecodeStepsEqualStepNsBitForBit) {
  for (const auto& [model, gpu, tp] : DecodeDeployments()) {
    const Timed t = On(model, gpu, tp);
    for (bool eager : {false, true}) {
      StepModelOptions o;
      o.enforce_eager = eager;
      const StepModel m(t.d.model, t.cap, t.d.gpu, o);
      for (int64_t n : {1, 7, 64, 512, 513, 1024}) {
        const StepModel::DecodeSteps decode(m, n);
        for (int64_t context = 0; context < 4'000'000; context = context * 3 + n * 17 + 1) {
          StepWork w;
          w.Add(1, 0, n);  // n decoders ...
          w.context_tokens = context;  // ... reading `context` cached tokens between them
          w.attended = context + n;
          ASSERT_EQ(decode.Ns(context), m.StepNs(w)) << model << " eager " << eager << " n " << n << " context " << context;
        }
      }
    }
  }
  // Layers reading another layer's KV (Gemma-3n's num_kv_shared_layers): attention counts every layer,
  // the KV bytes only the layers that own them.
  const ModelSpec shared = KvSharingGemma3n();
  const Timed h100 = On("meta-llama/Llama-3.1-8B-Instruct", "h100");
  const CapacityResult cap = PlanCapacity(shared, h100.d.gpu, h100.d.config);
  const StepModel m(shared, cap, h100.d.gpu, StepModelOptions{});
  for (int64_t n : {1, 33, 300}) {
    const StepModel::DecodeSteps decode(m, n);
    for (int64_t context = 0; context < 2'000'000; context = context * 3 + n * 17 + 1) {
      StepWork w;
      w.Add(1, 0, n);
      w.context_tokens = context;
      w.attended = context + n;
      ASSERT_EQ(decode.Ns(context), m.StepNs(w)) << "kv-shared, n " << n << " context " << context;
    }
  }
}

// A verify run's Ns (speculative decoding: each request computes its last token and k drafts, every
// one a logits row) is StepNs of the StepWork the engine's Adds make, bit for bit, eager and with
// graphs, over window caps and long contexts.
TEST(StepModelTest, VerifyRunNsEqualsStepNs) {
  auto check = [](const StepModel& m, const std::string& what) {
    for (int64_t n : {1, 3, 64, 200, 600}) {
      for (int64_t tokens : {2, 4, 6}) {
        const std::unique_ptr<DecodeRunTimer> verify = m.VerifyRun(n, tokens);
        for (int64_t context : {int64_t{0}, n * 100 + 7, n * 511, n * 4099 + 3, int64_t{3'000'001}}) {
          StepWork w;
          for (int64_t i = 0; i < n; ++i) w.Add(tokens, context / n + (i < context % n ? 1 : 0));
          w.draft_tokens = n * (tokens - 1);
          ASSERT_EQ(w.context_tokens, context);
          ASSERT_EQ(verify->Ns(context), m.StepNs(w)) << what << " n " << n << " tokens " << tokens << " context " << context;
        }
      }
    }
  };
  for (const auto& [model, gpu, tp] : DecodeDeployments()) {
    const Timed t = On(model, gpu, tp);
    for (bool eager : {false, true}) {
      StepModelOptions o;
      o.enforce_eager = eager;
      check(StepModel(t.d.model, t.cap, t.d.gpu, o), model + (eager ? " eager" : ""));
    }
  }
  const Timed llama = On("meta-llama/Llama-3.1-8B-Instruct", "h100");
  StepModelOptions overlapped;
  overlapped.overlap_host = true;
  check(StepModel(llama.d.model, llama.cap, llama.d.gpu, overlapped), "async scheduling");
}

// TimeSteps (fixed point, recomputed at the breakpoints) gives Ns of every step's context, bit for
// bit: long runs from several starts, across window caps (Gemma-3n's 512-token window, gpt-oss's
// 128) and the point where KV reads overtake compute (slowed attention compute), eager and with
// graphs; and it stops at the step whose end reaches the horizon.
TEST(StepModelTest, TimeStepsEqualNsAtEveryStep) {
  auto check = [](const StepModel& m, const std::string& what) {
    std::vector<int64_t> out(3000);
    for (int64_t n : {1, 7, 33, 300, 512, 513}) {
      const StepModel::DecodeSteps decode(m, n);
      for (int64_t start : {int64_t{0}, n * 100, n * 511 - 40 * n, n * 127 - 40 * n, int64_t{3'000'000}}) {
        if (start < 0) continue;
        int64_t now = 5;
        ASSERT_EQ(decode.TimeSteps(start, n, 3000, INT64_MAX, &now, out.data()), 3000);
        int64_t expected_now = 5;
        for (int64_t k = 0; k < 3000; ++k) {
          ASSERT_EQ(out[static_cast<size_t>(k)], decode.Ns(start + k * n)) << what << " n " << n << " start " << start << " step " << k;
          expected_now += out[static_cast<size_t>(k)];
        }
        ASSERT_EQ(now, expected_now);
        // A horizon inside step 1234: that step is the last taken.
        const int64_t horizon = 5 + std::accumulate(out.begin(), out.begin() + 1234, int64_t{0}) + 1;
        now = 5;
        ASSERT_EQ(decode.TimeSteps(start, n, 3000, horizon, &now, out.data()), 1235) << what;
      }
    }
  };
  for (const auto& [model, gpu, tp] : DecodeDeployments()) {
    const Timed t = On(model, gpu, tp);
    for (bool eager : {false, true}) {
      StepModelOptions o;
      o.enforce_eager = eager;
      check(StepModel(t.d.model, t.cap, t.d.gpu, o), model + (eager ? " eager" : ""));
    }
  }
  // Attention compute slowed until it overtakes the KV reads within a run (about 0.0085 of the
  // H100's peak matches the Llama 8B decode's read time per token).
  const Timed llama = On("meta-llama/Llama-3.1-8B-Instruct", "h100");
  for (double efficiency : {0.004, 0.0065, 0.0075, 0.01}) {
    StepModelOptions o;
    o.efficiency.attention_compute = efficiency;
    check(StepModel(llama.d.model, llama.cap, llama.d.gpu, o), "slow attention " + std::to_string(efficiency));
  }
  const ModelSpec shared = KvSharingGemma3n();
  check(StepModel(shared, PlanCapacity(shared, llama.d.gpu, llama.d.config), llama.d.gpu, StepModelOptions{}), "gemma-3n");
}

}  // namespace
}  // namespace kvsim
