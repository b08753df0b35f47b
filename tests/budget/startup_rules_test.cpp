// vLLM start-up rules kvsim reproduces, each against vLLM's own rule (vllm-project/vllm,
// v0.11 line) with figures derived by hand from the model configs.
#include <gtest/gtest.h>

#include "kvcache/base/error.h"
#include "kvcache/base/units.h"
#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/deployment.h"
#include "kvcache/budget/serving_engine.h"
#include "kvcache/budget/startup_rules.h"
#include "kvcache/model/model_catalog.h"
#include "kvcache/model/model_config_parser.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

CapacityResult Plan(DeploymentOptions o) {
  const Deployment d = ResolveDeployment(o, DataDirectory());
  return PlanCapacity(d.model, d.gpu, d.config);
}

DeploymentOptions Llama8b() {
  DeploymentOptions o;
  o.model = "meta-llama/Llama-3.1-8B-Instruct";
  o.gpu = "a100-80gb";
  return o;
}

// Llama8b with a pool of `blocks` (--num-gpu-blocks-override) and a max_model_len.
DeploymentOptions Llama8bPool(const char* blocks, const char* max_model_len) {
  DeploymentOptions o = Llama8b();
  o.num_gpu_blocks_override = blocks;
  o.max_model_len = max_model_len;
  return o;
}

// kv_cache_utils.get_num_blocks: the override replaces the profiled number.
TEST(StartupRulesTest, NumGpuBlocksOverrideSetsThePool) {
  DeploymentOptions o = Llama8b();
  o.vllm_version = "0.24";  // an exact pool still starts before PR #47272 (0.25)
  o.num_gpu_blocks_override = "100";
  o.max_model_len = "1600";  // 100 blocks x 16 tokens: exactly one request
  const CapacityResult r = Plan(o);
  EXPECT_TRUE(r.does_not_fit.empty()) << r.does_not_fit;
  EXPECT_EQ(r.num_gpu_blocks, 100);
  EXPECT_EQ(r.gpu_kv_cache_tokens, 1600);
  EXPECT_DOUBLE_EQ(r.max_concurrency, 1.0);
  o.max_model_len = "1601";  // one token more needs a 101st block: vLLM refuses to start
  EXPECT_FALSE(Plan(o).does_not_fit.empty());
}

// kv_cache_utils.estimate_max_model_len: the largest length whose blocks fit (binary search).
TEST(StartupRulesTest, MaxModelLenAutoIsTheLongestRequestThatFits) {
  DeploymentOptions o = Llama8b();
  o.num_gpu_blocks_override = "100";
  o.max_model_len = "auto";
  const CapacityResult r = Plan(o);
  EXPECT_EQ(r.settings.max_model_len, 1600);  // ceil(L / 16) <= 100
  o.max_model_len = "-1";
  EXPECT_EQ(Plan(o).settings.max_model_len, 1600);
}

// kv_cache_utils.check_enough_kv_cache_memory runs with --kv-cache-memory too: a 1,000-byte pool
// holds 0 blocks (a page of Llama-3.1-8B is 16 x 2 x 8 x 128 x 2 B = 65,536 B per layer).
TEST(StartupRulesTest, TinyKvCacheMemoryDoesNotStart) {
  DeploymentOptions o = Llama8b();
  o.kv_cache_memory = "1000";
  const CapacityResult r = Plan(o);
  EXPECT_EQ(r.num_gpu_blocks, 0);
  EXPECT_FALSE(r.does_not_fit.empty());
  const auto cli = testing::RunCli({"capacity", "--kv-cache-memory", "1000"});
  EXPECT_EQ(cli.exit_code, 2) << cli.out;
}

