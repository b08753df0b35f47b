// Prefill/decode disaggregation with host KV tiers on both pools, MTP and LoRA in one replay
// (sim/disagg/disagg_runner.h), checked term by term on three requests derived by hand, and the
// combinations still refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/testutil.h"

namespace kvsim {
namespace {

// MiMo-7B (XiaomiMiMo/MiMo-7B-RL config.json on Hugging Face): a dense Qwen2-style model with one
// multi-token-prediction layer, which vLLM runs as the "mtp" drafter (mimo_mtp.py). Its layers are
// Qwen2's (vllm/model_executor/models/mimo.py builds on qwen2.py), which --hf-overrides tells kvsim.
constexpr const char* kMimo7b = R"({
  "architectures": ["MiMoForCausalLM"], "model_type": "mimo", "hidden_act": "silu",
  "hidden_size": 4096, "intermediate_size": 11008, "num_attention_heads": 32, "num_key_value_heads": 8,
  "num_hidden_layers": 36, "num_nextn_predict_layers": 1, "max_position_embeddings": 32768,
  "vocab_size": 151680, "tie_word_embeddings": false, "torch_dtype": "bfloat16", "attention_bias": true,
  "rms_norm_eps": 1e-05, "rope_theta": 640000, "use_sliding_window": false
})";

// The deployment of every case below: MiMo-7B on H100s, 1 prefill and 1 decode instance, TP 1 each,
// 400 usable KV blocks of 16 tokens per instance (max-model-len 6,400 fills them), steps fixed at 10 ms, a 10 GB/s link with 5 µs per
// transfer and a pushing connector (--kv-connector push: the decode worker posts no read, so the link's
// time stands alone; NixlConnector's post is timed in tests/sim/disagg/nixl_post_test.cpp), a 4 GiB host tier on every instance, one LoRA slot of rank 8 with every request on
// adapter 1, and MTP with one draft token, always accepted.
std::string Trace() {
  return testing::MooncakeRow(0, 4096, 5, 1, 8) + testing::MooncakeRow(1000, 3200, 1, 101, 7) +
         testing::MooncakeRow(1000, 3200, 1, 201, 7) + testing::MooncakeRow(2000, 4608, 5, 1, 9);
}

std::vector<std::string> Combined(const testing::TempDir& dir, const std::string& trace) {
  return {"--trace", trace, "--model", dir.Write("mimo.json", kMimo7b), "--hf-overrides", R"({"model_type": "qwen2"})",
          "--gpu", "h100", "--num-gpu-blocks-override", "401", "--max-model-len", "6400", "--max-num-batched-tokens", "8192", "--step-time-ms", "10",
          "--prefill-replicas", "1", "--decode-replicas", "1", "--kv-link", "10,5", "--kv-connector", "push", "--kv-offload", "cpu=4GiB",
          "--enable-lora", "--max-loras", "1", "--max-lora-rank", "8", "--adapters", "1",
          "--speculative-config", R"({"method":"mtp","num_speculative_tokens":1})", "--spec-acceptance", "1",
          "--requests", dir.File("r.csv")};
}

