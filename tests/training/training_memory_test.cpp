// kvsim train's memory model against the source articles' worked examples and hand-derived cases.
#include <gtest/gtest.h>

#include <cmath>

#include "kvcache/base/units.h"
#include "kvcache/training/activation_formulas.h"
#include "kvcache/training/training_memory.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::LlamaConfig;
using testing::SpecFromJson;

struct LlamaRow {
  const char* name;
  int hidden, ffn, layers, heads;
  double weights_gib, optimizer_gib, activations_gib;  // article 003's table (batch 64, sequence 2048, AdamW)
};

// Article 003 ("LLM Memory Computation"), table "LLaMA 系列训练时不同部分的内存占比 (batch size=64, AdamW, GB)".
constexpr LlamaRow kLlama[] = {
    {"LLaMA-7B", 4096, 11008, 32, 32, 12.55, 75.31, 1545.81},
    {"LLaMA-13B", 5120, 13824, 40, 40, 24.24, 145.46, 2410.31},
    {"LLaMA-33B", 6656, 17920, 60, 52, 60.59, 363.54, 4691.06},
    {"LLaMA-65B", 8192, 22016, 80, 64, 121.60, 729.62, 7691.81},
};

TrainingSetup MakeSetup(const ModelSpec& spec, int64_t b, int64_t s) {
  TrainingSetup setup;
  setup.model = spec;
  setup.micro_batch = b;
  setup.seq_len = s;
  return setup;
}

ModelSpec Llama(const LlamaRow& r) { return SpecFromJson(LlamaConfig(r.hidden, r.ffn, r.layers, r.heads, r.heads, 32000)); }

TEST(TrainingMemoryTest, ReproducesTheLlamaTableOfArticle003) {
  for (const LlamaRow& row : kLlama) {
    SCOPED_TRACE(row.name);
    const TrainingMemory m = EstimateTrainingMemory(MakeSetup(Llama(row), 64, 2048));
    EXPECT_NEAR(BytesToGiB(m.weights), row.weights_gib, 0.005);
    EXPECT_NEAR(BytesToGiB(m.gradients), row.weights_gib, 0.005);  // "gradients equal"
    EXPECT_NEAR(BytesToGiB(m.optimizer), row.optimizer_gib, 0.005);
    EXPECT_NEAR(BytesToGiB(m.by_formula.llm_memory_article), row.activations_gib, 0.005);
  }
}

// 16Φ (fp32: 4+4+8; mixed, ZeRO's: 2+2+12), 8-bit AdamW and SGD as article 003's optimizer table
// (bitsandbytes 6P, SGD 8P of optimizer state with the fp32 master).
TEST(TrainingMemoryTest, ModelStatesFollowTheArticlesConventions) {
  const ModelSpec spec = Llama(kLlama[0]);
  auto states = [&](TrainPrecision p, Optimizer o) {
    TrainingSetup s = MakeSetup(spec, 1, 16);
    s.precision = p;
    s.optimizer = o;
    const TrainingMemory m = EstimateTrainingMemory(s);
    return std::array<double, 4>{m.weights / m.parameters, m.gradients / m.parameters, m.optimizer / m.parameters,
                                 m.optimizer_intermediates / m.parameters};
  };
  auto fp32 = states(TrainPrecision::kFp32, Optimizer::kAdamW);
  EXPECT_DOUBLE_EQ(fp32[0] + fp32[1] + fp32[2], 16.0);
  auto mixed = states(TrainPrecision::kBf16Mixed, Optimizer::kAdamW);
  EXPECT_DOUBLE_EQ(mixed[0], 2.0);
  EXPECT_DOUBLE_EQ(mixed[1], 2.0);
  EXPECT_DOUBLE_EQ(mixed[2], 12.0);
  EXPECT_DOUBLE_EQ(mixed[3], 4.0);  // the PyTorch-memory article's N x P intermediates, fp32
  EXPECT_DOUBLE_EQ(states(TrainPrecision::kFp16Mixed, Optimizer::kAdamW)[2], 12.0);
  EXPECT_NEAR(states(TrainPrecision::kBf16Mixed, Optimizer::kAdamW8bit)[2], 6.0, 0.01);
  EXPECT_DOUBLE_EQ(states(TrainPrecision::kBf16Mixed, Optimizer::kSgdMomentum)[2], 8.0);
  EXPECT_DOUBLE_EQ(states(TrainPrecision::kBf16Mixed, Optimizer::kSgd)[2], 4.0);
  auto pure = states(TrainPrecision::kBf16, Optimizer::kAdamW);
  EXPECT_DOUBLE_EQ(pure[0] + pure[1] + pure[2], 8.0);
  const TrainingMemory m = EstimateTrainingMemory(MakeSetup(spec, 1, 16));
  EXPECT_DOUBLE_EQ(m.phi18, 18 * m.parameters);
  EXPECT_DOUBLE_EQ(m.phi20, 20 * m.parameters);
}

