// Published measurements of KV-cache transfer and KV offloading reproduced by `kvsim replay` within 25%.
// Each case cites its source, lists every parameter the source states,
// the figure it publishes and the hand derivation of kvsim's figure. Only parameters the source states
// are set; what it leaves open keeps kvsim's default (named in the comments).
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/testutil.h"

namespace kvsim {
namespace {

std::vector<std::string> SplitCsvLine(const std::string& line) {
  std::vector<std::string> cells;
  std::istringstream in(line);
  std::string cell;
  while (std::getline(in, cell, ',')) cells.push_back(cell);
  return cells;
}

// Server-side TTFT in seconds (first_token_s - arrival_s) of each request of a --requests CSV, by id.
std::map<int64_t, double> TtftsById(const std::string& csv) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = SplitCsvLine(line);
  size_t id = header.size(), arrival = header.size(), first_token = header.size();
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == "id") id = i;
    if (header[i] == "arrival_s") arrival = i;
    if (header[i] == "first_token_s") first_token = i;
  }
  std::map<int64_t, double> ttft;
  if (id == header.size() || arrival == header.size() || first_token == header.size()) {
    ADD_FAILURE() << "unexpected --requests header: " << line;
    return ttft;
  }
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const std::vector<std::string> c = SplitCsvLine(line);
    ttft[std::stoll(c.at(id))] = std::stod(c.at(first_token)) - std::stod(c.at(arrival));
  }
  return ttft;
}

// |kvsim - published| <= 25% of published.
void ExpectWithin25Percent(double kvsim, double published, const std::string& what) {
  const double ratio = kvsim / published;
  EXPECT_GE(ratio, 0.75) << what << ": kvsim " << kvsim << ", published " << published;
  EXPECT_LE(ratio, 1.25) << what << ": kvsim " << kvsim << ", published " << published;
}

// KV transfer between nodes. Mooncake (FAST '25), "Mooncake: Trading More Storage for Less Computation - A
// KVCache-centric Architecture for Serving LLM Chatbot", section 5.4.1 and Figure 12 ("Latency of inter-node
// cache transfer"; the same numbers in github.com/kvcache-ai/Mooncake README, "Transfer Engine > Performance";
// the paper is FAST25-release/Mooncake-FAST25.pdf there): "In the scenario of transferring 40GB of data,
// corresponding to the cache size for LLaMA3-70B with 128k tokens, the transfer engine achieves bandwidth of
// 87GB/s and 190GB/s under network configurations of 4 x 200Gbps and 8 x 400Gbps" (RoCEv2; concurrency 64,
// minimum transfer granularity 128 KB; section 3.2.3: each A800 GPU is paired with a 100/200 Gbps NIC, each H800
// GPU with a 200/400 Gbps NIC).
// kvsim: LLaMA3-70B's KV layout is Llama-3.1-70B's: 2 x 80 layers x 8 KV heads x 128 x 2 B = 327,680 B per
// token; 128k tokens = 131,072 x 327,680 B = 42,949,672,960 B = 40 GiB (the paper's "40GB"). One 131,072-token
// prompt, prefill on 4 A800s, decode on 4 more, each GPU's link one 200 Gb/s NIC = 25 GB/s, latency not stated
// (0). The decode side pulls 131,071 tokens (it computes the last one): 131,071 x 327,680 / 4 = 10,737,336,320 B
// per GPU / 25 GB/s = 0.429493 s, the 42,949,345,280 B at 100 GB/s. At the published 87 GB/s those bytes take
// 0.493671 s: kvsim / published = 87 / 100 = 0.870 (independent of whether "GB" is 10^9 or 2^30 B).
// Not reproduced: 8 x 400 Gbps (H800, TP8, --kv-link ib-400g): kvsim 400 GB/s, 0.107 s against 190 GB/s, 0.226 s
// (0.475): there the Transfer Engine reached 47.5% of the line rate (87% with 4 x 200 Gbps); kvsim models a link
// at its line rate.
TEST(PublishedMeasurementsTest, MooncakeTransferEngineMoves128kTokensOf70BAt87GBpsOver4x200GbpsRoCE) {
  testing::TempDir dir;
  const std::string trace = dir.Write("t.jsonl", testing::MooncakeRow(0, 131072, 1, 1, 256));
  const nlohmann::json j =
      testing::ReplayJson({"--trace", trace, "--model", "meta-llama/Llama-3.1-70B-Instruct", "--gpu", "a800-80gb", "-tp", "4",
                  "--max-model-len", "131073", "--allow-long-max-model-len", "--prefill-replicas", "1",
                  "--decode-replicas", "1", "--kv-link", "25,0"});
  const auto& d = j.at("disaggregation");
  const double transfer_s = d.at("mean_transfer_s").get<double>();
  EXPECT_NEAR(transfer_s, 10737336320.0 / 25e9, 2e-6);  // the derivation above
  EXPECT_EQ(d.at("transfers").get<int64_t>(), 1);
  const double bytes = 131071.0 * 327680.0;  // over the four GPUs' links
  ExpectWithin25Percent(transfer_s, bytes / 87e9, "Mooncake TE, 40 GiB over 4 x 200 Gbps: transfer s");
}

