// Inputs that look valid but are not, each as a user types it: refused with one line naming the
// option and why (exit 2), or answered with a warning in the text and JSON.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::ExpectOneLineError;
using testing::RunCli;

bool HasWarning(const nlohmann::json& j, const std::string& text) {
  for (const auto& w : j.at("warnings"))
    if (w.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

// A host tier of 100,000 TiB (a unit typed for GiB) overflows the plan's token count; no machine
// holds more than 64 TiB of memory or 4 PiB of disk, so such a size is refused before anything is
// sized from it.
TEST(InvalidInputsCliTest, AnOffloadTierBeyondAnyMachineIsRefused) {
  ExpectOneLineError(RunCli({"capacity", "--gpu", "h100", "--kv-offload", "cpu=100000TiB", "--json", "-"}),
                     "--kv-offload cpu: 1.024e+08 GiB is more than any one machine holds (at most 64 TiB of host memory)");
  ExpectOneLineError(RunCli({"capacity", "--gpu", "h100", "--kv-offloading-size", "1e12", "--json", "-"}),
                     "more than any one machine holds");
  ExpectOneLineError(RunCli({"replay", "--synthetic", "10", "--rate", "5", "--kv-offload", "cpu=8GiB,disk=9000TiB",
                             "--kv-disk", "7.45,6.9,80", "--quiet"}),
                     "--kv-offload disk: 9.216e+06 GiB is more than any one machine holds (at most 4096 TiB of disk)");
  ExpectOneLineError(RunCli({"capacity", "--gpu", "h100", "--json", "-", "--kv-transfer-config",
                             R"({"kv_connector":"OffloadingConnector","kv_connector_extra_config":{"cpu_bytes_to_use":1e30}})"}),
                     "more than any one machine holds");
  // A real machine's tier still plans: 64 GiB on one H100.
  EXPECT_EQ(RunCli({"capacity", "--gpu", "h100", "--kv-offload", "cpu=64GiB", "--json", "-"}).exit_code, 0);
}

// vLLM V1 without its hybrid KV cache manager needs one page type for every layer: a sliding window
// becomes full attention, a Mamba layer's state cannot, and the engine stops at start-up
// (unify_hybrid_kv_cache_specs). Nemotron-3-Nano mixes Mamba-2 and attention layers; gpt-oss mixes
// sliding and full attention and still starts.
TEST(InvalidInputsCliTest, AStateModelWithoutTheHybridManagerIsRefused) {
  ExpectOneLineError(RunCli({"capacity", "--gpu", "h200", "--model", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-FP8",
                             "--disable-hybrid-kv-cache-manager", "--json", "-"}),
                     "--disable-hybrid-kv-cache-manager: the model's Mamba / linear-attention state layers cannot share");
  EXPECT_EQ(RunCli({"capacity", "--gpu", "h100", "--model", "openai/gpt-oss-20b", "--disable-hybrid-kv-cache-manager",
                    "--json", "-"}).exit_code, 0);
}

// Stores into the tiers take no time in the replay, so a disk's write bandwidth moves nothing:
// said in the JSON and the text rather than taken silently.
TEST(InvalidInputsCliTest, AnUntimedDiskWriteBandwidthIsSaid) {
  const std::vector<std::string> args = {"replay", "--synthetic", "20", "--rate", "5", "--shared-prefix", "2:256",
                                         "--gpu", "h100", "--max-model-len", "4096", "--kv-offload", "cpu=8GiB,disk=64GiB",
                                         "--kv-disk", "7.45,6.9,80"};
  std::vector<std::string> json_args = args;
  json_args.insert(json_args.end(), {"--json", "-", "--quiet"});
  const auto j = RunCli(json_args);
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_TRUE(HasWarning(nlohmann::json::parse(j.out), "--kv-disk: the disk tier's write bandwidth is not used")) << j.out;
  const auto text = RunCli(args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE((text.out + text.err).find("write bandwidth is not used"), std::string::npos) << text.out;
}

// Under a fixed step time the drafter's passes are not timed: an EAGLE drafter looked free.
TEST(InvalidInputsCliTest, ADrafterUnderAFixedStepTimeIsSaid) {
  const auto r = RunCli({"replay", "--synthetic", "10", "--rate", "5", "--gpu", "h100", "--max-model-len", "4096",
                         "--step-time-ms", "10", "--speculative-config", R"({"method":"eagle","num_speculative_tokens":3})",
                         "--spec-acceptance", "0.7", "--json", "-", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(HasWarning(nlohmann::json::parse(r.out), "--step-time-ms: every step takes the fixed time, so the eagle drafter"))
      << r.out;
  // The per-operator model times the drafter: no such warning.
  const auto timed = RunCli({"replay", "--synthetic", "10", "--rate", "5", "--gpu", "h100", "--max-model-len", "4096",
                             "--speculative-config", R"({"method":"eagle","num_speculative_tokens":3})",
                             "--spec-acceptance", "0.7", "--json", "-", "--quiet"});
  ASSERT_EQ(timed.exit_code, 0) << timed.err;
  EXPECT_FALSE(HasWarning(nlohmann::json::parse(timed.out), "--step-time-ms"));
}

// Compare and sweep write one summary per run: a per-run CSV or report named for them would be
// taken and never written, so it is refused.
TEST(InvalidInputsCliTest, APerRunOutputOfManyRunsIsRefused) {
  const testing::TempDir dir;
  const std::string csv = dir.File("t.csv");
  ExpectOneLineError(RunCli({"compare", "--synthetic", "10", "--rate", "5", "--a", "--gpu h100", "--b", "--gpu a100-80gb",
                             "--timeseries", csv, "--quiet"}),
                     "--timeseries " + csv + ": compare and sweep write no per-run file");
  ExpectOneLineError(RunCli({"compare", "--synthetic", "10", "--rate", "5", "--a", "--gpu h100 --requests " + csv, "--b",
                             "--gpu a100-80gb", "--quiet"}),
                     "--requests " + csv + ": compare and sweep write no per-run file");
  ExpectOneLineError(RunCli({"sweep", "--synthetic", "10", "--rate", "5", "--sweep", "max-num-seqs=8,16", "--report",
                             dir.File("r.html"), "--quiet"}),
                     "compare and sweep write no per-run file");
  EXPECT_FALSE(std::filesystem::exists(csv));
}

// Every deployment too big for its GPU: the JSON named was never written, yet the exit code was 0.
TEST(InvalidInputsCliTest, ACompareWithNothingToWriteFails) {
  const testing::TempDir dir;
  const std::string json = dir.File("c.json");
  const auto r = RunCli({"compare", "--synthetic", "10", "--rate", "5", "--model", "meta-llama/Llama-3.1-70B-Instruct",
                         "--a", "--gpu l4", "--b", "--gpu a10", "--json", json});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--json " + json + ": no deployment fits, so there is nothing to write"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(json));
}

// --replicas past what the machine holds: each replica's KV pool and engine state is measured on
// the first and the total refused before the others are built (the kernel killed the run before).
TEST(InvalidInputsCliTest, AFleetBeyondTheMachineIsRefusedWithItsEstimate) {
  ExpectOneLineError(RunCli({"replay", "--synthetic", "10", "--rate", "5", "--gpu", "h100", "--replicas", "100000000",
                             "--quiet"}),
                     "--replicas 100000000: the replay would need about");
}

// A deployment spec starting with --flag=value is kvsim's own options (it was taken for a pasted server
// line, for its '=', and refused as not starting with vllm serve); VAR=value before vllm serve still is one.
TEST(InvalidInputsCliTest, ACompareSpecMayStartWithAnOptionEqualsValue) {
  const auto r = RunCli({"compare", "--gpu", "h100", "--synthetic", "10", "--rate", "2", "--json", "-", "--a",
                         "--max-num-seqs 16", "--b", "--max-num-seqs=32"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto pasted = RunCli({"compare", "--gpu", "h100", "--synthetic", "10", "--rate", "2", "--a", "--max-num-seqs 16",
                              "--b", "CUDA_VISIBLE_DEVICES=0 vllm serve meta-llama/Llama-3.1-8B-Instruct --max-num-seqs 32"});
  EXPECT_EQ(pasted.exit_code, 0) << pasted.err;
}

}  // namespace
}  // namespace kvsim