// The figures every term is made of:
// - KV per token on one GPU: MiMo's 36 layers, 2 (K, V) x 8 KV heads x 128 x 2 B = 4,096 B a layer,
//   147,456 B, and the MTP layer's own 4,096 B (vLLM v1 keeps the drafter's layers in the same KV
//   cache config, so NIXL moves them and the offloading connector stores them): 151,552 B.
// - One rank-8 adapter's A and B on the 36 decoder layers (vLLM wraps qkv, o, gate_up and down):
//   qkv A 3 x 8 x 4,096 + B (4,096 + 1,024 + 1,024) x 8; o A 4,096 x 8 + B 4,096 x 8; gate_up
//   A 2 x 8 x 4,096 + B 2 x 11,008 x 8; down A 11,008 x 8 + B 4,096 x 8 = 575,488 elements a layer,
//   x 36 x 2 B = 41,435,136 B. A load reads it from disk at 7.45 GB/s (5,561,763 ns) into the host
//   cache, then copies it to the GPU slot over the host link, 64 GB/s (H100 datasheet: PCIe Gen5,
//   128 GB/s both ways): 647,424 ns; together 6,209,187 ns, added to the step that first runs it.
//
// Request 1 (arrives at 0: 4,096 tokens, trace ids 1..8, 5 output tokens):
//   prefill pool  adapter load 6,209,187 + one 4,096-token step 10,000,000 -> ends 16,209,187
//   transfer      4,095 tokens x 151,552 B = 620,605,440 B / 10 GB/s = 62,060,544 + 5,000 latency
//                 -> KV on the decode GPU at 78,274,731
//   decode pool   adapter load 6,209,187 (its own host cache and slot) + one step for the last prompt
//                 token -> first token at 94,483,918 = TTFT
//   MTP           four more tokens in two steps of 1 + 1 verified draft: finished at 114,483,918
//                 (without drafts: four steps)
// Requests 2 and 3 (1 s: 3,200 other tokens each, one output token) prefill together and fill all 400
// blocks of the prefill instance, so request 1's blocks leave its GPU prefix cache; its prompt chunks
// stay in the host tier.
// Request 4 (2 s: request 1's 4,096 tokens and 512 more, trace ids 1..9, 5 output tokens):
//   prefill pool  host tier hit of chunks 0..255 = 4,096 tokens: 620,756,992 B / 64 GB/s = 9,699,328
//                 (the adapter is still in its slot: no load); the idle engine's steps without a
//                 forward (0.3 ms of host work each, from 2 s) report it at the end of the 33rd,
//                 2,009,900,000; then one 512-token step 10,000,000 -> ends 2,019,900,000
//   transfer      4,607 tokens x 151,552 B = 698,200,064 B / 10 GB/s = 69,820,006 + 5,000
//                 -> 2,089,725,006
//   decode pool   one step -> first token at 2,099,725,006: TTFT 99,725,006
// The decode instance's tier holds what arrived (256 + 200 + 200 + 32 new chunks of 16 tokens) but loads
// nothing: the prompt of a request prefilled elsewhere comes over the link (NIXL comes first).
TEST(PdFeaturesCliTest, TiersOnBothPoolsMtpAndLoraTermByTerm) {
  testing::TempDir dir;
  const std::string trace = dir.Write("t.jsonl", Trace());
  const nlohmann::json j = testing::ReplayJson(Combined(dir, trace));
  const nlohmann::json& pd = j.at("disaggregation");
  // Prefill pool: one host-tier load of 4,096 tokens; one adapter load from disk.
  const nlohmann::json& po = pd.at("prefill").at("offload");
  EXPECT_EQ(po.at("loads").get<int64_t>(), 1);
  EXPECT_EQ(po.at("tiers").at(0).at("hit_tokens").get<int64_t>(), 4096);
  EXPECT_NEAR(po.at("tiers").at(0).at("transfer_s").get<double>(), 0.009699328, 1e-6);
  EXPECT_EQ(pd.at("prefill").at("lora").at("gpu_loads").get<int64_t>(), 1);
  EXPECT_EQ(pd.at("prefill").at("lora").at("disk_loads").get<int64_t>(), 1);
  // Decode pool: stores everything it received, loads nothing; its own adapter load.
  const nlohmann::json& dp = pd.at("decode").at("offload");
  EXPECT_EQ(dp.at("loads").get<int64_t>(), 0);
  // Request 4's first 256 chunks are request 1's, already there (a tier stores what it lacks).
  EXPECT_EQ(dp.at("tiers").at(0).at("chunks_stored").get<int64_t>(), 256 + 200 + 200 + 32);
  EXPECT_EQ(pd.at("decode").at("lora").at("gpu_loads").get<int64_t>(), 1);
  EXPECT_EQ(pd.at("decode").at("lora").at("disk_loads").get<int64_t>(), 1);
  EXPECT_EQ(pd.at("transfers").get<int64_t>(), 4);
  // MTP on the decode pool: requests 1 and 4 each verify two drafts, all accepted.
  EXPECT_EQ(j.at("speculation").at("accepted_tokens").get<int64_t>(), 4);
  // The per-request CSV (times from the start of the trace, s): request 1's decode admission, first
  // token and end; request 4's first token (its arrival at 2 s plus a TTFT of 99.725006 ms).
  const std::string csv = testing::ReadFile(dir.File("r.csv"));
  for (const char* figure : {"0.016209", "0.094484", "0.114484", "2.099725"})
    EXPECT_NE(csv.find(figure), std::string::npos) << figure << "\n" << csv;
}

// Without MTP, LoRA and the tiers the same requests pay none of those terms, and the KV per token is
// the target's 147,456 B. Request 1: prefill 10 ms, transfer 4,095 x 147,456 B = 603,832,320 B over
// 10 GB/s = 60,383,232 + 5,000 ns, one decode step 10 ms: TTFT 80,388,232 ns. Request 4 prefills all
// 4,608 tokens in one step (no tier; its GPU prefix was evicted): 10 ms, transfer 4,607 x 147,456 B =
// 679,329,792 B -> 67,932,979 + 5,000 ns, one decode step: TTFT 87,937,979 ns.
TEST(PdFeaturesCliTest, WithoutTheFeaturesTheirTermsAreGone) {
  testing::TempDir dir;
  const std::string trace = dir.Write("t.jsonl", Trace());
  const nlohmann::json j = testing::ReplayJson({"--trace", trace, "--model", dir.Write("mimo.json", kMimo7b), "--hf-overrides",
                                                R"({"model_type": "qwen2"})", "--gpu", "h100",
                                                "--num-gpu-blocks-override", "401", "--max-model-len", "6400",
                                                "--max-num-batched-tokens", "8192", "--step-time-ms", "10", "--prefill-replicas",
                                                "1", "--decode-replicas", "1", "--kv-link", "10,5", "--kv-connector", "push",
                                                "--requests", dir.File("r.csv")});
  EXPECT_FALSE(j.at("disaggregation").at("prefill").contains("offload"));
  const std::string csv = testing::ReadFile(dir.File("r.csv"));
  // First tokens at 0.080388232 s and 2 + 0.087937979 s.
  for (const char* figure : {"0.080388", "2.087938"}) EXPECT_NE(csv.find(figure), std::string::npos) << figure << "\n" << csv;
}