// KV offloading TTFT gain. vLLM blog, "Inside vLLM's New KV Offloading Connector: Smarter Memory Transfer for
// Maximizing Inference Throughput" (Or Ozeri, Danny Harnik, IBM Research; blog.vllm.ai, 2026-01-08; source
// vllm-project/vllm-project.github.io _posts/2026-01-08-kv-offloading-connector.md), Figure 1 "Single request
// TTFT (Llama-3.1-8B-Instruct, NVIDIA H100)": "loading KV values from the CPU reduces TTFT by X2-X22, depending
// on the prompt size"; with Figure 2 (512-token prompts): "TTFT for this prompt size only decreased by X2".
// Setup ("Evaluation Setup"): H100 80GB HBM3, Flash Attention, GPU prefix caching disabled, GPU and CPU block
// size 16 tokens, de/tokenization disabled, 500 GB DRAM; "for single-direction both [DMA and a custom kernel]
// can get up to about 50GB/s" (Figures 3-4, same H100). Figure 1 read from its pixels (gridlines 1,000 ms
// apart, ~9.4 ms per pixel): at 100K tokens GPU compute 6,848 ms, load from CPU 319 ms (21.5x; the text: X22).
// kvsim: the prompt arrives cold (its TTFT: "GPU compute"); five 120,000-token other prompts then evict it from
// the GPU pool (27,680 blocks: the blog disables GPU prefix caching, kvsim's tiers need it on, so the GPU copy is
// evicted instead); the same prompt again (its TTFT: "load from CPU") finds all but its last 16-token chunk in
// host memory (cpu=400GiB: the blog's size is not stated; anything holding the run's 85 GiB behaves the same) and
// loads it over the blog's 50 GB/s before one step computes the rest and samples (server TTFT: the blog's client
// did no tokenization).
//   100K: cold: 7,013.6 ms (published 6,848: 1.02). Hit: 99,984 tokens x 131,072 B (2 x 32 layers x 8 KV heads x
//   128 x 2 B) = 13,105,102,848 B / 50 GB/s = 262.1 ms + one step (16 tokens against the 100K context) 11.0 ms =
//   273.15 ms (published 319: 0.86). Gain 7,013.6 / 273.15 = 25.7x (published 22: 1.17).
//   512: cold 13.25 ms; hit 496 tokens: 65,011,712 B / 50 GB/s = 1.30 ms + one step 6.86 ms = 8.16 ms;
//   gain 1.62x (published 2: 0.81).
// With kvsim's default H100 host link (64 GB/s a direction, half the datasheet's 128 GB/s PCIe Gen5) the 100K hit
// takes 215.8 ms (0.68) and the gain is 32.5x (1.48): the DMA the blog measured moves ~50 GB/s, not 64. The chart's
// load times grow 3.01 ms per 1K tokens (43.5 GB/s) from a 13.7 ms intercept; kvsim's 2.66 ms per 1K (50 GB/s) from
// 6.8 ms: the remaining 14% is a fixed per-request time kvsim lacks (connector lookup, scheduling) and an
// effective 43.5 GB/s where kvsim is given the blog's 50.
TEST(PublishedMeasurementsTest, VllmOffloadingConnectorLoadFromCpuCutsTtftOfA100kPrompt22x) {
  struct Run {
    double cold_s;
    double hit_s;
    int64_t hit_tokens;
  };
  auto run = [](int64_t prompt) {
    testing::TempDir dir;
    const int64_t ids = (prompt + 511) / 512;
    std::string rows = testing::MooncakeRow(0, prompt, 1, 1, ids);
    for (int64_t k = 1; k <= 5; ++k) rows += testing::MooncakeRow(20000 * k, 120000, 1, 100000 * k, 235);
    rows += testing::MooncakeRow(300000, prompt, 1, 1, ids);
    const std::string trace = dir.Write("t.jsonl", rows);
    const nlohmann::json j =
        testing::ReplayJson({"--trace", trace, "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "h100", "--kv-offload",
                    "cpu=400GiB", "--kv-host-link", "50", "--requests", dir.File("r.csv")});
    const std::map<int64_t, double> ttft = TtftsById(testing::ReadFile(dir.File("r.csv")));
    EXPECT_EQ(ttft.size(), 7u);
    const int64_t hit = j.contains("offload") ? j.at("offload").at("tiers").at(0).at("hit_tokens").get<int64_t>() : -1;
    return Run{ttft.count(0) ? ttft.at(0) : 0.0, ttft.count(6) ? ttft.at(6) : 1.0, hit};
  };

  const Run r100k = run(100000);
  EXPECT_EQ(r100k.hit_tokens, 99984);
  ExpectWithin25Percent(r100k.cold_s, 6.848, "vLLM blog Fig. 1, 100K tokens, GPU compute TTFT s");
  ExpectWithin25Percent(r100k.hit_s, 0.319, "vLLM blog Fig. 1, 100K tokens, load-from-CPU TTFT s");
  ExpectWithin25Percent(r100k.cold_s / r100k.hit_s, 22.0, "vLLM blog, 100K tokens, TTFT gain (X22)");

  const Run r512 = run(512);
  EXPECT_EQ(r512.hit_tokens, 496);
  ExpectWithin25Percent(r512.cold_s / r512.hit_s, 2.0, "vLLM blog, 512 tokens, TTFT gain (X2)");
}

}  // namespace
}  // namespace kvsim