// --cpu-offload-gb is per GPU (CacheConfig.cpu_offload_gb): the weights on the GPU shrink by what it
// moves and the KV cache grows by the same bytes. vLLM moves whole parameters while the bytes moved
// are below the budget (maybe_offload_to_cpu). Llama-3.1-8B, bf16, a layer in kvsim's order: norms
// 16,384 B, q 33,554,432, k 8,388,608, v 8,388,608, o 33,554,432, gate_up 234,881,024, down
// 117,440,512: 436,224,000 B. 10 GiB (10,737,418,240 B) takes 24 layers (10,469,376,000), then layer
// 24's norms, q, k, v and o (10,553,278,464, below) and gate_up, which passes it: 10,788,159,488 B.
TEST(StartupRulesTest, CpuOffloadMovesWeightBytesToTheKvCache) {
  DeploymentOptions o = Llama8b();
  o.max_model_len = "8192";
  const CapacityResult base = Plan(o);
  o.cpu_offload_gb = "10";
  const CapacityResult off = Plan(o);
  EXPECT_NEAR(base.weights_bytes - off.weights_bytes, 10788159488.0, 1.0);
  EXPECT_NEAR(off.kv_cache_bytes - base.kv_cache_bytes, 10788159488.0, 1.0);
}

// The routed experts are split over TP x DP ranks with or without expert parallelism (vLLM's
// FusedMoEParallelConfig.make folds DP into the MoE's TP size, flatten_tp_across_dp): whole experts
// per rank with EP, a 1/(TP x DP) slice of each without. Qwen3-30B-A3B (config.json: 48 layers, 128
// experts, moe_intermediate_size 768, hidden_size 2048): 48 x 128 x 3 x 768 x 2048 =
// 28,991,029,248 expert weights, 57,982,058,496 bytes in bf16. TP1 DP2 keeps half per GPU,
// 28,991,029,248 bytes fewer than TP1 DP1, with EP or without; the dense layers stay whole.
TEST(StartupRulesTest, DataParallelShardsExpertsWithOrWithoutExpertParallel) {
  DeploymentOptions o;
  o.model = "Qwen/Qwen3-30B-A3B";
  o.gpu = "h100";
  o.max_model_len = "8192";
  const CapacityResult one = Plan(o);
  o.data_parallel_size = 2;
  const CapacityResult dp = Plan(o);
  EXPECT_DOUBLE_EQ(one.weights_bytes - dp.weights_bytes, 28991029248.0);
  o.enable_expert_parallel = true;
  const CapacityResult ep = Plan(o);
  EXPECT_DOUBLE_EQ(one.weights_bytes - ep.weights_bytes, 28991029248.0);
}

// TP2 DP2 without EP: the MoE's TP size is 4 (768 / 4 = 192 columns of each expert per GPU), so a
// GPU holds 57,982,058,496 / 4 = 14,495,514,624 expert bytes against 57,982,058,496 / 2 =
// 28,991,029,248 at TP2 DP1: 14,495,514,624 bytes fewer. Everything else is TP2's split either way.
TEST(StartupRulesTest, TensorAndDataParallelShardExpertsOverFourRanks) {
  DeploymentOptions o;
  o.model = "Qwen/Qwen3-30B-A3B";
  o.gpu = "h100";
  o.max_model_len = "8192";
  o.tensor_parallel_size = 2;
  const CapacityResult tp2 = Plan(o);
  o.data_parallel_size = 2;
  const CapacityResult tp2dp2 = Plan(o);
  EXPECT_DOUBLE_EQ(tp2.weights_bytes - tp2dp2.weights_bytes, 14495514624.0);
  // More free memory per GPU goes to the KV cache.
  EXPECT_GT(tp2dp2.kv_cache_bytes, tp2.kv_cache_bytes);
}

// --disable-sliding-window: Gemma-2-9B (sliding_window 4096, max_position_embeddings 8192) runs all
// layers at full length and vLLM caps max_model_len at the window (ModelConfig._get_and_verify_max_len).
TEST(StartupRulesTest, DisableSlidingWindowCapsContextAtTheWindow) {
  DeploymentOptions o;
  o.model = "google/gemma-2-9b-it";
  o.gpu = "h100";
  const CapacityResult hybrid = Plan(o);
  EXPECT_EQ(hybrid.settings.max_model_len, 8192);
  o.disable_sliding_window = true;
  const CapacityResult full = Plan(o);
  EXPECT_EQ(full.settings.max_model_len, 4096);
  ASSERT_EQ(full.stages[0].layout.groups.size(), 1u);
  EXPECT_EQ(full.stages[0].layout.groups[0].kind, AttentionKind::kFull);
}

