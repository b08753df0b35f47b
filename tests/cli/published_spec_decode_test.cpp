// Published speculative-decoding measurements reproduced within 25%: each case runs the setup the
// source states (GPU, model, drafter, k, batch) with the acceptance the source states, converted to
// kvsim's --spec-acceptance as one geometric rate a with a + a^2 + ... + a^k = AL - 1 (AL = vLLM's
// "mean acceptance length", the bonus token included). Workload: single-turn MT-Bench at batch 1,
// 76-token prompts and 207-token outputs (80 prompts in 128 s at 47.09 input and 128.64 output
// tok/s in vllm#16035, vLLM's examples/offline_inference/eagle.py with max_tokens 256).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::RunCli;
using testing::TempDir;

// The single rate a whose first k powers sum to al - 1.
double GeometricRate(int k, double al) {
  double lo = 0, hi = 1;
  for (int it = 0; it < 60; ++it) {
    const double mid = (lo + hi) / 2;
    double sum = 0, p = 1;
    for (int i = 0; i < k; ++i) sum += (p *= mid);
    (sum < al - 1 ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

// Batch 1 on one H100, Llama-3.1-8B-Instruct; `rate` 0.05 req/s keeps one request in flight.
nlohmann::json ReplayBs1(const std::vector<std::string>& extra, const std::string& rate = "0.05",
                         const std::string& model = "meta-llama/Llama-3.1-8B-Instruct") {
  std::vector<std::string> args = {"replay", "--synthetic", "40", "--rate", rate, "--prompt-len", "fixed:76",
                                   "--output-len", "fixed:207", "--gpu", "h100", "--model", model,
                                   "--max-num-seqs", "1", "--max-model-len", "4096", "--json", "-", "--quiet"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = RunCli(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

double TpotMs(const nlohmann::json& j) { return j.at("latency_s").at("tpot").at("mean").get<double>() * 1000; }
double OutTokS(const nlohmann::json& j) { return j.at("throughput").at("output_tokens_per_s").get<double>(); }

std::vector<std::string> Spec(const std::string& config, int k, double al) {
  return {"--speculative-config", config, "--spec-acceptance", std::to_string(GeometricRate(k, al))};
}

// vllm-project/vllm#20780 (ekagra-ranjan, 2025-07-10): Llama-3.1-8B-Instruct, MT-Bench, batch 1,
// TPOT ms and acceptance length per k; H100 as in the same author's series (#16937 "Output
// tokens/s on H100 BS1", #17202). EAGLE-1 = yuhuili/EAGLE-LLaMA3.1-Instruct-8B (one layer, the
// target's embedding and lm_head shared). kvsim: vanilla 6.78 ms, EAGLE-1 TPOT 0.92-0.94 of the
// published, speed-ups 1.02-1.04 of it.
TEST(PublishedSpecDecodeTest, Eagle1TpotAtBatchOneOnH100Vllm20780) {
  const double vanilla = TpotMs(ReplayBs1({}));
  EXPECT_NEAR(vanilla / 7.07, 1.0, 0.25) << vanilla;
  struct Case { int k; double al; double tpot_ms; };
  for (const Case c : {Case{2, 2.10, 4.37}, Case{3, 2.29, 4.29}, Case{4, 2.39, 4.48}, Case{5, 2.43, 4.71},
                       Case{6, 2.45, 4.94}, Case{7, 2.47, 5.20}}) {
    const std::string config = R"({"method":"eagle","num_speculative_tokens":)" + std::to_string(c.k) + "}";
    const double tpot = TpotMs(ReplayBs1(Spec(config, c.k, c.al)));
    EXPECT_NEAR(tpot / c.tpot_ms, 1.0, 0.25) << "k " << c.k << ": " << tpot << " ms";
    EXPECT_NEAR((vanilla / tpot) / (7.07 / c.tpot_ms), 1.0, 0.25) << "k " << c.k << " speed-up";
  }
}

// vllm-project/vllm#16035 (ekagra-ranjan, 2025-04-09): Meta-Llama-3-8B-Instruct with
// lmsys/sglang-EAGLE-LLaMA3-Instruct-8B, MT-Bench, max_num_seqs 1, offline output tok/s:
// vanilla 128.64, k = 2 175.49 (AL 1.89, 1.36x), k = 4 165.65 (AL 2.08, 1.29x). Llama-3 8B has
// the 3.1 shapes; the GPU is the author's H100. Offline: all 80 prompts queued at once.
// kvsim: 147.5 tok/s vanilla, speed-ups 1.51x and 1.42x (ratio 1.11, 1.10), the drafter graphed.
TEST(PublishedSpecDecodeTest, Eagle1OfflineSpeedUpAtBatchOneVllm16035) {
  const double vanilla = OutTokS(ReplayBs1({}, "1000"));
  EXPECT_NEAR(vanilla / 128.64, 1.0, 0.25) << vanilla;
  struct Case { int k; double al; double tok_s; };
  for (const Case c : {Case{2, 1.89, 175.49}, Case{4, 2.08, 165.65}}) {
    const std::string config = R"({"method":"eagle","num_speculative_tokens":)" + std::to_string(c.k) + "}";
    const double spec = OutTokS(ReplayBs1(Spec(config, c.k, c.al), "1000"));
    EXPECT_NEAR((spec / vanilla) / (c.tok_s / 128.64), 1.0, 0.25) << "k " << c.k << ": " << spec << " tok/s";
  }
}

// vllm-project/vllm#16937 (ekagra-ranjan, 2025-04-24): "Output tokens/s on H100 BS1",
// Llama-3.1-8B-Instruct, MT-Bench 80 prompts: vanilla 133, EAGLE-1 k = 2 201.69 (1.51x), k = 4 198
// (1.48x), k = 7 169.92 (1.27x). The comment gives no AL: the ALs are #20780's for the same target,
// drafter and dataset. kvsim: speed-ups 1.68x, 1.63x, 1.38x (ratio 1.11, 1.10, 1.08), the drafter graphed.
TEST(PublishedSpecDecodeTest, Eagle1OfflineSpeedUpOnH100BatchOneVllm16937) {
  const double vanilla = OutTokS(ReplayBs1({}, "1000"));
  EXPECT_NEAR(vanilla / 133.0, 1.0, 0.25) << vanilla;
  struct Case { int k; double al; double tok_s; };
  for (const Case c : {Case{2, 2.10, 201.69}, Case{4, 2.39, 198.0}, Case{7, 2.47, 169.92}}) {
    const std::string config = R"({"method":"eagle","num_speculative_tokens":)" + std::to_string(c.k) + "}";
    const double spec = OutTokS(ReplayBs1(Spec(config, c.k, c.al), "1000"));
    EXPECT_NEAR((spec / vanilla) / (c.tok_s / 133.0), 1.0, 0.25) << "k " << c.k << ": " << spec << " tok/s";
  }
}

// yuhuili/EAGLE3-LLaMA3.1-Instruct-8B's config.json: one decoder layer, draft vocabulary 32,000.
constexpr const char* kEagle3Llama31Config = R"({
  "architectures": ["LlamaForCausalLMEagle3"], "hidden_act": "silu", "hidden_size": 4096,
  "intermediate_size": 14336, "max_position_embeddings": 2048, "model_type": "llama",
  "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 1, "rms_norm_eps": 1e-05,
  "tie_word_embeddings": false, "torch_dtype": "float16", "vocab_size": 128256, "draft_vocab_size": 32000})";

// vllm-project/vllm#20780, EAGLE-3 column (yuhuili/EAGLE3-LLaMA3.1-Instruct-8B): TPOT 4.32 4.09
// 4.05 4.13 4.20 4.29 ms at k = 2..7, AL 2.36 2.79 3.08 3.32 3.46 3.54. KNOWN MISS: kvsim gives
// 3.36 3.00 2.84 2.75 2.75 2.81 ms (0.78 0.73 0.70 0.67 0.66 0.66 of the published). A pass of the
// head is timed from its own weights and KV, its input updates (19 small kernels at the 3 us
// floor), 0.40 ms at batch 1, and its launches (23 kernels at 4 us and 2 graph pieces at 20 us,
// 0.13 ms, overlapping the GPU's work), all from vllm/v1/spec_decode/eagle.py propose(); the step's
// drafting prologue (the drafter's inputs built after the read-back, 29 ops: drafting_prologue.h)
// adds 0.13 ms with the GPU idle. The published TPOTs imply (TPOT x AL - 7.07 ms) / k = 1.2-1.6 ms
// per pass, about 1.0 ms per added pass from k = 2 to 7: counting the Python around each pass
// (metadata updates, forward-context setup, ~25-30 torch ops) at a few us an op stays under the
// pass's 0.40 ms of GPU work, so that cost is not located yet (spec_decode/README.md). EAGLE-1
// lands: its pass reads the target's 128k-row lm_head (0.69 ms), close to the 0.73 ms measured.
TEST(PublishedSpecDecodeTest, DISABLED_Eagle3TpotAtBatchOneOnH100Vllm20780) {
  TempDir dir;
  const std::string draft = dir.Write("EAGLE3-LLaMA3.1-Instruct-8B.json", kEagle3Llama31Config);
  struct Case { int k; double al; double tpot_ms; };
  for (const Case c : {Case{2, 2.36, 4.32}, Case{3, 2.79, 4.09}, Case{4, 3.08, 4.05}, Case{5, 3.32, 4.13},
                       Case{6, 3.46, 4.20}, Case{7, 3.54, 4.29}}) {
    const std::string config = R"({"method":"eagle3","model":")" + draft + R"(","num_speculative_tokens":)" +
                               std::to_string(c.k) + "}";
    const double tpot = TpotMs(ReplayBs1(Spec(config, c.k, c.al)));
    EXPECT_NEAR(tpot / c.tpot_ms, 1.0, 0.25) << "k " << c.k << ": " << tpot << " ms";
  }
}

}  // namespace
}  // namespace kvsim