// Adafactor (no first moment): a row and a column vector per matrix, hand-counted for a tiny model.
TEST(TrainingMemoryTest, AdafactorFactorsTheSecondMoment) {
  const ModelSpec spec = SpecFromJson(LlamaConfig(64, 128, 1, 4, 4, 100));
  TrainingSetup s = MakeSetup(spec, 1, 8);
  s.precision = TrainPrecision::kFp32;
  s.optimizer = Optimizer::kAdafactor;
  const TrainingMemory m = EstimateTrainingMemory(s);
  // embed [100,64], q/k/v/o [64,64] x4, gate_up [256,64], down [64,128], 2 norms + final norm [64], lm_head [100,64]
  const double moments = (100 + 64) + 4 * (64 + 64) + (256 + 64) + (64 + 128) + 3 * 64 + (100 + 64);
  EXPECT_DOUBLE_EQ(m.optimizer_moments, 4 * moments);
}

// Korthikanti et al. (article 000), by hand: s = 2048, b = 1, h = 4096, a = 32, one layer.
TEST(TrainingMemoryTest, KorthikantiVariants) {
  FormulaInputs in;
  in.layers = 1;
  in.hidden = 4096;
  in.heads = 32;
  in.seq_len = 2048;
  in.micro_batch = 1;
  const double sbh = 2048.0 * 4096;
  EXPECT_DOUBLE_EQ(KorthikantiBytes(in), sbh * (34 + 5 * 32 * 2048.0 / 4096));  // 34 + 80
  in.tp = 8;
  EXPECT_DOUBLE_EQ(KorthikantiBytes(in), sbh * (10 + 3 + 10));                  // 10 + 24/8 + 80/8
  in.sequence_parallel = true;
  EXPECT_DOUBLE_EQ(KorthikantiBytes(in), sbh / 8 * 114);
  in.recompute = Recompute::kSelective;
  EXPECT_DOUBLE_EQ(KorthikantiBytes(in), sbh * 34 / 8);
  in.sequence_parallel = false;
  EXPECT_DOUBLE_EQ(KorthikantiBytes(in), sbh * 13);
  in.recompute = Recompute::kFull;
  EXPECT_DOUBLE_EQ(KorthikantiBytes(in), 2 * sbh);
  in.recompute = Recompute::kNone;
  in.flash_attention = true;  // no 5as/h term
  EXPECT_DOUBLE_EQ(KorthikantiBytes(in), sbh * 13);
}

