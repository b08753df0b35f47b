// KV bytes per token and vLLM's hybrid grouping, against the articles' worked examples and
// figures derived by hand from vLLM's kv_cache_interface / kv_cache_utils rules.
#include <gtest/gtest.h>

#include "kvcache/base/error.h"
#include "kvcache/budget/kv_cache_layout.h"
#include "kvcache/model/model_catalog.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::LlamaConfig;
using testing::SharedModel;
using testing::SpecFromJson;

KvCacheLayout Layout(const ModelSpec& spec, int tp = 1, const std::string& kv = "auto",
                     KvGrouping grouping = KvGrouping::kHybrid) {
  const KvCacheFormat f = ParseKvCacheFormat(kv, spec, spec.dtype);
  return BuildKvCacheLayout(spec, f, tp, 0, spec.num_layers, 16, grouping);
}

// Article 000: KV = 4·b·l·h·(s+n) bytes in fp16; GPT-3 (96 layers, h 12288) and Llama3-8B (GQA,
// 8 × 128 = 1024 wide K and V), b = 64, s = 512, n = 32.
TEST(KvCacheLayoutTest, Article000WorkedExamples) {
  const ModelSpec gpt3 = SpecFromJson(LlamaConfig(12288, 49152, 96, 96, 96, 50257));
  EXPECT_DOUBLE_EQ(Layout(gpt3).bytes_per_token * 64 * (512 + 32), 164282499072.0);
  const ModelSpec llama3 = SharedModel("meta-llama__Meta-Llama-3.1-8B.json");
  EXPECT_DOUBLE_EQ(Layout(llama3).bytes_per_token * 64 * (512 + 32), 4563402752.0);
}

// Article 003: 4·s·L·h·d_h; LLaMA-7B at 1k tokens is 0.5 GiB (its table prints 0.25: off by 2×).
TEST(KvCacheLayoutTest, Article003FormulaNotItsTable) {
  const ModelSpec llama7b = SpecFromJson(LlamaConfig(4096, 11008, 32, 32, 32, 32000));
  EXPECT_DOUBLE_EQ(Layout(llama7b).bytes_per_token * 1024, 4.0 * 1024 * 32 * 32 * 128);
  EXPECT_DOUBLE_EQ(Layout(llama7b).bytes_per_token * 1024 / (1024.0 * 1024 * 1024), 0.5);
}

// serving-memory-facts §1.9 / §8: Llama-3-8B 131,072 B/token; 70B 327,680 and 81,920 at TP=4;
// heads replicate once TP exceeds them; OPT-13B 800 KB; fp8 halves.
TEST(KvCacheLayoutTest, BytesPerTokenUnderTensorParallelism) {
  EXPECT_DOUBLE_EQ(Layout(SharedModel("meta-llama__Llama-3.1-8B-Instruct.json")).bytes_per_token, 131072);
  const ModelSpec l70 = SharedModel("meta-llama__Llama-3.1-70B-Instruct.json");
  EXPECT_DOUBLE_EQ(Layout(l70).bytes_per_token, 327680);
  EXPECT_DOUBLE_EQ(Layout(l70, 4).bytes_per_token, 81920);
  EXPECT_DOUBLE_EQ(Layout(l70, 16).bytes_per_token, 40960);  // 8 kv heads, 16 ranks: one replicated head each
  EXPECT_DOUBLE_EQ(Layout(l70, 4, "fp8").bytes_per_token, 40960);
  const ModelSpec opt13b = SpecFromJson(LlamaConfig(5120, 20480, 40, 40, 40, 50272));
  EXPECT_DOUBLE_EQ(Layout(opt13b).bytes_per_token, 819200);  // "800 KB" in the vLLM paper
  EXPECT_EQ(Layout(l70).page_bytes, 16 * 8 * 128 * 2 * 2);
}

