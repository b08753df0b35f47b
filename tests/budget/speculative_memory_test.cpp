// Speculative-decoding proposers' weights and the KV slots they hold, byte for byte against vLLM v1
// (vllm/v1/spec_decode/eagle.py load_model, model_executor/models/llama_eagle3.py and
// deepseek_mtp.py, v1/core/sched/scheduler.py num_lookahead_tokens; the v0.11 line), derived by hand.
#include <gtest/gtest.h>

#include <fstream>

#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/deployment.h"
#include "kvcache/budget/speculative_memory.h"
#include "kvcache/model/model_catalog.h"
#include "kvcache/model/weight_tensors.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

CapacityResult Plan(const DeploymentOptions& o) {
  const Deployment d = ResolveDeployment(o, DataDirectory());
  return PlanCapacity(d.model, d.gpu, d.config);
}

// yuhuili/EAGLE3-LLaMA3.1-Instruct-8B's config.json (as SpecForge's tests and vLLM's examples quote it).
constexpr const char* kEagle3Llama8b = R"({
  "architectures": ["LlamaForCausalLMEagle3"], "bos_token_id": 128000, "eos_token_id": 128001,
  "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
  "max_position_embeddings": 2048, "model_type": "llama", "num_attention_heads": 32,
  "num_key_value_heads": 8, "num_hidden_layers": 1, "pad_token_id": 0, "rms_norm_eps": 1e-05,
  "tie_word_embeddings": false, "torch_dtype": "float16", "transformers_version": "4.28.1",
  "use_cache": true, "vocab_size": 128256, "draft_vocab_size": 32000})";

TEST(SpeculativeMemoryTest, Eagle3HeadForLlama8b) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/config.json";
  std::ofstream(path) << kEagle3Llama8b;
  DeploymentOptions o;
  o.model = "meta-llama/Llama-3.1-8B-Instruct";
  o.speculative_config = R"({"method": "eagle3", "model": ")" + path + R"(", "num_speculative_tokens": 3})";
  const CapacityResult r = Plan(o);
  // Elements, bf16 (the drafter runs in the target's dtype):
  //   fc [4096, 3 x 4096]                 50,331,648
  //   q [4096, 2 x 4096] (embeds ++ hidden) 33,554,432; k, v [1024, 8192] 8,388,608 each
  //   o [4096, 4096]                      16,777,216
  //   gate_up [2 x 14336, 4096]          117,440,512; down [4096, 14336] 58,720,256
  //   norms: input, post-attention, hidden_norm, final: 4 x 4096 = 16,384
  //   lm_head [32000, 4096] (draft vocab; 32000 is a multiple of 64) 131,072,000
  //   = 424,689,664 x 2 B = 849,379,328, + draft_id_to_target_id int64 [32000] 256,000
  //   = 849,635,328 B (810.3 MiB; the checkpoint's pytorch_model.bin is about 850 MB).
  // embed_tokens is the target's (load_model shares it when the shapes match).
  EXPECT_DOUBLE_EQ(r.draft_weights_bytes, 849635328.0);
  // K = 3: each decoding request schedules 3 draft tokens and EAGLE reserves 3 lookahead slots:
  // 6 slots x 256 requests x 135,168 B/token = 207,618,048 B, where a token's KV spans the
  // target's 32 layers and the head's one (vLLM puts the drafter's attention layer in the same
  // pool): 33 x 2 (K, V) x 8 heads x 128 x 2 B = 135,168.
  o.max_num_seqs = "256";
  const CapacityResult k3 = Plan(o);
  EXPECT_EQ(k3.spec_decode_slots, 6);
  EXPECT_DOUBLE_EQ(k3.kv_bytes_per_token, 135168.0);
  EXPECT_DOUBLE_EQ(k3.spec_lookahead_bytes, 207618048.0);
}

TEST(SpeculativeMemoryTest, NgramHoldsDraftTokensButNoLookahead) {
  DeploymentOptions o;
  o.model = "meta-llama/Llama-3.1-8B-Instruct";
  o.max_num_seqs = "256";
  o.speculative_config = R"({"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4})";
  const CapacityResult r = Plan(o);
  // 3 draft slots x 256 x 131,072 B = 100,663,296 B; no weights.
  EXPECT_DOUBLE_EQ(r.spec_lookahead_bytes, 100663296.0);
  EXPECT_DOUBLE_EQ(r.draft_weights_bytes, 0.0);
}