// A draft model of the same shape adds its weights and its layers to the same KV pool: Llama-3.1-8B
// drafting for itself doubles the per-token KV (32 + 32 layers x 2 x 8 x 128 x 2 B = 262,144 B).
TEST(StartupRulesTest, SpeculativeDraftAddsWeightsAndKvLayers) {
  DeploymentOptions o = Llama8b();
  o.max_model_len = "8192";
  const CapacityResult base = Plan(o);
  o.speculative_config = R"({"model": "meta-llama/Llama-3.1-8B-Instruct", "num_speculative_tokens": 3})";
  const CapacityResult spec = Plan(o);
  EXPECT_DOUBLE_EQ(spec.kv_bytes_per_token, 262144.0);
  EXPECT_NEAR(spec.weights_bytes, 2 * base.weights_bytes - base.stages[0].weights.rope_cache_bytes, 1.0);
  o.speculative_config = R"({"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4})";
  EXPECT_DOUBLE_EQ(Plan(o).kv_bytes_per_token, 131072.0);  // n-gram drafting needs no weights, no KV
}

// Newer Hugging Face configs spell RoPE scaling `rope_parameters`; vLLM reads both. YaRN x4 over
// 32,768 original positions gives 131,072.
TEST(StartupRulesTest, RopeParametersSpellingStretchesTheContext) {
  const testing::TempDir dir;
  const std::string path = dir.Write("config.json", R"({"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3",
    "hidden_size": 1024, "num_hidden_layers": 2, "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
    "intermediate_size": 3072, "vocab_size": 151936, "max_position_embeddings": 40960, "torch_dtype": "bfloat16",
    "rope_parameters": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768, "rope_theta": 1000000}})");
  EXPECT_EQ(LoadModelConfigFile(path).derived_max_model_len, 131072);
}

// Llama-4 Scout FP8 (RedHatAI FP8-dynamic: every Linear, experts included, stored in 1 byte) on two
// H100s, as vLLM serves it: 36 chunked-local layers in 3 groups of 12 beside the 12 full layers, so
// a 32,768-token context fits with room for several requests.
TEST(StartupRulesTest, LlamaFourScoutFp8FitsOnTwoH100) {
  DeploymentOptions o;
  o.model = "RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic";
  o.gpu = "h100";
  o.tensor_parallel_size = 2;
  o.max_model_len = "32768";
  const CapacityResult r = Plan(o);
  EXPECT_TRUE(r.does_not_fit.empty()) << r.does_not_fit;
  // 108.6e9 parameters, ~1 byte each, over 2 GPUs: well under the 71.2 GiB an H100 reserves.
  EXPECT_LT(r.weights_bytes, GiBToBytes(60));
  const KvCacheLayout& l = r.stages[0].layout;
  ASSERT_EQ(l.groups.size(), 4u);
  int chunked = 0;
  for (const auto& g : l.groups) chunked += g.kind == AttentionKind::kChunkedLocal && g.window_tokens == 8192;
  EXPECT_EQ(chunked, 3);
  EXPECT_GT(r.max_concurrency, 1.0);
}

// The null block (vllm/v1/core/block_pool.py, v0.8 - v0.11: BlockPool.__init__ pops block 0 as
// null_block). vLLM's own test_get_max_concurrency_for_kv_cache_config (tests/v1/core/
// test_kv_cache_utils.py) divides the whole pool: 1,536 blocks / (16,384 / 16 = 1,024 blocks per
// request) = 1.5x, so the logged figures count the null block; requests share 1,536 - 1 = 1,535.
// "GPU KV cache size" on 0.19 is 1,536 // 1 group x 16 = 24,576 tokens.
TEST(StartupRulesTest, NullBlockIsLoggedButNeverHeldByARequest) {
  DeploymentOptions o = Llama8bPool("1536", "16384");
  const CapacityResult v1 = Plan(o);
  EXPECT_EQ(v1.num_gpu_blocks, 1536);
  EXPECT_EQ(v1.usable_gpu_blocks, 1535);
  EXPECT_DOUBLE_EQ(v1.max_concurrency, 1.5);
  EXPECT_EQ(v1.gpu_kv_cache_tokens, 24576);
  // V0 (0.6.4) takes a null block only when a sliding window drops blocks
  // (vllm/core/block/block_table.py append_token_ids): none for Llama, one for Gemma-2.
  o.vllm_version = "0.6.4";
  EXPECT_EQ(Plan(o).usable_gpu_blocks, 1536);
  o.model = "google/gemma-2-9b-it";
  o.max_model_len = "8192";
  EXPECT_EQ(Plan(o).usable_gpu_blocks, 1535);
}

