// Two hundred and thirty-six `vllm serve` lines as published in vLLM's docs and recipes, model cards, blog
// posts and issues (tests/data/vllm_serve_lines.tsv cites each; S119 on were published July-August 2026,
// S131, S132 and S176 on as `docker run` lines of vLLM's image; S188 on are pasted in vLLM's issues of
// 2025-2026 with their shell: prompts, sudo, export, comments, variables; S220 on come from issues and pull
// requests of vLLM, its ROCm and Ascend forks and projects that launch it), pasted whole: each is understood,
// or refused with a reason that holds -- the model has no preset or config here, the deployment does not
// fit the GPU, what it runs is not modelled, the line has a typo vLLM refuses too, or the text would not
// run in a shell as pasted. None may fail on a flag, a form or an environment variable vLLM accepts.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/testutil.h"

namespace kvsim {
namespace {

struct ServeLine {
  std::string id, source, command;
};

std::vector<ServeLine> ReadLines() {
  std::ifstream in(std::string(KVSIM_TEST_DATA_DIR) + "/vllm_serve_lines.tsv");
  std::vector<ServeLine> lines;
  std::string text;
  std::getline(in, text);  // header
  while (std::getline(in, text)) {
    std::istringstream row(text);
    ServeLine l;
    std::getline(row, l.id, '\t');
    std::getline(row, l.source, '\t');
    std::getline(row, l.command);
    if (!l.command.empty()) lines.push_back(l);
  }
  return lines;
}

// A recipe's `--config NAME.yaml` is the recipe's own file, kept in tests/data/serve_configs (each cited there).
std::string WithConfigPath(std::string command) {
  const std::string flag = "--config ";
  const size_t at = command.find(flag);
  if (at != std::string::npos && command.compare(at + flag.size(), 1, "/") != 0)
    command.insert(at + flag.size(), std::string(KVSIM_TEST_DATA_DIR) + "/serve_configs/");
  return command;
}

TEST(PublishedServeLinesTest, EachIsUnderstoodOrRefusedForAReasonThatHolds) {
  const std::vector<ServeLine> lines = ReadLines();
  ASSERT_GE(lines.size(), 236u);
  // vLLM refuses these two as well: the published line has a typo.
  const std::vector<std::string> typos = {"S025", "S037"};
  // These would not start the server as pasted, and are refused saying why: a model path with spaces
  // (a second positional), a stray `/--served-model-name` (a second model), a `<PATH>` placeholder left in.
  const std::vector<std::pair<std::string, std::string>> not_runnable = {
      {"S191", "vllm serve takes one positional argument"},
      {"S207", "names two models"},
      {"S211", "is a placeholder to fill in"}};
  int understood = 0;
  std::vector<std::string> without_preset, with_warning;
  for (const ServeLine& l : lines) {
    const auto r = testing::RunCli({"capacity", "--gpu", "h200", "--vllm-cmd", WithConfigPath(l.command)});
    // Understood whole: nothing in the line is "accepted but not modelled" without saying so, and no
    // flag, form or environment variable vLLM accepts is refused as unknown.
    const bool listed_typo = std::find(typos.begin(), typos.end(), l.id) != typos.end();
    if (!listed_typo) {
      EXPECT_EQ(r.err.find("is not a flag of vllm serve"), std::string::npos) << l.id << " (" << l.source << "): " << r.err;
    }
    if (r.exit_code == 0) {
      ++understood;
      // What kvsim does not model is said, never dropped: such a line is answered with a warning naming it.
      if (r.err.find("accepted but not modelled") != std::string::npos) with_warning.push_back(l.id);
      continue;
    }
    EXPECT_EQ(r.exit_code, 2) << l.id << ": " << r.err;
    const bool no_config = r.err.find("is neither a config.json path nor a preset") != std::string::npos;
    const bool does_not_fit = r.err.find("does not fit") != std::string::npos;
    const bool not_modelled = r.err.find("is not modelled") != std::string::npos ||
                              r.err.find("which kvsim does not model") != std::string::npos ||
                              r.err.find("kvsim does not model it") != std::string::npos;
    const bool typo = listed_typo && r.err.find("is not a flag of vllm serve (did you mean") != std::string::npos;
    const auto broken = std::find_if(not_runnable.begin(), not_runnable.end(), [&](const auto& b) { return b.first == l.id; });
    const bool not_a_command = broken != not_runnable.end() && r.err.find(broken->second) != std::string::npos;
    if (no_config) without_preset.push_back(l.id);
    EXPECT_TRUE(no_config || does_not_fit || not_modelled || typo || not_a_command) << l.id << " (" << l.source << "): " << r.err;
  }
  // Models without a bundled preset are reported, not failed: their configs come with the model catalog.
  std::string list;
  for (const std::string& id : without_preset) list += (list.empty() ? "" : " ") + id;
  std::cout << "[published serve lines] " << understood << " of " << lines.size() << " understood; "
            << without_preset.size() << " name a model without a bundled preset: " << list << "; "
            << with_warning.size() << " understood with a warning about flags not modelled\n";
  EXPECT_GE(understood, 18);
}

// The forms that were refused before, each from a published line: a flag given twice (the last
// wins, as argparse does), argparse's unique prefixes, the key=value form of --limit-mm-per-prompt,
// flags of later releases, and a context extended with --hf-overrides' rope scaling (Qwen3-0.6B:
// yarn x 4 over 32,768 original positions = 131,072).
TEST(PublishedServeLinesTest, FormsVllmAcceptsAreAccepted) {
  auto run = [](std::vector<std::string> serve) {
    std::vector<std::string> args = {"capacity", "--gpu", "h200", "--json", "-", "--"};
    args.insert(args.end(), serve.begin(), serve.end());
    return testing::RunCli(args);
  };
  auto setting = [](const testing::CommandResult& r, const char* key) {
    return nlohmann::json::parse(r.out).at("settings").at(key);
  };
  const auto twice = run({"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-num-seqs", "64", "--max-num-seqs", "128"});
  ASSERT_EQ(twice.exit_code, 0) << twice.err;
  EXPECT_EQ(setting(twice, "max_num_seqs").get<int64_t>(), 128);
  const auto prefix = run({"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--tensor-parallel", "2", "--gpu-memory-util=0.8"});
  ASSERT_EQ(prefix.exit_code, 0) << prefix.err;
  EXPECT_EQ(setting(prefix, "tensor_parallel_size").get<int64_t>(), 2);
  EXPECT_DOUBLE_EQ(setting(prefix, "gpu_memory_utilization").get<double>(), 0.8);
  const auto limits = run({"vllm", "serve", "Qwen/Qwen2.5-VL-3B-Instruct", "--limit-mm-per-prompt", "image=2,video=0"});
  EXPECT_EQ(limits.exit_code, 0) << limits.err;
  const auto later = run({"vllm", "serve", "openai/gpt-oss-120b", "-tp", "8", "-ep", "-cc.pass_config.fuse_norm_quant=true",
                          "--attention-backend", "FLASHINFER", "--moe-backend", "marlin", "--language-model-only"});
  ASSERT_EQ(later.exit_code, 0) << later.err;
  EXPECT_TRUE(setting(later, "enable_expert_parallel").get<bool>());
  EXPECT_NE(later.out.find("not modelled"), std::string::npos);  // said in the answer, not dropped
  const auto yarn = run({"vllm", "serve", "Qwen/Qwen3-0.6B", "--hf-overrides",
                         R"({"rope_parameters": {"factor": 4.0, "original_max_position_embeddings": 32768, "rope_type": "yarn"}})",
                         "--max-model-len", "131072"});
  ASSERT_EQ(yarn.exit_code, 0) << yarn.err;
  EXPECT_EQ(setting(yarn, "max_model_len").get<int64_t>(), 131072);
  // Without the override the same length is past Qwen3-0.6B's 40,960 positions.
  EXPECT_EQ(run({"vllm", "serve", "Qwen/Qwen3-0.6B", "--max-model-len", "131072"}).exit_code, 2);
}

// Forms of the lines published July-August 2026 that were refused before: --fingerprint-mode (FrontendArgs,
// vllm-project/vllm PR #40537) on the vLLM blog's GLM-5.2 disaggregated lines (S162, S163) is a flag of
// vllm serve that moves neither memory nor time; `vllm serve MODEL --omni` (S158, S159) is vLLM-Omni's
// entry point, a pipeline of stage engines kvsim does not model: refused as such, not as an unknown flag.
TEST(PublishedServeLinesTest, LinesOfMidTwentyTwentySixAreReadAsVllmReadsThem) {
  const auto fingerprint = testing::RunCli({"capacity", "--gpu", "h200", "--", "vllm", "serve",
                                            "meta-llama/Llama-3.1-8B-Instruct", "--shutdown-timeout", "300",
                                            "--fingerprint-mode=none"});
  ASSERT_EQ(fingerprint.exit_code, 0) << fingerprint.err;
  EXPECT_NE(fingerprint.err.find("accepted, no effect on memory: --shutdown-timeout, --fingerprint-mode"), std::string::npos)
      << fingerprint.err;
  for (const auto& omni : std::vector<std::vector<std::string>>{
           {"--omni", "--port", "8091"}, {"--port", "8091", "--deploy-config", "deploy.yaml", "--omni"}}) {
    std::vector<std::string> args = {"capacity", "--gpu", "h200", "--", "vllm", "serve", "Qwen/Qwen3-Omni-30B-A3B-Instruct"};
    args.insert(args.end(), omni.begin(), omni.end());
    const auto r = testing::RunCli(args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("--omni: the model would run as vLLM-Omni's pipeline of stages"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("is not a flag of vllm serve"), std::string::npos) << r.err;
  }
}

// The recipe families that had no model here are planned from the presets and aliases alone: GLM-4.7-FP8
// (S017), Nemotron-3-Nano's FP8 release (S084) and the EAGLE-3 speculator of Llama-3.1-8B (S007). The
// Nemotron checkpoint names an FP8 KV cache (kv_cache_quant_algo), which vLLM takes for --kv-cache-dtype auto
// from 0.14 (PR #30785) and not before.
TEST(PublishedServeLinesTest, RecipeFamiliesArePlannedWithoutAFile) {
  const std::vector<ServeLine> lines = ReadLines();
  auto line = [&](const std::string& id) {
    for (const ServeLine& l : lines)
      if (l.id == id) return l.command;
    ADD_FAILURE() << id << " missing";
    return std::string();
  };
  for (const std::string id : {"S007", "S017", "S084"}) {
    const auto r = testing::RunCli({"capacity", "--gpu", "h200", "--vllm-cmd", line(id)});
    EXPECT_EQ(r.exit_code, 0) << id << ": " << r.err;
  }
  auto kv_dtype = [&](const std::string& version) {
    const auto r = testing::RunCli({"capacity", "--gpu", "h200", "--json", "-", "--vllm-version", version,
                                    "--vllm-cmd", line("S084")});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code == 0 ? nlohmann::json::parse(r.out).at("settings").at("kv_cache_dtype").get<std::string>()
                            : std::string();
  };
  EXPECT_EQ(kv_dtype("0.30"), "fp8");
  EXPECT_EQ(kv_dtype("0.13"), "auto");
  const auto drafter = testing::RunCli({"capacity", "--gpu", "h200", "--vllm-cmd", line("S007")});
  EXPECT_NE(drafter.out.find("EAGLE-3 head (1 layer, draft vocab 32000)"), std::string::npos) << drafter.out;
}

}  // namespace
}  // namespace kvsim