// ZeRO formulas of articles 000/003: ZeRO-1 Model + Optimizer/N + Gradient; ZeRO-2 Model +
// (Optimizer + Gradient)/N; ZeRO-3 (Model + Optimizer + Gradient)/N + LiveParams (the largest layer).
TEST(TrainingMemoryTest, ZeroStagesShardOverTheDataParallelGroup) {
  const ModelSpec spec = Llama(kLlama[0]);
  const double P = 6738415616;  // LLaMA-7B with its final norm
  auto run = [&](int zero) {
    TrainingSetup s = MakeSetup(spec, 1, 2048);
    s.dp = 8;
    s.zero = zero;
    return EstimateTrainingMemory(s);
  };
  const TrainingMemory z0 = run(0), z1 = run(1), z2 = run(2), z3 = run(3);
  EXPECT_DOUBLE_EQ(z0.parameters, P);
  EXPECT_DOUBLE_EQ(z1.weights, 2 * P);
  EXPECT_DOUBLE_EQ(z1.gradients, 2 * P);
  EXPECT_DOUBLE_EQ(z1.optimizer, 12 * P / 8);
  EXPECT_DOUBLE_EQ(z2.gradients, 2 * P / 8);
  EXPECT_DOUBLE_EQ(z2.optimizer, 12 * P / 8);
  const double layer = 4.0 * 4096 * 4096 + 3.0 * 4096 * 11008 + 2 * 4096;  // one decoder layer
  EXPECT_DOUBLE_EQ(z3.zero3_live_params, 2 * layer);
  EXPECT_DOUBLE_EQ(z3.weights, 2 * P / 8 + 2 * layer);
  EXPECT_DOUBLE_EQ(z0.activations, z3.activations);  // ZeRO leaves activations alone
  EXPECT_DOUBLE_EQ(z1.optimizer_intermediates, 4 * P / 8);
  EXPECT_DOUBLE_EQ(z0.gradients, 2 * 2 * P);  // DDP's bucket copy
}

TEST(TrainingMemoryTest, OffloadMovesTheOptimizerToTheCpu) {
  TrainingSetup s = MakeSetup(Llama(kLlama[0]), 1, 512);
  s.zero = 1;  // DeepSpeed offloads the optimizer under ZeRO only
  s.offload_optimizer = true;
  const TrainingMemory m = EstimateTrainingMemory(s);
  EXPECT_EQ(m.optimizer, 0);
  EXPECT_EQ(m.optimizer_intermediates, 0);
  EXPECT_DOUBLE_EQ(m.optimizer_cpu, 12 * m.parameters);
}

// One layer of a small GQA model in bf16, eager attention, derived by hand from the mechanism:
// d = 64, 4 heads x 16, 2 KV heads, gated MLP of 128, s = 32.
TEST(TrainingMemoryTest, OneLayerTensorByTensorByHand) {
  const ModelSpec spec = SpecFromJson(LlamaConfig(64, 128, 2, 4, 2, 100));
  ActivationSettings a;
  a.seq_len = 32;
  const double d = 64, q = 64, kv = 32, I = 128, n = 4, s = 32;
  const double norms = 2 * (4 * d + 2 * d) + 2 * (2 * d);        // fp32 upcast + normalised; q/k/v and MLP inputs
  const double eager = 2 * (q + q + q) + 4 * n * s + 2 * n * s + 2 * q;  // q, K/V repeated, softmax, probs, o_proj input
  const double mlp = 2 * 3 * I + 2 * I;
  EXPECT_DOUBLE_EQ(SumBytes(LayerSavedTensors(spec, 0, a)), norms + eager + mlp);
  a.flash_attention = true;  // real K/V widths, no s^2
  const double flash = 2 * (q + kv + kv) + 2 * q + 4 * n;
  EXPECT_DOUBLE_EQ(SumBytes(LayerSavedTensors(spec, 0, a)), norms + flash + mlp);
  a.recompute = Recompute::kFull;
  EXPECT_DOUBLE_EQ(LayerKeptBytesPerToken(LayerSavedTensors(spec, 0, a), spec, a), 2 * d);
  a.flash_attention = false;
  a.recompute = Recompute::kSelective;
  EXPECT_DOUBLE_EQ(LayerKeptBytesPerToken(LayerSavedTensors(spec, 0, a), spec, a), norms + 2 * 3 * q + 2 * q + mlp);
  a.recompute = Recompute::kNone;
  a.tp = 2;  // heads, K/V heads and the MLP split; norms replicated without SP
  const double tp2 = norms + 2 * (q / 2 * 3) + 4 * n / 2 * s + 2 * n / 2 * s + 2 * q / 2 + (2 * 3 * I + 2 * I) / 2;
  EXPECT_DOUBLE_EQ(SumBytes(LayerSavedTensors(spec, 0, a)), tp2);
  a.sequence_parallel = true;
  EXPECT_DOUBLE_EQ(SumBytes(LayerSavedTensors(spec, 0, a)), tp2 - norms / 2);
}

