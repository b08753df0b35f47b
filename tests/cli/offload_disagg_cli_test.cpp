// KV tiers below the GPU and prefill/decode disaggregation through `kvsim replay`: hand-derived
// single-request cases (the derivations are in the comments), the hit rate and TTFT of a real trace
// as the host tier grows, and the inputs refused.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/testutil.h"

namespace kvsim {
namespace {

// A 32,768-token context seen before, evicted from the GPU by another request, found in host memory.
// Llama-3.1-8B (32 layers, 8 KV heads of 128, bf16): 2 x 32 x 8 x 128 x 2 B = 131,072 B per token.
// GPU pool: 2,049 usable blocks of 16 tokens. Request 1 (ids 1..64, 32,768 tokens, one output token)
// fills 2,048 blocks and stores its 2,048 chunks (16 tokens each) in host memory; request 2 (32,784
// other tokens) takes all 2,049 blocks, evicting every block of request 1. Request 3 repeats request 1:
// no GPU hit; the host holds chunks 0..2047, of which a load takes 0..2046 (the last prompt token is
// computed: (32,768 - 1) / 16 = 2,047 chunks) = 32,752 tokens = 4,292,870,144 B over the H100's host
// link, 64 GB/s each way (datasheet: PCIe Gen5 128 GB/s both ways) = 67.076096 ms. The idle engine
// takes steps without a forward (the host's 0.3 ms each) and sees the load done at the end of the
// 224th, 67.2 ms; then one step (20 ms, fixed) computes the last 16 tokens and samples: TTFT = 87.2 ms.
// Without the tier the 32,768 tokens are prefilled in 4 steps of 8,192 = 80 ms.
TEST(OffloadCliTest, HostTierHitOfA32kContextIsItsLoadPlusOneStep) {
  testing::TempDir dir;
  const std::string trace = dir.Write("t.jsonl", testing::MooncakeRow(0, 32768, 1, 1, 64) + testing::MooncakeRow(10000, 32784, 1, 1001, 65) +
                                                     testing::MooncakeRow(20000, 32768, 1, 1, 64));
  const std::vector<std::string> base = {"--trace", trace, "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "h100",
                                         "--vllm-version", "0.24", "--num-gpu-blocks-override", "2050", "--max-model-len", "32800",
                                         "--max-num-batched-tokens", "8192", "--step-time-ms", "20", "--requests",
                                         dir.File("r.csv")};
  std::vector<std::string> with = base;
  with.insert(with.end(), {"--kv-offload", "cpu=16GiB"});
  const nlohmann::json j = testing::ReplayJson(with);
  const auto& o = j.at("offload");
  EXPECT_EQ(o.at("tiers").at(0).at("hit_tokens").get<int64_t>(), 32752);
  EXPECT_EQ(o.at("loads").get<int64_t>(), 1);
  EXPECT_NEAR(o.at("tiers").at(0).at("transfer_s").get<double>(), 0.067076096, 1e-6);
  const std::string csv = testing::ReadFile(dir.File("r.csv"));
  // The third request's TTFT (arrival 20 s): its row in the per-request CSV.
  EXPECT_NE(csv.find("20.087200"), std::string::npos) << csv;
  const nlohmann::json none = testing::ReplayJson(base);
  EXPECT_FALSE(none.contains("offload"));
  EXPECT_NEAR(none.at("latency_s").at("server_ttft").at("p50").get<double>(), 0.080, 1e-6);  // 80, 100 and 80 ms
}

// Mooncake's conversation trace (first 3,000 requests, 4x the arrival rate) on Llama-3.1-8B / H100 with
// a GPU pool kept small (4,000 blocks = 64,000 tokens): a larger host tier serves more of the repeated
// context and the median TTFT falls.
TEST(OffloadCliTest, TtftFallsAsTheHostTierGrows) {
  const std::vector<std::string> base = {"--trace", testing::SharedPath("traces/mooncake/conversation_trace.jsonl"),
                                         "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "h100",
                                         "--vllm-version", "0.24", "--num-gpu-blocks-override", "4000", "--max-model-len", "64000",
                                         "--max-requests", "3000"};
  double last_ttft = 1e9, last_hit = -1;
  for (const char* size : {"", "cpu=8GiB", "cpu=64GiB", "cpu=512GiB"}) {
    std::vector<std::string> args = base;
    if (*size) args.insert(args.end(), {"--kv-offload", size});
    const nlohmann::json j = testing::ReplayJson(args);
    const double ttft = j.at("latency_s").at("ttft").at("p50").get<double>();
    const double hit = *size ? j.at("offload").at("total_hit_rate").get<double>() : j.at("prefix_cache").at("hit_rate").get<double>();
    std::printf("host %-10s TTFT p50 %.4f s, hit rate (GPU + host) %.4f\n", *size ? size : "none", ttft, hit);
    EXPECT_LT(ttft, last_ttft) << size;
    EXPECT_GT(hit, last_hit) << size;
    last_ttft = ttft;
    last_hit = hit;
  }
}

// Prefill/decode: an 8,192-token prompt on Llama-3.1-70B, TP4 prefill -> TP4 decode over 400 Gb/s per GPU.
// Per token: 2 x 80 layers x 8 KV heads x 128 x 2 B = 327,680 B; TP4: 81,920 B per GPU. Steps fixed at
// 20 ms. Prefill: arrival at 0, one 8,192-token step: done at 20 ms. The decode instance admits it at
// 20 ms, reserves its blocks and pulls 8,191 tokens (it recomputes the last). NixlConnector's decode
// worker first posts the read: each TP4 rank holds its heads of all 80 layers, a K and a V region per
// layer (160 regions), and 8,191 tokens fill 512 blocks of 16: 81,920 descriptors x 6.7 ms / 1,785
// (vllm#50913) = 307,486,835 ns. Then the transfer: 8,191 x 81,920 B = 671,006,720 B per GPU over
// 50 GB/s = 13.4201344 ms. Then one step computes the last prompt token and samples:
// TTFT = 20 + 307.486835 + 13.4201344 + 20 = 360.9069694 ms.
TEST(DisaggCliTest, TtftIsPrefillPlusTransferPlusOneDecodeStep) {
  testing::TempDir dir;
  const std::string trace = dir.Write("t.jsonl", testing::MooncakeRow(0, 8192, 4, 1, 16));
  const nlohmann::json j = testing::ReplayJson({"--trace", trace, "--model", "meta-llama/Llama-3.1-70B-Instruct", "--gpu", "h100",
                                   "-tp", "4", "--max-model-len", "16384", "--max-num-batched-tokens", "8192",
                                   "--step-time-ms", "20", "--prefill-replicas", "1", "--decode-replicas", "1",
                                   "--kv-link", "ib-400g"});
  EXPECT_NEAR(j.at("latency_s").at("server_ttft").at("p50").get<double>(), 0.3609069694, 2e-6);
  EXPECT_NEAR(j.at("disaggregation").at("mean_transfer_s").get<double>(), 0.0134201344, 2e-6);
  EXPECT_NEAR(j.at("disaggregation").at("mean_post_s").get<double>(), 0.307486835, 2e-6);
  // Three more output tokens, one 20 ms step each.
  EXPECT_NEAR(j.at("latency_s").at("e2e").at("p50").get<double>(), 0.3609069694 + 0.060, 2e-6);
  EXPECT_EQ(j.at("requests").at("finished").get<int64_t>(), 1);
}

TEST(OffloadCliTest, InputsThatCannotWorkAreRefused) {
  testing::ExpectOneLineError(testing::RunCli({"replay", "--kv-offload", "gpu=1GiB"}), "--kv-offload");
  testing::ExpectOneLineError(testing::RunCli({"replay", "--kv-offload", "cpu=8GiB,disk=1TiB"}), "--kv-disk");
  // The bundled Azure trace has no block ids: nothing could ever be found in a tier.
  testing::ExpectOneLineError(testing::RunCli({"replay", "--kv-offload", "cpu=8GiB", "--max-requests", "10"}), "prefix keys");
  testing::ExpectOneLineError(
      testing::RunCli({"replay", "--kv-transfer-config", R"({"kv_connector":"NixlConnector","kv_role":"kv_both"})"}),
      "--prefill-replicas");
  // A name kvsim does not know (a typo, an out-of-tree connector) was said to move KV between prefill and decode
  // instances; vLLM refuses a typo ("Unsupported connector type"), so the message claims no kind for it.
  const auto typo = testing::RunCli({"replay", "--kv-transfer-config", R"({"kv_connector":"NixlConnecter","kv_role":"kv_both"})"});
  testing::ExpectOneLineError(typo, "connector 'NixlConnecter' is not an offloading tier kvsim models");
  EXPECT_EQ(typo.err.find("' moves KV between"), std::string::npos) << typo.err;
  testing::ExpectOneLineError(testing::RunCli({"replay", "--prefill-replicas", "1"}), "--decode-replicas");
  testing::ExpectOneLineError(testing::RunCli({"replay", "--prefill-replicas", "1", "--decode-replicas", "1", "--kv-link", "fast"}),
                              "--kv-link");
  testing::ExpectOneLineError(
      testing::RunCli({"replay", "--prefill-replicas", "1", "--decode-replicas", "1", "--kv-connector", "mooncake"}),
      "--kv-connector");
}

// Llama-3.1-8B holds 32 layers x 2 (K, V) x 8 KV heads x 128 x 2 B = 131,072 B of KV per token, 65,536 B
// per GPU at TP 2. A 64 GiB host tier (vLLM's --kv-offloading-size, summed over the TP ranks) is 32 GiB
// per GPU and holds 64 x 2^30 / 131,072 = 524,288 tokens. The native connector copies blocks with
// swap_blocks (no GPU buffer); LMCache stages one 256-token chunk: 256 x 131,072 B = 32 MiB at TP 1.
TEST(OffloadCliTest, CapacityListsHostMemoryAndStagingBuffers) {
  const auto r = testing::RunCli({"capacity", "--gpu", "h100", "-tp", "2", "--kv-offloading-size", "64", "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json o = nlohmann::json::parse(r.out).at("kv_offload");
  EXPECT_EQ(o.at("connector"), "OffloadingConnector");
  EXPECT_DOUBLE_EQ(o.at("tiers").at(0).at("gib_per_replica").get<double>(), 64.0);
  EXPECT_DOUBLE_EQ(o.at("tiers").at(0).at("gib_per_gpu").get<double>(), 32.0);
  EXPECT_EQ(o.at("tiers").at(0).at("tokens").get<int64_t>(), 524288);
  EXPECT_DOUBLE_EQ(o.at("gpu_staging_gib").get<double>(), 0.0);
  const auto lm = testing::RunCli({"capacity", "--gpu", "h100", "--kv-offloading-size", "64", "--kv-offloading-backend",
                                   "lmcache", "--json", "-"});
  ASSERT_EQ(lm.exit_code, 0) << lm.err;
  EXPECT_NEAR(nlohmann::json::parse(lm.out).at("kv_offload").at("gpu_staging_gib").get<double>(), 0.03125, 1e-4);
  // Link figures change no memory: said, not silently taken.
  const auto link = testing::RunCli({"capacity", "--gpu", "h100", "--kv-offloading-size", "64", "--kv-host-link", "50",
                                     "--json", "-"});
  ASSERT_EQ(link.exit_code, 0) << link.err;
  EXPECT_NE(nlohmann::json::parse(link.out).at("notes").dump().find("--kv-host-link/--kv-disk"), std::string::npos);
}

// Pasted, vLLM's offloading flags configure the tiers (no longer "not modelled"); a connector between
// prefill and decode instances stays a warning on one server's capacity, never silently dropped.
TEST(OffloadCliTest, PastedOffloadingFlagsAreModelled) {
  const auto r = testing::RunCli({"capacity", "--gpu", "h100", "--json", "-", "--", "vllm", "serve",
                                  "meta-llama/Llama-3.1-8B-Instruct", "--kv-transfer-config",
                                  R"({"kv_connector":"OffloadingConnector","kv_role":"kv_both","kv_connector_extra_config":{"cpu_bytes_to_use":10737418240}})"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(r.out).at("kv_offload").at("tiers").at(0).at("gib_per_replica").get<double>(), 10.0);
  EXPECT_EQ(r.err.find("not modelled"), std::string::npos) << r.err;
  const auto size = testing::RunCli({"capacity", "--gpu", "h100", "--json", "-", "--", "vllm", "serve",
                                     "meta-llama/Llama-3.1-8B-Instruct", "--kv-offloading-size", "16"});
  ASSERT_EQ(size.exit_code, 0) << size.err;
  EXPECT_EQ(nlohmann::json::parse(size.out).at("kv_offload").at("tiers").at(0).at("tokens").get<int64_t>(), 131072);
  const auto nixl = testing::RunCli({"capacity", "--gpu", "h100", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct",
                                     "--kv-transfer-config", R"({"kv_connector":"NixlConnector","kv_role":"kv_both"})"});
  ASSERT_EQ(nixl.exit_code, 0) << nixl.err;
  EXPECT_NE(nixl.out.find("not modelled (they change memory): --kv-transfer-config"), std::string::npos) << nixl.out;
}

// A disaggregated deployment pays for both pools over the whole span: one prefill GPU and two decode
// replicas at TP 2 are 1 + 2 x 2 = 5 GPUs, so at 2.5 USD per GPU-hour the run costs
// 5 x 2.5 x simulated_s / 3600 USD.
TEST(DisaggCliTest, CostCountsBothPools) {
  const auto r = testing::RunCli({"replay", "--gpu", "h100", "--gpu-hourly-cost", "2.5", "--synthetic", "50", "--rate", "5",
                                  "--prompt-len", "fixed:2000", "--output-len", "fixed:50", "--prefill-replicas", "1",
                                  "--decode-replicas", "2", "--decode-tp", "2", "--kv-link", "nvlink", "--quiet", "--json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("cost").at("gpus").get<int64_t>(), 5);
  const double simulated_s = j.at("throughput").at("simulated_s").get<double>();
  EXPECT_NEAR(j.at("cost").at("usd").get<double>(), 5 * 2.5 * simulated_s / 3600, 1e-6);
}

// compare takes a disaggregated deployment beside an aggregated one on the same GPUs: two replicas
// against one prefill and one decode instance, each counted as two GPUs.
TEST(DisaggCliTest, CompareAggregatedWithDisaggregatedOnTheSameGpus) {
  const testing::TempDir dir;
  const auto r = testing::RunCli({"compare", "--gpu", "h100", "--synthetic", "60", "--rate", "4", "--prompt-len", "fixed:3000",
                                  "--output-len", "fixed:40", "--a", "--replicas 2", "--b",
                                  "--prefill-replicas 1 --decode-replicas 1 --kv-link nvlink", "--json", dir.File("c.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("GPUs"), std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(testing::ReadFile(dir.File("c.json")));
  const std::string text = j.dump();
  EXPECT_NE(text.find("\"disaggregation\""), std::string::npos);  // deployment b ran as two pools
  for (const std::string& line : {std::string("GPUs")}) {
    const size_t at = r.out.find(line);
    ASSERT_NE(at, std::string::npos);
    const std::string row = r.out.substr(at, r.out.find('\n', at) - at);
    EXPECT_NE(row.find("2"), std::string::npos) << row;
    EXPECT_EQ(row.find("1 "), std::string::npos) << row;
  }
}

// sweep --find pd-ratio replays every split of N instances into the two pools (P + D = N, each at
// least 1): N = 3 gives 1:2 and 2:1, each a disaggregated replay, and the best is one of them.
TEST(DisaggCliTest, SweepFindsThePrefillDecodeSplit) {
  const testing::TempDir dir;
  const auto r = testing::RunCli({"sweep", "--gpu", "h100", "--synthetic", "60", "--rate", "4", "--prompt-len", "fixed:3000",
                                  "--output-len", "fixed:30", "--kv-link", "nvlink", "--find", "pd-ratio", "--find-max", "3",
                                  "--slo", "ttft-p99=5s", "--json", dir.File("pd.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(testing::ReadFile(dir.File("pd.json")));
  ASSERT_EQ(j.at("points").size(), 2u);
  EXPECT_EQ(j.at("points").at(0).at("point"), "prefill:decode=1:2");
  EXPECT_EQ(j.at("points").at(1).at("point"), "prefill:decode=2:1");
  for (const auto& p : j.at("points")) {
    const auto& pools = p.at("summary").at("disaggregation");
    EXPECT_EQ(pools.at("prefill").at("replicas").get<int64_t>() + pools.at("decode").at("replicas").get<int64_t>(), 3);
  }
  const std::string best = j.at("best").get<std::string>();
  EXPECT_TRUE(best == "prefill:decode=1:2" || best == "prefill:decode=2:1") << best;
  testing::ExpectOneLineError(testing::RunCli({"sweep", "--synthetic", "10", "--rate", "1", "--find", "pd-ratio",
                                               "--find-max", "1", "--slo", "ttft-p99=5s"}),
                              "--find-max N is the instances to split");
}

}  // namespace
}  // namespace kvsim
