// The releases of vLLM's serve flags (tests/data/vllm_serve_flags.tsv, read independently of kvsim's
// table): every flag of the parsers read has an entry, and a pasted flag the modelled release lacks is
// accepted with a note naming both releases.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/testutil.h"

namespace kvsim {
namespace {

using testing::RunCli;

// A release column of tests/data/vllm_serve_flags.tsv: "" (none), "0.N", or "0.A..0.B" (the release lies
// in that range). Returns {A, B}, or {0, 0} for none.
std::pair<int, int> ReleaseRange(const std::string& text) {
  if (text.empty()) return {0, 0};
  const size_t dots = text.find("..");
  const int lo = std::stoi(text.substr(2, dots == std::string::npos ? std::string::npos : dots - 2));
  const int hi = dots == std::string::npos ? lo : std::stoi(text.substr(dots + 4));
  return {lo, hi};
}

std::vector<std::string> TsvFields(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (size_t tab = line.find('\t'); tab != std::string::npos; start = tab + 1, tab = line.find('\t', start))
    fields.push_back(line.substr(start, tab - start));
  fields.push_back(line.substr(start));
  return fields;
}

// Every flag of the vLLM parsers read (tests/data/vllm_serve_flags.tsv names the releases and commits)
// has an entry: pasted, none is "not a flag of vllm serve", and none crashes. Each row's releases,
// read independently of the table, are what the translator says: a release before the first that
// has the flag, or after the last, is told that its vllm serve would refuse it; a release that has
// it (and the default, the newest) is told nothing about it.
TEST(VllmCommandLineTest, EveryFlagOfTheParserHasAnEntryAndItsReleases) {
  std::ifstream in(testing::TestDataPath("vllm_serve_flags.tsv"));
  std::string line;
  int flags = 0, dated = 0;
  auto paste = [](const std::string& spelling, const std::string& version) {
    std::vector<std::string> args = {"capacity"};
    if (!version.empty()) args.insert(args.end(), {"--vllm-version", version});
    args.insert(args.end(), {"--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", spelling + "=1"});
    const auto r = RunCli(args);
    return std::make_pair(r.exit_code, r.out + r.err);
  };
  auto refused_by = [](const std::string& text, const std::string& flag, const std::string& version) {
    return text.find(flag + " ") != std::string::npos &&
           text.find("this plan models " + version + " (--vllm-version), whose vllm serve would refuse it") != std::string::npos;
  };
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("flag\t", 0) == 0) continue;
    const std::vector<std::string> f = TsvFields(line);
    ASSERT_EQ(f.size(), 6u) << line;
    const std::string& flag = f[0];
    std::string newest;  // what the default release, the newest, says of the flag
    for (const std::string& spelling : {flag, f[1]}) {
      if (spelling.empty()) continue;
      const auto [code, text] = paste(spelling, "");
      EXPECT_TRUE(code == 0 || code == 2) << spelling << ": " << text;
      EXPECT_EQ(text.find("is not a flag of vllm serve"), std::string::npos) << spelling << ": " << text;
      if (spelling == flag) newest = text;
    }
    const auto [first_lo, first_hi] = ReleaseRange(f[3]);
    const auto [last_lo, last_hi] = ReleaseRange(f[4]);
    const bool gone = last_hi > 0;
    // A flag of a release after the table's (0.30) is refused at every release, naming both.
    if (first_lo > 30) {
      const std::string refusal = flag + " is a flag of vLLM " + f[3] + "'s vllm serve, newer than kvsim's table of its "
                                  "flags (vLLM 0.30's, the newest release kvsim models), which kvsim does not model";
      EXPECT_NE(newest.find(refusal), std::string::npos) << flag << ": " << newest;
      EXPECT_NE(paste(flag, "0.20").second.find(refusal), std::string::npos) << flag << " at 0.20";
      ++flags, ++dated;
      continue;
    }
    // The newest release (the default) has every flag but those gone.
    EXPECT_EQ(refused_by(newest, flag, "0.30"), gone) << flag << ": " << newest;
    if (first_lo > 0) {
      const std::string before = "0." + std::to_string(first_lo - 1);
      EXPECT_TRUE(refused_by(paste(flag, before).second, flag, before)) << flag << " at " << before;
      const std::string from = "0." + std::to_string(first_hi);
      EXPECT_EQ(paste(flag, from).second.find("whose vllm serve"), std::string::npos) << flag << " at " << from;
      ++dated;
    }
    if (gone) {
      const std::string last = "0." + std::to_string(last_lo);
      EXPECT_EQ(paste(flag, last).second.find("whose vllm serve"), std::string::npos) << flag << " at " << last;
      ++dated;
    }
    ++flags;
  }
  EXPECT_GE(flags, 300);
  EXPECT_GE(dated, 130);
}