// With the per-operator step model the features' times are added, not dropped: the MTP drafter's
// passes on the decode pool, and the LoRA kernels in both pools (the prefill pool runs the adapter's
// shrink and expand over every prompt token).
TEST(PdFeaturesCliTest, PerOperatorStepsTimeTheDrafterAndBothPoolsKernels) {
  testing::TempDir dir;
  std::vector<std::string> args = Combined(dir, dir.Write("t.jsonl", Trace()));
  const auto fixed = std::find(args.begin(), args.end(), "--step-time-ms");
  args.erase(fixed, fixed + 2);
  const nlohmann::json j = testing::ReplayJson(args);
  EXPECT_GT(j.at("speculation").at("drafting_s").get<double>(), 0.0);
  EXPECT_GT(j.at("disaggregation").at("prefill").at("lora").at("kernel_s").get<double>(), 0.0);
  EXPECT_GT(j.at("disaggregation").at("decode").at("lora").at("kernel_s").get<double>(), 0.0);
  EXPECT_TRUE(j.at("warnings").empty()) << j.at("warnings").dump();
}

// Under memory pressure the decode instance's tier serves what it stored: two 2,048-token prompts
// (Qwen3-0.6B, 114,688 B of KV a token) each decoding 1,000 tokens need 2 x 191 blocks of 16 tokens,
// more than the 300 a decode instance has, so the newer one is preempted. Its readmission does not
// pull the prompt over the link again (two transfers in all): its 128 prompt chunks, stored in the
// decode instance's host tier when they arrived, load from there (2,048 tokens x 114,688 B over
// 64 GB/s = 3.670016 ms) unless the GPU prefix cache still holds them.
TEST(PdFeaturesCliTest, ThePreemptedRequestReloadsItsPromptFromTheDecodeTier) {
  testing::TempDir dir;
  const std::string trace = dir.Write("t.jsonl", testing::MooncakeRow(0, 2048, 1000, 1, 4) + testing::MooncakeRow(0, 2048, 1000, 101, 4));
  const nlohmann::json j = testing::ReplayJson({"--trace", trace, "--model", "Qwen/Qwen3-0.6B", "--gpu", "h100",
                                                "--num-gpu-blocks-override", "301", "--max-model-len", "4096", "--step-time-ms",
                                                "10", "--prefill-replicas", "1", "--decode-replicas", "1", "--kv-link", "10,5", "--kv-connector", "push",
                                                "--kv-offload", "cpu=4GiB"});
  EXPECT_EQ(j.at("requests").at("preemptions").get<int64_t>(), 1);
  EXPECT_EQ(j.at("disaggregation").at("transfers").get<int64_t>(), 2);
  const nlohmann::json& o = j.at("disaggregation").at("decode").at("offload");
  EXPECT_EQ(o.at("loads").get<int64_t>(), 1);
  const int64_t hit = o.at("tiers").at(0).at("hit_tokens").get<int64_t>();
  EXPECT_EQ(hit + o.at("gpu_hit_tokens").get<int64_t>(), 2048);
  EXPECT_NEAR(o.at("tiers").at(0).at("transfer_s").get<double>(), static_cast<double>(hit) * 114688 / 64e9, 1e-6);
}

// What still cannot work is refused with the reason.
TEST(PdFeaturesCliTest, CombinationsThatCannotWorkAreRefused) {
  const std::vector<std::string> pd = {"replay", "--synthetic", "10", "--rate", "1", "--prefill-replicas", "1", "--decode-replicas", "1"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = pd;
    a.insert(a.end(), extra.begin(), extra.end());
    return testing::RunCli(a);
  };
  // Tiers find chunks by prefix keys: a synthetic workload without shared content has none.
  testing::ExpectOneLineError(with({"--kv-offload", "cpu=8GiB"}), "prefix keys");
  // Adapters without LoRA slots.
  testing::ExpectOneLineError(with({"--adapters", "4"}), "--enable-lora");
  // Closed-loop clients are not replayed across two pools.
  testing::ExpectOneLineError(with({"--max-concurrency", "4"}), "--max-concurrency");
}

}  // namespace
}  // namespace kvsim