// MLA: one latent of kv_lora_rank + rope dims per layer, no ×2, same on every rank.
// DeepSeek-V3 (61 layers): 70,272 B/token; V2-Lite (27 layers): 31,104.
TEST(KvCacheLayoutTest, MlaLatentIsNotSplitByTensorParallelism) {
  const ModelSpec lite = SharedModel("deepseek-ai__DeepSeek-V2-Lite.json");
  EXPECT_DOUBLE_EQ(Layout(lite).bytes_per_token, 27 * 576 * 2);
  EXPECT_DOUBLE_EQ(Layout(lite, 8).bytes_per_token, 27 * 576 * 2);
  const ModelSpec v3 = SpecFromJson(R"({"architectures":["DeepseekV3ForCausalLM"],"model_type":"deepseek_v3",
    "hidden_size":7168,"intermediate_size":18432,"moe_intermediate_size":2048,"num_hidden_layers":61,
    "num_attention_heads":128,"num_key_value_heads":128,"n_routed_experts":256,"n_shared_experts":1,
    "num_experts_per_tok":8,"first_k_dense_replace":3,"kv_lora_rank":512,"q_lora_rank":1536,
    "qk_nope_head_dim":128,"qk_rope_head_dim":64,"v_head_dim":128,"vocab_size":129280,
    "max_position_embeddings":163840,"topk_method":"noaux_tc","torch_dtype":"bfloat16"})");
  EXPECT_DOUBLE_EQ(Layout(v3).bytes_per_token, 70272);
  // DeepSeek-V3.2 defaults to vLLM's fp8_ds_mla layout: 656 bytes per token and layer (512 fp8 latent,
  // 4 fp32 scales, 64 bf16 RoPE values), plus its indexer's key cache: DeepseekV32IndexerCache registers
  // head_size index_head_dim + index_head_dim // 128 * 4 = 128 + 4 bytes (vllm/model_executor/models/
  // deepseek_v2.py, v0.11).
  EXPECT_DOUBLE_EQ(Layout(SharedModel("deepseek-ai__DeepSeek-V3.2-Exp-16L64E.json")).bytes_per_token, 16 * (656 + 132));
}

// vLLM groups layers by attention type: gpt-oss 12 sliding + 12 full -> 2 groups of 12;
// Llama-4-Scout 36 chunked + 12 full -> groups of 12 (3 chunked, 1 full); a block id then costs
// page × 12. Without the hybrid manager every layer is one full-attention group.
TEST(KvCacheLayoutTest, HybridGroupsFollowVllm) {
  const KvCacheLayout oss = Layout(SharedModel("openai__gpt-oss-20b.json"));
  EXPECT_EQ(oss.group_size, 12);
  EXPECT_EQ(oss.groups.size(), 2u);
  const KvCacheLayout scout = Layout(SharedModel("meta-llama__Llama-4-Scout-17B-16E-Instruct.json"), 4);
  EXPECT_EQ(scout.group_size, 12);
  EXPECT_EQ(scout.groups.size(), 4u);
  EXPECT_EQ(scout.block_bytes, 16 * 2 * 128 * 2 * 2 * 12);
  // vLLM logged 44.68x for 91,495 blocks at 8192 tokens: 4 groups × 512 pages each.
  EXPECT_EQ(scout.PagesPerRequest(8192, 8192), 2048);
  EXPECT_NEAR(91495.0 / static_cast<double>(scout.PagesPerRequest(8192, 8192)), 44.68, 0.005);
  const KvCacheLayout flat = Layout(SharedModel("openai__gpt-oss-20b.json"), 1, "auto", KvGrouping::kSingleGroup);
  EXPECT_EQ(flat.groups.size(), 1u);
  EXPECT_EQ(flat.group_size, 24);
}

// Sliding-window pages per request: cdiv(min(W − 1 + T, L), B) + 1 (vLLM SlidingWindowSpec).
TEST(KvCacheLayoutTest, SlidingWindowRequestNeedsOnlyItsWindow) {
  const ModelSpec mistral = SpecFromJson(R"({"model_type":"mistral","hidden_size":4096,"intermediate_size":14336,
    "num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"vocab_size":32000,
    "max_position_embeddings":32768,"sliding_window":4096})");
  const KvCacheLayout layout = Layout(mistral);
  EXPECT_EQ(layout.PagesPerRequest(32768, 2048), (4096 - 1 + 2048 + 15) / 16 + 1);
  EXPECT_EQ(layout.PagesPerRequest(1000, 2048), (1000 + 15) / 16 + 1);
}

