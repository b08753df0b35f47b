// Presets of the Qwen3 / Qwen3.5 / Qwen3.6, Nemotron-3 and Llama families and the alias table
// (data/models/ALIASES.tsv), each against the parameter counts its model card publishes. The
// expected figures are the cards'; the tolerance covers their rounding and, for multimodal models,
// kvsim's estimate of the vision tower.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "kvcache/base/error.h"
#include "kvcache/model/model_aliases.h"
#include "kvcache/model/model_catalog.h"
#include "kvcache/model/model_config_parser.h"
#include "kvcache/model/weight_tensors.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

ModelSpec Named(const std::string& id) { return ResolveModel(id, DataDirectory()); }
double Billions(int64_t n) { return static_cast<double>(n) / 1e9; }

// Qwen3-235B-A22B: "235B in total and 22B activated", 94 layers, 64 Q / 4 KV heads, 128 experts, 8
// activated (https://huggingface.co/Qwen/Qwen3-235B-A22B, "Model Overview"). By hand: 94 layers of
// 71.3M attention and 128 x 18.87M experts, plus 1.245B of untied embedding and head: 235.1B.
TEST(PresetFamiliesTest, Qwen3MoeBf16AndCoderMatchTheirCards) {
  const ModelSpec qwen = Named("Qwen/Qwen3-235B-A22B");
  EXPECT_NEAR(Billions(CountParameters(qwen)), 235.0, 235.0 * 0.01);
  EXPECT_NEAR(Billions(CountActiveParameters(qwen)), 22.0, 22.0 * 0.03);
  EXPECT_EQ(qwen.checkpoint_quantization.method, QuantMethod::kNone);
  // Qwen3-Coder-480B-A35B-Instruct: "480B total, 35B activated", 62 layers, 96 Q / 8 KV heads, 160
  // experts, 8 activated (https://huggingface.co/Qwen/Qwen3-Coder-480B-A35B-Instruct).
  const ModelSpec coder = Named("Qwen/Qwen3-Coder-480B-A35B-Instruct");
  EXPECT_NEAR(Billions(CountParameters(coder)), 480.0, 480.0 * 0.01);
  EXPECT_NEAR(Billions(CountActiveParameters(coder)), 35.0, 35.0 * 0.03);
  EXPECT_EQ(coder.num_layers, 62);
  EXPECT_EQ(coder.num_kv_heads, 8);
}

// Qwen3-VL-235B-A22B-Instruct: the language model of Qwen3-235B-A22B (235B, 22B activated) with a
// 27-block vision tower of about 0.4B (https://huggingface.co/Qwen/Qwen3-VL-235B-A22B-Instruct).
TEST(PresetFamiliesTest, Qwen3Vl235bInstructMatchesItsCard) {
  const ModelSpec spec = Named("Qwen/Qwen3-VL-235B-A22B-Instruct");
  EXPECT_NEAR(Billions(CountParameters(spec)), 235.0, 235.0 * 0.01);
  EXPECT_NEAR(Billions(CountActiveParameters(spec)), 22.0, 22.0 * 0.03);
  EXPECT_GT(spec.vision_params, 300000000);
  EXPECT_LT(spec.vision_params, 600000000);
}

// Qwen3.5-397B-A17B: "397B in total and 17B activated", 60 layers laid out as 15 x (3 Gated DeltaNet
// + 1 gated attention), 512 experts, 10 routed + 1 shared (https://huggingface.co/Qwen/Qwen3.5-397B-A17B).
// Its one MTP layer is not part of the 397B (vLLM loads it only as the MTP drafter).
TEST(PresetFamiliesTest, Qwen35MoeMatchesItsCard) {
  const ModelSpec spec = Named("Qwen/Qwen3.5-397B-A17B");
  EXPECT_NEAR(Billions(CountParameters(spec)), 397.0, 397.0 * 0.01);
  EXPECT_NEAR(Billions(CountActiveParameters(spec)), 17.0, 17.0 * 0.03);
  EXPECT_EQ(spec.mtp_layers, 1);
  // RoPE over a quarter of each 256-wide head (rope_parameters.partial_rotary_factor 0.25).
  EXPECT_EQ(spec.rotary_dim, 64);
  ASSERT_EQ(spec.layers.size(), 60u);
  EXPECT_EQ(spec.kv_layers(), 15);
  for (size_t i = 0; i < spec.layers.size(); ++i)
    EXPECT_EQ(spec.layers[i].kind, (i + 1) % 4 == 0 ? AttentionKind::kFull : AttentionKind::kStateOnly) << i;
  // Gated DeltaNet state: 16 key heads and 64 value heads of 128 (the config's linear_* fields).
  EXPECT_EQ(spec.state.formula, StateLayerFormula::kGatedDeltaNet);
  EXPECT_EQ(spec.state.num_k_heads, 16);
  EXPECT_EQ(spec.state.num_v_heads, 64);
  // The config asks for a float32 SSM state (mamba_ssm_dtype), which vLLM's Qwen3.5 hook applies.
  EXPECT_EQ(spec.checkpoint_state_ssm_dtype, "float32");
}