// A pasted flag that only exists in a newer vLLM than the release modelled is accepted with a note in
// the text and the JSON, naming both releases, and saying that vLLM of that release would refuse it
// (--grpc: PR #30190, first in v0.14.0; --moe-backend: PR #33807, 0.16..0.18, the release not
// established).
TEST(VllmCommandLineTest, AFlagNewerThanTheModelledReleaseSaysSo) {
  const auto r = RunCli({"capacity", "--vllm-version", "0.12", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct",
                         "--grpc"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("note: --grpc exists from vLLM 0.14 on; this plan models 0.12 (--vllm-version), whose vllm serve "
                       "would refuse it"),
            std::string::npos) << r.out;
  const auto j = RunCli({"capacity", "--vllm-version", "0.11", "--json", "-", "--", "vllm", "serve",
                         "meta-llama/Llama-3.1-8B-Instruct", "--moe-backend", "triton"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const nlohmann::json notes = nlohmann::json::parse(j.out).at("notes");
  EXPECT_NE(std::find(notes.begin(), notes.end(),
                      "--moe-backend was added in a vLLM release of 0.16-0.18 (which one is not established); this plan "
                      "models 0.11 (--vllm-version), whose vllm serve would refuse it"),
            notes.end()) << notes.dump();
  // Within the range, kvsim does not claim more than it read.
  const auto maybe = RunCli({"capacity", "--vllm-version", "0.17", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct",
                             "--moe-backend", "triton"});
  ASSERT_EQ(maybe.exit_code, 0) << maybe.err;
  EXPECT_NE(maybe.out.find("this plan models 0.17 (--vllm-version), whose vllm serve may refuse it"), std::string::npos)
      << maybe.out;
  // At the default, the newest release, it is a flag like any other.
  const auto newest = RunCli({"capacity", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--moe-backend", "triton"});
  ASSERT_EQ(newest.exit_code, 0) << newest.err;
  EXPECT_EQ(newest.out.find("--moe-backend was added"), std::string::npos) << newest.out;
}

// A flag vLLM 0.31 added (its release notes; tests/data/vllm_serve_flags.tsv cites each PR) is newer than the
// table, which is 0.30's: refused with exit code 2, naming both releases, never taken for a typo nor dropped.
// --device-memory-utilization (PR #56547) is 0.31's second spelling of --gpu-memory-utilization; 0.30 had only
// the first.
TEST(VllmCommandLineTest, AFlagOfAReleaseAfterTheTableIsRefusedNamingBoth) {
  for (const std::vector<std::string>& flag : std::vector<std::vector<std::string>>{
           {"--max-num-active-seqs", "64"}, {"--device-memory-utilization", "0.9"}, {"--trust-request-mm-kwargs"},
           {"--long-prefill-token-threshold-adaptive"}, {"--log-level", "INFO"}}) {
    std::vector<std::string> args = {"capacity", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"};
    args.insert(args.end(), flag.begin(), flag.end());
    const auto r = RunCli(args);
    EXPECT_EQ(r.exit_code, 2) << flag[0] << ": " << r.out;
    EXPECT_NE(r.err.find(flag[0] + " is a flag of vLLM 0.31's vllm serve, newer than kvsim's table of its flags "
                         "(vLLM 0.30's, the newest release kvsim models), which kvsim does not model"),
              std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("is not a flag of vllm serve"), std::string::npos) << r.err;
  }
  // So is the value 0.31 gave a flag the table has: MoonEP's all-to-all (PR #52101).
  const auto moonep = RunCli({"capacity", "--", "vllm", "serve", "Qwen/Qwen3-30B-A3B", "-tp", "2", "-ep",
                              "--all2all-backend=moonep"});
  EXPECT_EQ(moonep.exit_code, 2);
  EXPECT_NE(moonep.err.find("--all2all-backend moonep: a value of vLLM 0.31's vllm serve, newer than kvsim's table of its "
                            "flags (vLLM 0.30's"),
            std::string::npos) << moonep.err;
  // argparse's abbreviation of it is the same flag.
  const auto abbreviated = RunCli({"capacity", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct",
                                   "--max-num-active", "64"});
  EXPECT_EQ(abbreviated.exit_code, 2);
  EXPECT_NE(abbreviated.err.find("--max-num-active-seqs is a flag of vLLM 0.31's"), std::string::npos) << abbreviated.err;
}

// vLLM's online quantization shorthands (PR #38138): fp8_per_tensor is kvsim's on-the-fly fp8 (one scale per
// tensor), so the plan is the same; fp8_per_block is planned as fp8 and says its block scales are not counted;
// mxfp8 is refused. Before 0.16 (the PR came after 0.15.0) the value gets the note a flag of a later release gets.
// vLLM's KV cache formats kvsim's layout lacks (per-token-head, NVFP4, TurboQuant; PR #53299) are refused as such.
TEST(VllmCommandLineTest, VllmValuesKvsimsFlagLacksArePlannedAsWhatTheyAreOrRefused) {
  auto settings = [](const std::string& quantization, const std::string& version) {
    std::vector<std::string> args = {"capacity", "--gpu", "h200", "--json", "-"};
    if (!version.empty()) args.insert(args.end(), {"--vllm-version", version});
    args.insert(args.end(), {"--", "vllm", "serve", "Qwen/Qwen3-8B", "--quantization", quantization});
    return RunCli(args);
  };
  const auto shorthand = settings("fp8_per_tensor", ""), fp8 = settings("fp8", "");
  ASSERT_EQ(shorthand.exit_code, 0) << shorthand.err;
  ASSERT_EQ(fp8.exit_code, 0) << fp8.err;
  EXPECT_EQ(nlohmann::json::parse(shorthand.out).at("settings"), nlohmann::json::parse(fp8.out).at("settings"));
  const auto block = settings("fp8_per_block", "");
  ASSERT_EQ(block.exit_code, 0) << block.err;
  EXPECT_NE(block.out.find("fp8_per_block (planned as fp8 with one scale per tensor, not per 128x128 block)"),
            std::string::npos) << block.out;
  const auto mx = settings("mxfp8", "");
  EXPECT_EQ(mx.exit_code, 2);
  EXPECT_NE(mx.err.find("--quantization mxfp8: a value vLLM takes, which kvsim does not model"), std::string::npos) << mx.err;
  // KV cache formats vLLM takes that kvsim's cache layout does not have: refused as not modelled, not unknown.
  for (const std::string format : {"int8_per_token_head", "turboquant_k8v4", "nvfp4"}) {
    const auto kv = RunCli({"capacity", "--gpu", "h200", "--", "vllm", "serve", "Qwen/Qwen3-8B", "--kv-cache-dtype", format});
    EXPECT_EQ(kv.exit_code, 2) << format;
    EXPECT_NE(kv.err.find("--kv-cache-dtype " + format + ": a value vLLM takes, which kvsim does not model"), std::string::npos)
        << kv.err;
  }
  const auto early = settings("fp8_per_tensor", "0.14");
  ASSERT_EQ(early.exit_code, 0) << early.err;
  EXPECT_NE(early.out.find("--quantization fp8_per_tensor was added in a vLLM release of 0.16-0.30 (which one is not "
                           "established); this plan models 0.14 (--vllm-version), whose vllm serve would refuse it"),
            std::string::npos) << early.out;
}

// A flag removed before the release modelled: accepted (with what it did), with a note that vLLM of
// that release would refuse it. lora_extra_vocab_size was removed in v0.12.0; --swap-space is in
// v0.11's parser and not in the newest read.
TEST(VllmCommandLineTest, AFlagRemovedBeforeTheModelledReleaseSaysSo) {
  const auto r = RunCli({"capacity", "--vllm-version", "0.19", "--json", "-", "--", "vllm", "serve",
                         "meta-llama/Llama-3.1-8B-Instruct", "--enable-lora", "--lora-extra-vocab-size", "256"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json notes = nlohmann::json::parse(r.out).at("notes");
  EXPECT_NE(std::find(notes.begin(), notes.end(),
                      "--lora-extra-vocab-size was last in vLLM 0.11; this plan models 0.19 (--vllm-version), whose vllm "
                      "serve would refuse it"),
            notes.end()) << notes.dump();
  const auto swap = RunCli({"capacity", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--swap-space", "16"});
  ASSERT_EQ(swap.exit_code, 0) << swap.err;
  EXPECT_NE(swap.out.find("note: --swap-space is in vLLM 0.11's parser but not in 0.30's (the release that dropped it is not "
                          "established); this plan models 0.30 (--vllm-version), whose vllm serve would refuse it"),
            std::string::npos) << swap.out;
  const auto v011 = RunCli({"capacity", "--vllm-version", "0.11", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct",
                            "--swap-space", "16"});
  ASSERT_EQ(v011.exit_code, 0) << v011.err;
  EXPECT_EQ(v011.out.find("--swap-space is in"), std::string::npos) << v011.out;
  // A flag of the releases before 0.11 (vLLM 0.6's docs; not in v0.11's parser): refused by today's vLLM.
  const auto v2 = RunCli({"capacity", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--use-v2-block-manager"});
  ASSERT_EQ(v2.exit_code, 0) << v2.err;
  EXPECT_NE(v2.out.find("note: --use-v2-block-manager is a flag of vLLM releases before 0.11 (not in 0.11's parser); this "
                        "plan models 0.30 (--vllm-version), whose vllm serve would refuse it"),
            std::string::npos) << v2.out;
}

// A flag in no parser read stays "not a flag", and says whose table that is, so a user of a vLLM newer
// than kvsim's table knows why.
TEST(VllmCommandLineTest, AnUnknownFlagNamesTheReleaseOfTheTable) {
  const auto r = RunCli({"capacity", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--kv-cache-shards", "4"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'--kv-cache-shards' is not a flag of vllm serve"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kvsim's table of its flags is vLLM 0.30's, the newest release it models, so a flag added later is "
                       "not known to it"),
            std::string::npos) << r.err;
}


// replay says the same in its warnings, text and JSON; refused, it still says it (on stderr).
TEST(VllmCommandLineTest, ReplaySaysAFlagTheModelledReleaseLacksInItsWarnings) {
  const auto r = RunCli({"replay", "--synthetic", "20", "--rate", "2", "--quiet", "--vllm-version", "0.12", "--json", "-", "--",
                         "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--grpc"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json warnings = nlohmann::json::parse(r.out).at("warnings");
  ASSERT_FALSE(warnings.empty());
  EXPECT_NE(warnings[0].get<std::string>().find("--grpc exists from vLLM 0.14 on"), std::string::npos) << warnings;
  const auto refused = RunCli({"replay", "--synthetic", "20", "--rate", "2", "--vllm-version", "0.12", "--", "vllm", "serve",
                               "meta-llama/Llama-3.1-8B-Instruct", "--grpc", "--max-num-seqs", "0"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("note: --grpc exists from vLLM 0.14 on"), std::string::npos) << refused.err;
}
}  // namespace
}  // namespace kvsim