// Cross-layer KV sharing (vllm/model_executor/models/gemma3n.py, v0.10 - v0.11: the last
// num_kv_shared_layers layers set kv_sharing_target_layer_name; vllm/v1/worker/gpu_model_runner.py
// get_kv_cache_spec gives such layers no KV spec). Gemma-3n-E2B's text shapes: 30 layers, 2 KV heads
// of 256, bf16 -> 2 x 2 x 256 x 2 = 2,048 B per token and layer; 4 sliding + 1 full repeated; the
// last 10 share. Own KV: layers 0-19 = 16 sliding + 4 full -> 20 x 2,048 = 40,960 B per token
// (61,440 without sharing); groups of min(16, 4) = 4 layers: 4 sliding groups + 1 full group, a
// block 4 x 16 x 2,048 = 131,072 B.
TEST(KvCacheLayoutTest, KvSharedLayersTakeNoPages) {
  std::string types;
  for (int i = 0; i < 30; ++i) types += std::string(i ? "," : "") + ((i + 1) % 5 == 0 ? "\"full_attention\"" : "\"sliding_attention\"");
  const std::string head = R"({"architectures":["Gemma3nForCausalLM"],"model_type":"gemma3n_text","hidden_size":2048,
    "intermediate_size":8192,"num_hidden_layers":30,"num_attention_heads":8,"num_key_value_heads":2,"head_dim":256,
    "vocab_size":262400,"max_position_embeddings":32768,"sliding_window":512,"torch_dtype":"bfloat16",
    "layer_types":[)" + types + "]";
  const ModelSpec plain = SpecFromJson(head + "}");
  EXPECT_DOUBLE_EQ(Layout(plain).bytes_per_token, 61440);
  const ModelSpec shared = SpecFromJson(head + R"(,"num_kv_shared_layers":10})");
  EXPECT_EQ(shared.kv_layers(), 20);
  EXPECT_TRUE(shared.layers[20].shares_kv);
  EXPECT_FALSE(shared.layers[19].shares_kv);
  const KvCacheLayout layout = Layout(shared);
  EXPECT_DOUBLE_EQ(layout.bytes_per_token, 40960);
  EXPECT_EQ(layout.group_size, 4);
  EXPECT_EQ(layout.groups.size(), 5u);
  EXPECT_EQ(layout.block_bytes, 131072);
  for (const std::string& note : shared.notes)  // shared layers still attend: they are not SSM layers
    EXPECT_EQ(note.find("linear-attention"), std::string::npos) << note;
  EXPECT_EQ(shared.attention_layers(), 30);
  EXPECT_THROW(SpecFromJson(head + R"(,"num_kv_shared_layers":30})"), Error);
}

// Linear-attention / SSM layers, against vLLM's rule (model_executor/models/config.py
// HybridAttentionMambaModelConfig.verify_and_update_config, v0.11: block = 16 x ceil(state page /
// (16 x attention bytes per token and layer)); the state page padded to the attention page) and the
// block sizes real vLLM runs printed.
// Qwen3-Next-80B-A3B (36 Gated DeltaNet + 12 full-attention layers): state = conv 3 x (2 x 16 x 128 +
// 32 x 128) x 2 B + temporal 32 x 128 x 128 x 2 B = 49,152 + 1,048,576 = 1,097,728 B; attention
// 2 x 2 x 256 x 2 = 2,048 B per token and layer, so 16 x ceil(33.5) = 544 tokens (vllm#25811 shows
// 544 tokens per page), a 1,114,112 B page (state padded by 1.49%); 4 groups of 12 layers; a request
// of 262,144 tokens needs ceil(262144 / 544) = 482 attention pages + 1 state page per state group.
// TP 4: 1 KV head (replicated), state 12,288 + 262,144 = 274,432 B, 16 x ceil(16.75) = 272 tokens.
TEST(KvCacheLayoutTest, GatedDeltaNetStatePagesSetTheBlockSize) {
  const ModelSpec next = ResolveModel("Qwen/Qwen3-Next-80B-A3B-Thinking", DataDirectory());
  const KvCacheFormat f = ParseKvCacheFormat("auto", next, next.dtype);
  EXPECT_EQ(StatePageBytes(next, f, 1), 1097728);
  EXPECT_EQ(HybridStateBlockSize(next, f, 1), 544);
  const KvCacheLayout l = BuildKvCacheLayout(next, f, 1, 0, next.num_layers, 544, KvGrouping::kHybrid);
  EXPECT_EQ(l.page_bytes, 1114112);
  EXPECT_EQ(l.state_page_bytes, 1097728);
  EXPECT_EQ(l.group_size, 12);
  EXPECT_EQ(l.groups.size(), 4u);
  EXPECT_EQ(l.block_bytes, 1114112 * 12);
  EXPECT_EQ(l.PagesPerRequest(262144, 8192), 482 + 3);
  EXPECT_EQ(StatePageBytes(next, f, 4), 274432);
  EXPECT_EQ(HybridStateBlockSize(next, f, 4), 272);
  // --mamba-ssm-cache-dtype float32 (vLLM: the temporal state alone): 49,152 + 32 x 128 x 128 x 4 =
  // 2,146,304 B, 16 x ceil(65.5) = 1,056 tokens; an unknown name is an error naming the flag.
  KvCacheFormat fp32_ssm = f;
  ApplyStateDtypes("auto", "float32", fp32_ssm);
  EXPECT_EQ(StatePageBytes(next, fp32_ssm, 1), 2146304);
  EXPECT_EQ(HybridStateBlockSize(next, fp32_ssm, 1), 1056);
  EXPECT_THROW(ApplyStateDtypes("int3", "auto", fp32_ssm), Error);
  // Without the hybrid manager the states are left out, as before.
  EXPECT_EQ(BuildKvCacheLayout(next, f, 1, 0, next.num_layers, 16, KvGrouping::kSingleGroup).state_page_bytes, 0);
}