// Dropout from the config (GPT-2 style names): 1-byte masks on the two residual branches, and the
// attention dropout's mask beside the dropped probabilities that P·V keeps (bf16, eager).
TEST(TrainingMemoryTest, DropoutFromTheConfigAddsItsMasks) {
  std::string config = LlamaConfig(64, 128, 2, 4, 2, 100);
  const ModelSpec plain = SpecFromJson(config);
  config.insert(config.size() - 1, R"(,"attn_pdrop":0.1,"resid_pdrop":0.1)");
  const ModelSpec dropped = SpecFromJson(config);
  EXPECT_DOUBLE_EQ(dropped.attention_dropout, 0.1);
  ActivationSettings a;
  a.seq_len = 32;
  const double extra = 2 * 64 + 1 * 4 * 32;  // two d-wide masks, the n*s attention mask
  EXPECT_DOUBLE_EQ(SumBytes(LayerSavedTensors(dropped, 0, a)) - SumBytes(LayerSavedTensors(plain, 0, a)), extra);
  a.flash_attention = true;  // the kernel regenerates its mask
  EXPECT_DOUBLE_EQ(SumBytes(LayerSavedTensors(dropped, 0, a)) - SumBytes(LayerSavedTensors(plain, 0, a)), 2 * 64);
}

// Phi-2's parallel block has one LayerNorm (input a*d) feeding attention and MLP; Gemma 2 normalises the
// attention and MLP outputs too (two more RMSNorms, (4 + a)*d each).
TEST(TrainingMemoryTest, NormsFollowTheBlockLayout) {
  ActivationSettings a;
  a.seq_len = 16;
  auto norms = [&](const ModelSpec& spec) {
    double sum = 0;
    for (const auto& t : LayerSavedTensors(spec, 0, a))
      if (t.name.find("norm") != std::string::npos) sum += t.bytes_per_token;
    return sum;
  };
  const ModelSpec phi = testing::SharedModel("microsoft__phi-2.json");
  EXPECT_DOUBLE_EQ(norms(phi), 2.0 * 2560 + 2.0 * 2560);  // the LayerNorm's input, its output (q/k/v and MLP input)
  const ModelSpec gemma = testing::SharedModel("google__gemma-2-9b-it.json");
  EXPECT_DOUBLE_EQ(norms(gemma), 4 * (4 + 2) * 3584.0 + 2 * 2 * 3584.0);
}

// 1F1B: the first of P stages holds P micro-batches of its layers; the last one holds one.
TEST(TrainingMemoryTest, PipelineFirstStageHoldsPMicroBatches) {
  const ModelSpec spec = SpecFromJson(LlamaConfig(256, 512, 8, 4, 4, 1000));
  TrainingSetup s = MakeSetup(spec, 2, 128);
  const double one = EstimateTrainingMemory(s).activations_saved;
  s.pp = 4;
  const TrainingMemory m = EstimateTrainingMemory(s);
  EXPECT_EQ(m.stage, 0);  // the head's logits are small here, so the first stage peaks
  EXPECT_EQ(m.microbatches_in_flight, 4);
  // The first stage keeps 4 x 2 layers = all 8 layers' worth, without the head.
  TrainingSetup no_pp = s;
  no_pp.pp = 1;
  const TrainingMemory full = EstimateTrainingMemory(no_pp);
  const double head = full.activations_saved - 8 * full.layer_kept_bytes_per_token * 2 * 128;
  EXPECT_NEAR(m.activations_saved, one - head, 1e-6 * one);
}

// PEFT prints "trainable params: 19,988,480" for Llama-2-7b with r = 8 on all linear layers.
TEST(TrainingMemoryTest, LoraTrainableParametersMatchPeft) {
  TrainingSetup s = MakeSetup(SpecFromJson(LlamaConfig(4096, 11008, 32, 32, 32, 32000)), 1, 512);
  s.finetune = Finetune::kLora;
  s.lora_rank = 8;
  TrainingMemory m = EstimateTrainingMemory(s);
  EXPECT_DOUBLE_EQ(m.trainable_parameters, 19988480);
  EXPECT_DOUBLE_EQ(m.weights, 2 * m.parameters + 4 * 19988480);  // frozen bf16 base + fp32 adapters
  EXPECT_DOUBLE_EQ(m.gradients, 4 * 19988480);
  EXPECT_DOUBLE_EQ(m.optimizer, 8 * 19988480);
  s.lora_targets = LoraTargets::kAttention;
  m = EstimateTrainingMemory(s);
  EXPECT_DOUBLE_EQ(m.trainable_parameters, 32 * 4 * 8 * (4096 + 4096));
}