// Qwen3.6-35B-A3B: "35B in total", 40 layers (10 x (3 Gated DeltaNet + 1 gated attention)), 256
// experts, 8 routed + 1 shared (https://huggingface.co/Qwen/Qwen3.6-35B-A3B). The card's "3B activated"
// is the name's rounded-down figure; by hand 40 x 28.8M of routed and shared experts, 1.28B of
// mixers and 1.02B of embedding and head come to 3.45B, which the test bounds by the name.
TEST(PresetFamiliesTest, Qwen36MoeMatchesItsCard) {
  const ModelSpec spec = Named("Qwen/Qwen3.6-35B-A3B");
  EXPECT_NEAR(Billions(CountParameters(spec)), 35.0, 35.0 * 0.01);
  const double active = Billions(CountActiveParameters(spec));
  EXPECT_GE(active, 3.0);
  EXPECT_LT(active, 4.0);
  EXPECT_EQ(spec.kv_layers(), 10);
}

// NVIDIA-Nemotron-3-Nano-30B-A3B: "31.6B total parameters ... approximately 3.2B active (3.6B including
// embeddings)" (https://huggingface.co/nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16). NVIDIA's ModelOpt
// pruning example for this checkpoint logs its exact totals, "Total Parameters 31.58B, Active Parameters
// 3.58B", and vLLM's "Model loading memory" of 58.9 GiB on one H100 (Model-Optimizer's README "Nemotron-3-
// Nano-30B-A3B: Prune + Distill + Quantize + vLLM Deployment", search-index file 55503058637). Its 52
// blocks (hybrid_override_pattern) are 23 Mamba2 mixers, 23 MoE blocks and 6 attention blocks. By hand:
// 23 x 38.7M Mamba2, 6 x 23.4M attention, 23 x 1,297M MoE (128 squared-ReLU experts of 2 x 2,688 x
// 1,856, a 3,712-wide shared one), 0.70B embedding and head: 31.58B.
TEST(PresetFamiliesTest, Nemotron3NanoHybridMatchesItsCard) {
  const ModelSpec spec = Named("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16");
  EXPECT_NEAR(Billions(CountParameters(spec)), 31.58, 0.01);
  EXPECT_NEAR(Billions(CountActiveParameters(spec)), 3.58, 0.01);
  EXPECT_NEAR(2.0 * static_cast<double>(CountParameters(spec)) / (1024.0 * 1024.0 * 1024.0), 58.9, 0.1);
  ASSERT_EQ(spec.layers.size(), 52u);
  int mamba = 0, attention = 0, ffn_only = 0;
  for (const LayerAttention& l : spec.layers) {
    mamba += l.has_mixer && l.kind == AttentionKind::kStateOnly;
    attention += l.HasOwnKv();
    ffn_only += !l.has_mixer;
  }
  EXPECT_EQ(mamba, 23);
  EXPECT_EQ(attention, 6);
  EXPECT_EQ(ffn_only, 23);
  EXPECT_EQ(spec.kv_layers(), 6);
  EXPECT_EQ(spec.attention_layers(), 6);
  EXPECT_EQ(spec.state.formula, StateLayerFormula::kMamba2);
  EXPECT_EQ(spec.checkpoint_state_ssm_dtype, "float32");
}

// A pattern that does not describe every layer is refused, naming both lengths.
TEST(PresetFamiliesTest, NemotronHPatternOfTheWrongLengthIsRefused) {
  try {
    testing::SpecFromJson(R"({"architectures":["NemotronHForCausalLM"],"model_type":"nemotron_h",
      "hidden_size":256,"intermediate_size":512,"num_hidden_layers":3,"num_attention_heads":4,
      "num_key_value_heads":2,"vocab_size":1000,"max_position_embeddings":4096,
      "hybrid_override_pattern":"M*","mamba_num_heads":4,"mamba_head_dim":32,"ssm_state_size":16})");
    FAIL() << "accepted a 2-block pattern for 3 layers";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("hybrid_override_pattern: has 2 blocks but num_hidden_layers is 3"),
              std::string::npos) << e.what();
  }
}