// Mamba2 (Granite-4.0-H-Small's shapes: hidden 4096, 128 heads x 64, d_state 128, 1 group, conv 4,
// expand 2; 8 KV heads x 128): conv 3 x (8192 + 2 x 128) x 2 = 50,688 B, SSM 128 x 64 x 128 x 2 =
// 2,097,152 B; attention 4,096 B per token, so 16 x ceil(32.77) = 528 tokens, as vllm-gaudi PR #1564
// logs for granite-4.0-h. Nemotron-Nano-9B-v2 (128 heads x 80, d_state 128, 8 groups, inner heads x
// head_dim = 10,240): conv 3 x 12,288 x 2 = 73,728, SSM 2,621,440, 16 x ceil(41.1) = 672 tokens,
// the block vllm#24280 printed.
TEST(KvCacheLayoutTest, MambaTwoStatePagesSetTheBlockSize) {
  const ModelSpec granite = SpecFromJson(R"({"architectures":["GraniteMoeHybridForCausalLM"],"model_type":"granitemoehybrid",
    "hidden_size":4096,"intermediate_size":512,"num_hidden_layers":8,"num_attention_heads":32,"num_key_value_heads":8,
    "vocab_size":100352,"max_position_embeddings":131072,"torch_dtype":"bfloat16",
    "layer_types":["mamba","mamba","mamba","attention","mamba","mamba","mamba","attention"],
    "mamba_n_heads":128,"mamba_d_head":64,"mamba_d_state":128,"mamba_n_groups":1,"mamba_d_conv":4,"mamba_expand":2})");
  const KvCacheFormat f = ParseKvCacheFormat("auto", granite, granite.dtype);
  EXPECT_EQ(StatePageBytes(granite, f, 1), 50688 + 2097152);
  EXPECT_EQ(HybridStateBlockSize(granite, f, 1), 528);
  // TP 2: one group cannot be split, so it is replicated to 2: conv 3 x (8192 + 2 x 2 x 128) / 2 x 2.
  EXPECT_EQ(StatePageBytes(granite, f, 2), 3 * (8192 + 512) / 2 * 2 + 64 * 64 * 128 * 2);
  ModelSpec nemotron = granite;
  nemotron.num_kv_heads = 8;
  nemotron.head_dim = 128;
  nemotron.state = StateLayerSpec{StateLayerFormula::kMamba2, 4, 0, 128, 128, 80, 8, 128 * 80};
  EXPECT_EQ(StatePageBytes(nemotron, f, 1), 73728 + 2621440);
  EXPECT_EQ(HybridStateBlockSize(nemotron, f, 1), 672);
}

}  // namespace
}  // namespace kvsim