// vLLM's start-up check compares bytes (kv_cache_utils._check_enough_kv_cache_memory), so 100 blocks
// of 16 tokens pass for max_model_len 1,600 (cdiv(1600, 16) = 100 blocks); with block 0 kept back
// only 99 are usable and that request can never be scheduled (vLLM PR #26939 describes this case).
TEST(StartupRulesTest, NullBlockLeavesAnExactPoolOneBlockShort) {
  DeploymentOptions o = Llama8bPool("100", "1600");
  o.vllm_version = "0.24";  // from 0.25 (PR #47272) vLLM refuses this pool instead
  const CapacityResult r = Plan(o);
  EXPECT_TRUE(r.does_not_fit.empty());
  EXPECT_EQ(r.usable_gpu_blocks, 99);
  bool noted = false;
  for (const std::string& n : r.notes) noted = noted || n.find("null block") != std::string::npos;
  EXPECT_TRUE(noted);
  o.max_model_len = "1584";  // 99 blocks: fits the usable pool, no note
  for (const std::string& n : Plan(o).notes) EXPECT_EQ(n.find("null block"), std::string::npos) << n;
}

// Speculative decoding's KV slots per decoding request (vllm/v1/core/sched/scheduler.py, v0.11:
// num_new_tokens = 1 + k drafts, num_lookahead_tokens = k when SpeculativeConfig.use_eagle() or
// uses_draft_model(), else 0; vllm/v1/core/kv_cache_manager.py allocate_slots caps the slots at
// max_model_len). V0 (vllm/core/scheduler.py, v0.6) appends num_lookahead_slots = k per decode step.
TEST(StartupRulesTest, SpeculativeDecodeSlotsPerMethodAndEra) {
  SpeculativeSettings s;
  EXPECT_EQ(SpeculativeDecodeSlots(s, VllmEra::kV1), 0);
  s.num_speculative_tokens = 3;
  s.method = "eagle3";
  EXPECT_EQ(SpeculativeDecodeSlots(s, VllmEra::kV1), 6);      // 3 drafts + 3 lookahead
  s.method = "deepseek_mtp";
  EXPECT_EQ(SpeculativeDecodeSlots(s, VllmEra::kV1Sort), 6);
  s.method = "ngram";
  EXPECT_EQ(SpeculativeDecodeSlots(s, VllmEra::kV1), 3);      // drafts only: n-gram proposals hold no KV
  s.method = "eagle";
  EXPECT_EQ(SpeculativeDecodeSlots(s, VllmEra::kV0), 3);      // v0: the lookahead slots are the drafts
}

// The slots make shorter requests take more blocks; a max_model_len request does not grow (the cap).
// 1,536 blocks (1,535 usable), max_model_len 16,384, block 16, n-gram with k = 4:
//   1,024-token requests hold 1,028 slots -> cdiv(1028, 16) = 65 blocks -> 1,535 / 65 = 23.6154
//   without speculative decoding 64 blocks -> 1,535 / 64 = 23.984375
//   16,384 tokens: min(16,388, 16,384) -> 1,024 blocks -> 1,535 / 1,024; logged max concurrency 1.5
TEST(StartupRulesTest, SpeculativeSlotsInConcurrencyBelowMaxModelLen) {
  DeploymentOptions o = Llama8bPool("1536", "16384");
  const CapacityResult plain = Plan(o);
  ASSERT_FALSE(plain.concurrency_at.empty());
  EXPECT_EQ(plain.concurrency_at[0].first, 1024);
  EXPECT_DOUBLE_EQ(plain.concurrency_at[0].second, 1535.0 / 64.0);
  o.speculative_config = R"({"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4})";
  const CapacityResult spec = Plan(o);
  EXPECT_EQ(spec.spec_decode_slots, 4);
  EXPECT_DOUBLE_EQ(spec.concurrency_at[0].second, 1535.0 / 65.0);
  EXPECT_DOUBLE_EQ(ConcurrencyAt(spec, 16384), 1535.0 / 1024.0);
  EXPECT_DOUBLE_EQ(spec.max_concurrency, 1.5);
}