// QLoRA: NF4 linears with double-quantized scales (0.5 + 1/64 + 4/16384 B), other tensors in fp32.
TEST(TrainingMemoryTest, QloraStoresNf4LinearsWithDoubleQuantizedScales) {
  TrainingSetup s = MakeSetup(SpecFromJson(LlamaConfig(4096, 11008, 32, 32, 32, 32000)), 1, 512);
  s.finetune = Finetune::kQlora;
  s.lora_rank = 8;
  const TrainingMemory m = EstimateTrainingMemory(s);
  const double linear = 32 * (4.0 * 4096 * 4096 + 3.0 * 4096 * 11008);
  const double other = m.parameters - linear;
  EXPECT_NEAR(m.weights, linear * (0.5 + 1.0 / 64 + 4.0 / 16384) + 4 * other + 4 * 19988480, 1.0);
}

TEST(TrainingMemoryTest, FindMaxMicroBatchIsTheLargestThatFits) {
  TrainingSetup s = MakeSetup(SpecFromJson(LlamaConfig(2048, 5632, 22, 32, 4, 32000)), 1, 2048);
  s.flash_attention = true;
  s.gpu_memory_bytes = 40 * kGiB;
  const int64_t b = FindMaxMicroBatch(s);
  ASSERT_GT(b, 0);
  s.micro_batch = b;
  EXPECT_TRUE(EstimateTrainingMemory(s).fits);
  s.micro_batch = b + 1;
  EXPECT_FALSE(EstimateTrainingMemory(s).fits);
  s.gpu_memory_bytes = 1 * kGiB;
  EXPECT_EQ(FindMaxMicroBatch(s), 0);
}

// The PyTorch-memory article's forward hooks summed numel x element_size of every module output of
// Qwen2.5-1.5B (fp32) for one token: 5,065,216. Derived by hand from the config: per layer q 1536,
// k 256, v 256, o 1536, self_attn 1536, gate/up/act 3 x 8960, down 1536, mlp 1536, two norms 2 x 1536,
// the layer 1536; once: embeddings 1536, RoPE cos+sin 2 x 128, final norm 1536, lm_head 151,936.
TEST(TrainingMemoryTest, QwenHooksFigureAndTheHeuristic) {
  const ModelSpec spec = testing::SharedModel("Qwen__Qwen2.5-1.5B.json");
  const int64_t d = spec.hidden_size, kv = spec.num_kv_heads * spec.head_dim, I = spec.intermediate_size;
  const int64_t per_layer = 8 * d + 2 * kv + 3 * I;
  const int64_t values = spec.num_layers * per_layer + d + 2 * spec.head_dim + d + spec.vocab_size;
  EXPECT_EQ(4 * values, 5065216);  // bytes: the hooks multiply by element_size (4 in fp32)
  TrainingSetup s = MakeSetup(spec, 1, 1);
  s.precision = TrainPrecision::kFp32;
  const TrainingMemory m = EstimateTrainingMemory(s);
  EXPECT_DOUBLE_EQ(m.parameters, 1543714304);
  EXPECT_NEAR(m.by_formula.hf_activations_per_token, 4.6894e-4 * 1543714304 + 1.8494e6, 1e-6);
  EXPECT_NEAR(m.by_formula.hf_activations_per_token, 2573309, 1);
  // What autograd keeps is more than the module outputs: norms keep their fp32 input and the
  // normalised input, SiLU and the gate product keep three I-wide tensors, the loss a fp32 log-softmax.
  EXPECT_GT(m.activations_saved, 4.0 * static_cast<double>(values));
}

}  // namespace
}  // namespace kvsim