TEST(SpeculativeMemoryTest, DeepSeekV3MtpLayerAtTp8) {
  DeploymentOptions o;
  o.model = "deepseek-ai/DeepSeek-R1";  // DeepSeek-V3's shapes and FP8 block checkpoint
  o.gpu = "h200";
  o.tensor_parallel_size = 8;
  o.speculative_config = R"({"method": "deepseek_mtp", "num_speculative_tokens": 1})";
  const CapacityResult r = Plan(o);
  // One MTP layer on each of 8 GPUs. FP8 linears: 1 B per weight + an fp32 scale per 128 x 128
  // block of this rank's shard. h 7168, 128 heads, q_lora 1536, kv_lora 512, rope 64, v 128.
  //   q_a [1536, 7168] replicated  11,010,048 + 12 x 56 x 4 = 11,012,736
  //   q_b [24576/8, 1536]           4,718,592 + 24 x 12 x 4 =  4,719,744
  //   kv_a [576, 7168] replicated   4,128,768 +  5 x 56 x 4 =  4,129,888
  //   kv_b [32768/8, 512]           2,097,152 + 32 x 4 x 4  =  2,097,664
  //   o [7168, 16384/8]            14,680,064 + 56 x 16 x 4 = 14,683,648
  //   q_a / kv_a norms (1536 + 512) x 2 = 4,096                 -> attention 36,647,776
  //   input / post-attention norms 2 x 7168 x 2                 = 28,672
  //   router [256, 7168] bf16 3,670,016; e_score_correction_bias fp32 [256] 1,024
  //   256 experts x (gate_up [4096/8, 7168] 3,670,912 + down [7168, 2048/8] 1,835,456)
  //                                                             = 1,409,630,208
  //   shared expert 3,670,912 + 1,835,456                       = 5,506,368
  //   eh_proj [7168, 14336] bf16 replicated 205,520,896 + enorm, hnorm 28,672 = 205,549,568
  //   shared_head norm 14,336 + head [129280/8, 7168] bf16 231,669,760 = 231,684,096
  //   = 1,892,717,728 B. kvsim keeps the correction bias in the model dtype (512 B less).
  EXPECT_NEAR(r.draft_weights_bytes, 1892717728.0, 512.0);
}

// draft_tensor_parallel_size (vllm/config/speculative.py _verify_and_get_draft_tp: 1 or the
// target's TP) sets how the drafter is split. Llama-3.1-8B as the draft of Llama-3.1-70B at TP 4:
// at draft TP 1 each GPU holds all of it, 8,030,261,248 parameters (Meta's card) x 2 B in bf16.
TEST(SpeculativeMemoryTest, DraftTensorParallelSizeSetsTheBytesPerGpu) {
  DeploymentOptions o;
  o.model = "meta-llama/Llama-3.1-70B-Instruct";
  o.gpu = "h100";
  o.tensor_parallel_size = 4;
  o.speculative_config =
      R"({"model": "meta-llama/Llama-3.1-8B-Instruct", "num_speculative_tokens": 4, "draft_tensor_parallel_size": 1})";
  EXPECT_DOUBLE_EQ(Plan(o).draft_weights_bytes, 2.0 * 8030261248);
  o.speculative_config = R"({"model": "meta-llama/Llama-3.1-8B-Instruct", "num_speculative_tokens": 4})";
  const double split = Plan(o).draft_weights_bytes;
  // At the target's TP 4 every sharded tensor is a quarter; only the 65 norms (4,096 each) stay whole.
  EXPECT_NEAR(split, 2.0 * (8030261248.0 - 65 * 4096) / 4 + 2.0 * 65 * 4096, 1e6);
  // The same value spelled out is the default; any other is refused as vLLM refuses it.
  o.speculative_config =
      R"({"model": "meta-llama/Llama-3.1-8B-Instruct", "num_speculative_tokens": 4, "draft_tensor_parallel_size": 4})";
  EXPECT_DOUBLE_EQ(Plan(o).draft_weights_bytes, split);
  o.speculative_config =
      R"({"model": "meta-llama/Llama-3.1-8B-Instruct", "num_speculative_tokens": 4, "draft_tensor_parallel_size": 2})";
  EXPECT_THROW(Plan(o), Error);
}

// "quantization" is the drafter's (SpeculativeConfig builds the draft ModelConfig with it). FP8
// stores Llama-3.1-8B's linear weights at 1 B: 32 layers x (4096 x 6144 qkv + 4096 x 4096 o +
// 3 x 4096 x 14336 MLP) = 6,979,321,856; the embedding and lm_head 2 x 128,256 x 4096 and the norms
// stay bf16 (1,050,939,392 x 2 B); the per-channel scales add at most 0.2%.
TEST(SpeculativeMemoryTest, DraftQuantizationChangesItsWeights) {
  DeploymentOptions o;
  o.model = "meta-llama/Llama-3.1-70B-Instruct";
  o.gpu = "h100";
  o.tensor_parallel_size = 4;
  o.speculative_config = R"({"model": "meta-llama/Llama-3.1-8B-Instruct", "num_speculative_tokens": 4,
                             "draft_tensor_parallel_size": 1, "quantization": "fp8"})";
  const double expected = 6979321856.0 + 2.0 * 1050939392;
  EXPECT_NEAR(Plan(o).draft_weights_bytes, expected, 0.002 * expected);
}

// MTP layers: DeepSeek-V3 ships one (num_nextn_predict_layers 1); Llama has none, and vLLM finds no
// MTP model class for it.
TEST(SpeculativeMemoryTest, MtpNeedsTheModelsMtpLayers) {
  DeploymentOptions o;
  o.speculative_config = R"({"method": "mtp", "num_speculative_tokens": 1})";
  try {
    Plan(o);
    ADD_FAILURE() << "MTP on Llama-3.1-8B was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("meta-llama/Llama-3.1-8B-Instruct (llama) has none"), std::string::npos) << e.what();
  }
  EXPECT_EQ(ResolveModel("deepseek-ai/DeepSeek-V3", DataDirectory(), "--model", "").mtp_layers, 1);
  // Qwen3-Next names none in config.json yet ships one (qwen3_next_mtp.py defaults it to 1).
  EXPECT_EQ(ResolveModel("Qwen/Qwen3-Next-80B-A3B-Thinking", DataDirectory(), "--model", "").mtp_layers, 1);
}

}  // namespace
}  // namespace kvsim