// A drafter of another page size (vllm/v1/core/kv_cache_utils.py, v0.11: get_kv_cache_groups ->
// UniformTypeKVCacheSpecs when every layer is full attention; get_kv_cache_config_from_groups:
// num_blocks = available // the sum of the layers' pages). Llama-3.1-8B (32 layers, page 16 x 2 x 8 x
// 128 x 2 = 65,536 B) drafted by Llama-2-7B (32 layers, page 16 x 2 x 32 x 128 x 2 = 262,144 B): a
// block is 32 x 65,536 + 32 x 262,144 = 10,485,760 B, so 10 GiB = 10,737,418,240 B hold exactly 1,024
// blocks; 131,072 + 524,288 = 655,360 B per token; 8,192 tokens = 512 blocks -> 2.0x.
TEST(StartupRulesTest, DrafterOfAnotherPageSizeSharesOneGroup) {
  DeploymentOptions o = Llama8b();
  o.kv_cache_memory = "10GiB";
  o.max_model_len = "8192";
  o.speculative_config = R"({"model": "meta-llama/Llama-2-7b-hf", "num_speculative_tokens": 4})";
  const CapacityResult r = Plan(o);
  EXPECT_DOUBLE_EQ(r.kv_bytes_per_token, 655360.0);
  EXPECT_EQ(r.stages[0].layout.block_bytes, 10485760);
  EXPECT_EQ(r.num_gpu_blocks, 1024);
  EXPECT_DOUBLE_EQ(r.max_concurrency, 2.0);
}

// A drafter of the same page size regroups a hybrid target: vLLM's own example in
// kv_cache_utils._get_kv_cache_groups_uniform_page_size (v0.11) is gpt-oss-20b + EAGLE, 12 sliding +
// 13 full layers, padded to two groups of 13 (13 < 1.5 x 12). gpt-oss pages: 16 x 2 x 8 x 64 x 2 =
// 32,768 B, so a block is 13 x 32,768 = 425,984 B (12 x 32,768 = 393,216 without the drafter).
TEST(StartupRulesTest, SamePageDrafterRegroupsAHybridTarget) {
  const ModelSpec gptoss = LoadModelConfigFile(testing::SharedPath("models/openai__gpt-oss-20b.json"));
  const KvCacheFormat f = ParseKvCacheFormat("auto", gptoss, gptoss.dtype);
  KvCacheLayout layout = BuildKvCacheLayout(gptoss, f, 1, 0, gptoss.num_layers, 16, KvGrouping::kHybrid);
  ASSERT_EQ(layout.group_size, 12);
  EXPECT_EQ(layout.block_bytes, 393216);
  const ModelSpec eagle = testing::SpecFromJson(R"({"architectures":["LlamaForCausalLM"],"model_type":"llama",
    "hidden_size":2880,"intermediate_size":8192,"num_hidden_layers":1,"num_attention_heads":64,
    "num_key_value_heads":8,"head_dim":64,"vocab_size":201088,"max_position_embeddings":131072,
    "torch_dtype":"bfloat16"})");
  const KvCacheLayout draft = BuildKvCacheLayout(eagle, f, 1, 0, 1, 16, KvGrouping::kSingleGroup);
  ASSERT_TRUE(AddDraftKvLayers(layout, draft));
  EXPECT_EQ(layout.group_size, 13);
  EXPECT_EQ(layout.groups.size(), 2u);
  EXPECT_EQ(layout.padding_layers, 1);
  EXPECT_EQ(layout.block_bytes, 425984);
  EXPECT_EQ(layout.num_attention_layers, 25);
}

}  // namespace
}  // namespace kvsim
