// Model look-up of a local checkpoint path that is not on this machine, as pasted `vllm serve` lines
// give them: planned as the model the path names, with a note saying so.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "kvcache/base/error.h"
#include "kvcache/model/model_catalog.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

bool HasNoteStartingWith(const ModelSpec& spec, const std::string& prefix) {
  return std::any_of(spec.notes.begin(), spec.notes.end(), [&](const std::string& n) { return n.rfind(prefix, 0) == 0; });
}

TEST(ModelCatalogTest, AMissingLocalPathIsPlannedAsThePresetItsLastPartNames) {
  const ModelSpec spec = ResolveModel("/mnt/models/Qwen3-8B/", DataDirectory());
  EXPECT_EQ(spec.name, "Qwen/Qwen3-8B");
  EXPECT_TRUE(HasNoteStartingWith(spec, "'/mnt/models/Qwen3-8B/' is not on this machine: planned as Qwen/Qwen3-8B"));
  // The same shapes as the preset read by its id.
  const ModelSpec preset = ResolveModel("Qwen/Qwen3-8B", DataDirectory());
  EXPECT_EQ(spec.num_layers, preset.num_layers);
  EXPECT_EQ(spec.num_kv_heads, preset.num_kv_heads);
}

TEST(ModelCatalogTest, TheHuggingFaceCacheFolderNamesTheRepository) {
  // huggingface_hub keeps repo ORG/NAME in models--ORG--NAME/snapshots/REVISION.
  const ModelSpec spec =
      ResolveModel("/root/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/9c925d64d72725edaf899c6cb9c377fd0709d9c5", DataDirectory());
  EXPECT_EQ(spec.name, "Qwen/Qwen3-8B");
}

TEST(ModelCatalogTest, ThePathsLastTwoPartsMayNameAnAliasWhoseNotesFollow) {
  const ModelSpec spec = ResolveModel("../models/nvidia/Qwen3.6-35B-A3B-NVFP4/", DataDirectory());
  EXPECT_EQ(spec.name, "nvidia/Qwen3.6-35B-A3B-NVFP4");
  ASSERT_GE(spec.notes.size(), 2u);
  EXPECT_EQ(spec.notes[0].rfind("'../models/nvidia/Qwen3.6-35B-A3B-NVFP4/' is not on this machine", 0), 0u);
  EXPECT_TRUE(HasNoteStartingWith(spec, "planned with preset "));
}

TEST(ModelCatalogTest, ANameSharedByTwoPresetsIsRefusedNamingBoth) {
  testing::TempDir dir;
  const std::filesystem::path models = std::filesystem::path(dir.path()) / "models";
  for (const char* org : {"org-a", "org-b"}) {
    std::filesystem::create_directories(models / org);
    std::filesystem::copy_file(DataDirectory() + "/models/Qwen/Qwen3-8B.json", models / org / "Tiny-1B.json");
  }
  try {
    ResolveModel("/srv/ckpt/Tiny-1B", dir.path());
    FAIL() << "an ambiguous name was planned";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("org-a/Tiny-1B"), std::string::npos) << what;
    EXPECT_NE(what.find("org-b/Tiny-1B"), std::string::npos) << what;
  }
  // Its org and name together are not ambiguous.
  EXPECT_EQ(ResolveModel("/srv/ckpt/org-b/Tiny-1B", dir.path()).name, "org-b/Tiny-1B");
}

TEST(ModelCatalogTest, APathNamingNoPresetAndAnUnknownHubIdAreStillRefused) {
  EXPECT_THROW(ResolveModel("/srv/ckpt/my-finetune-7b", DataDirectory()), Error);
  // ORG/NAME is a Hugging Face id, which vLLM downloads by that name: an unknown org is not guessed.
  EXPECT_THROW(ResolveModel("Qwen3/Qwen3-8B", DataDirectory()), Error);
}

std::string LookUpError(const std::string& name) {
  try {
    ResolveModel(name, DataDirectory());
  } catch (const Error& e) {
    return e.what();
  }
  return "planned";
}

TEST(ModelCatalogTest, AQuantizedReleaseOfAPresetIsRefusedWithTheFlagsThatPlanIt) {
  // Quantizers name a release as the base model plus the format.
  EXPECT_NE(LookUpError("someone/Qwen3-8B-AWQ").find("a quantized release of preset Qwen/Qwen3-8B: --model Qwen/Qwen3-8B "
                                                     "--quantization awq"),
            std::string::npos);
  EXPECT_NE(LookUpError("/srv/models/GLM-4.5-Air-GPTQ-Int4").find("--model zai-org/GLM-4.5-Air --quantization gptq"),
            std::string::npos);
  // NVFP4 comes only from a checkpoint's quantization_config.
  EXPECT_NE(LookUpError("someone/Llama-3.1-70B-Instruct-NVFP4").find("in a format --quantization cannot give"),
            std::string::npos);
  // No base preset, no hint.
  EXPECT_EQ(LookUpError("someone/My-Finetune-AWQ").find("quantized release"), std::string::npos);
}

TEST(ModelCatalogTest, APastedServeLinesLocalPathIsPlannedWithTheNoteInTextAndJson) {
  testing::TempDir dir;
  const std::string json = dir.File("capacity.json");
  const auto r = testing::RunCli({"capacity", "--gpu", "h100", "--json", json, "--vllm-cmd",
                                  "CUDA_VISIBLE_DEVICES=0 vllm serve /data/models/Qwen3-8B --max-model-len 8192"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("note: '/data/models/Qwen3-8B' is not on this machine: planned as Qwen/Qwen3-8B"), std::string::npos) << r.out;
  EXPECT_NE(testing::ReadFile(json).find("is not on this machine: planned as Qwen/Qwen3-8B"), std::string::npos);
}

}  // namespace
}  // namespace kvsim