// Every alias names a shipped preset and parses; the -FP8 twins carry the 128 x 128 block FP8 their
// cards state, and the same shapes as their preset.
TEST(PresetFamiliesTest, EveryAliasResolvesToItsPresetWithItsPatch) {
  const std::vector<ModelAlias> aliases = LoadModelAliases(DataDirectory());
  ASSERT_FALSE(aliases.empty());
  const std::vector<std::string> presets = ListModelPresets(DataDirectory());
  for (const ModelAlias& a : aliases) {
    EXPECT_NE(std::find(presets.begin(), presets.end(), a.preset), presets.end()) << a.id;
    EXPECT_EQ(std::find(presets.begin(), presets.end(), a.id), presets.end()) << a.id << " is also a preset file";
    const ModelSpec alias = Named(a.id);
    const ModelSpec base = Named(a.preset);
    EXPECT_EQ(alias.name, a.id);
    EXPECT_EQ(CountParameters(alias), CountParameters(base)) << a.id;
  }
  const ModelSpec fp8 = Named("qwen/qwen3-next-80b-a3b-instruct-fp8");  // ids match ignoring case
  EXPECT_EQ(fp8.checkpoint_quantization.method, QuantMethod::kFp8);
  EXPECT_EQ(fp8.checkpoint_quantization.block_rows, 128);
  EXPECT_EQ(fp8.checkpoint_quantization.block_cols, 128);
  EXPECT_EQ(Named("Qwen/Qwen3-Next-80B-A3B-Instruct").checkpoint_quantization.method, QuantMethod::kNone);
  // nvidia's ModelOpt FP8 Llama: Llama-3.3-70B's shapes (70.6B), FP8 weights.
  const ModelSpec llama = Named("nvidia/Llama-3.3-70B-Instruct-FP8");
  EXPECT_EQ(llama.checkpoint_quantization.method, QuantMethod::kFp8);
  EXPECT_NEAR(Billions(CountParameters(llama)), 70.6, 0.1);
}

// An alias's patch meets the user's --hf-overrides after it: the user's word wins.
TEST(PresetFamiliesTest, OverridesApplyAfterTheAliasPatch) {
  const ModelSpec spec = ResolveModel("Qwen/Qwen3-VL-235B-A22B-Instruct-FP8", DataDirectory(), "--model", "",
                                      nlohmann::json::parse(R"({"quantization_config": null})"));
  EXPECT_EQ(spec.checkpoint_quantization.method, QuantMethod::kNone);
}

class AliasFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("kvsim_alias_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_ / "models");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Write(const std::string& text) { std::ofstream(dir_ / "models" / "ALIASES.tsv") << text; }
  std::string Error() {
    try {
      LoadModelAliases(dir_.string());
    } catch (const kvsim::Error& e) {
      return e.what();
    }
    return "";
  }
  std::filesystem::path dir_;
};

// A malformed row is refused with the file, line and field, never skipped.
TEST_F(AliasFileTest, MalformedRowsAreRefusedWithFileLineAndField) {
  const std::string header = "# comment\nalias\tpreset\tpatch\tsource\n";
  Write(header + "a/b\tc/d\t{}\n");
  EXPECT_NE(Error().find("ALIASES.tsv:3: expected 4 tab-separated fields"), std::string::npos) << Error();
  Write(header + "a/b\tc/d\t{not json\tcard\n");
  EXPECT_NE(Error().find("ALIASES.tsv:3: patch: not JSON"), std::string::npos) << Error();
  Write(header + "a/b\tc/d\t[1]\tcard\n");
  EXPECT_NE(Error().find("ALIASES.tsv:3: patch: must be a JSON object"), std::string::npos) << Error();
  Write(header + "a/b\tc/d\t{}\t\n");
  EXPECT_NE(Error().find("ALIASES.tsv:3: source: empty"), std::string::npos) << Error();
  Write(header + "a/b\tc/d\t{}\tcard\nA/B\tc/d\t{}\tcard\n");
  EXPECT_NE(Error().find("ALIASES.tsv:4: alias: 'A/B' is listed twice"), std::string::npos) << Error();
  Write("alias\tpreset\tpatch\n");
  EXPECT_NE(Error().find("ALIASES.tsv:1: expected 4"), std::string::npos) << Error();
  Write("id\tpreset\tpatch\tsource\n");
  EXPECT_NE(Error().find("ALIASES.tsv:1: the header must be"), std::string::npos) << Error();
  // An alias whose preset is missing is refused when it is asked for, naming the preset.
  Write(header + "a/b\tc/d\t{}\tcard\n");
  try {
    ResolveModel("a/b", dir_.string());
    FAIL() << "resolved an alias of a missing preset";
  } catch (const kvsim::Error& e) {
    EXPECT_NE(std::string(e.what()).find("is an alias of preset 'c/d', which is not in"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kvsim
