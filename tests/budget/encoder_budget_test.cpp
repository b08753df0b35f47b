// The vision encoder's share of vLLM's start-up profile (EncoderProfile): how many items the encoder
// budget profiles, their activation peak and the buffers kept for the language model's run, against
// the model code's rules and real start-up logs, with figures derived by hand from the configs.
#include <gtest/gtest.h>

#include <string>

#include "kvcache/base/units.h"
#include "kvcache/budget/capacity_planner.h"
#include "kvcache/budget/deployment.h"
#include "kvcache/budget/encoder_budget.h"
#include "kvcache/model/model_catalog.h"
#include "tests/testutil.h"

namespace kvsim {
namespace {

// The encoder profile of Qwen3-VL-30B-A3B (vision_config: hidden 1152, intermediate 4304, patch 16,
// temporal patch 2, spatial merge 2, 3 deepstack levels). The processor's largest image is
// 16,777,216 px = 16,384 merged 32x32 cells = 65,536 ViT patches; with an 8,192-token step budget the
// encoder budget is max(8192, 16384) = 16384, so one image. Peak: 65,536 x max(6 x 1152,
// 2 x 1152 + 2 x 4304) x 2 B = 1,430,257,664 B; outputs kept for the LM run: 16,384 x 2048 x 2 B x
// (1 + 3) = 268,435,456 B; pixel values kept throughout: 65,536 x 3 x 2 x 16^2 x 2 B = 201,326,592 B.
TEST(EncoderBudgetTest, QwenThreeVlLargestImage) {
  const ModelSpec spec = ResolveModel("Qwen/Qwen3-VL-30B-A3B-Instruct", DataDirectory());
  MultimodalSettings mm;
  EncoderProfileSettings s{8192, 1024, 8192, 2.0, 1, ParseVllmVersion("0.19")};
  EncoderProfile p = EstimateEncoderProfile(spec, mm, s, 0.0);
  EXPECT_FALSE(p.video);
  EXPECT_EQ(p.items, 1);
  EXPECT_EQ(p.tokens_per_item, 16384);
  EXPECT_DOUBLE_EQ(p.pixel_bytes, 201326592.0);
  EXPECT_DOUBLE_EQ(p.encoder_peak_bytes, 1430257664.0);
  EXPECT_DOUBLE_EQ(p.outputs_bytes, 268435456.0);
  EXPECT_DOUBLE_EQ(p.extra_bytes, 201326592.0 + 1430257664.0);
  // An LM peak of 2 GiB already covers the encoder: only the kept outputs and pixels add to it.
  EXPECT_DOUBLE_EQ(EstimateEncoderProfile(spec, mm, s, GiBToBytes(2)).extra_bytes, 268435456.0 + 201326592.0);
  // --mm-processor-kwargs '{"max_pixels": 1003520}': 980 tokens an image, 8192 // 980 = 8 images.
  mm.max_pixels = 1003520;
  p = EstimateEncoderProfile(spec, mm, s, 0.0);
  EXPECT_EQ(p.tokens_per_item, 980);
  EXPECT_EQ(p.items, 8);
  // --limit-mm-per-prompt '{"image": 0, "video": 0}' and --skip-mm-profiling leave the encoder out.
  mm.limit_per_prompt = {{"image", 0}, {"video", 0}};
  EXPECT_DOUBLE_EQ(EstimateEncoderProfile(spec, mm, s, 0.0).extra_bytes, 0.0);
  MultimodalSettings skip;
  skip.skip_profiling = true;
  EXPECT_DOUBLE_EQ(EstimateEncoderProfile(spec, skip, s, 0.0).extra_bytes, 0.0);
}

// vLLM 0.11's Qwen3-VL profiles a video (the 4 x RTX 3090 log: "budget of 153600 tokens, and
// profiled with 1 video items"). Frames share 24,576 cells: 2 frames of 110^2 = 12,100 tokens,
// 3 frames 2 x 90^2 = 16,200, and past that the count only falls to 24,576 frames of one cell,
// 12,288 tokens, so at 65,536 of context the video has 12,288 embeddings, 49,152 patches, and
// counts 12.5 x 12,288 = 153,600 placeholder tokens; below 16,200 of context it stops at 2 frames.
// On TP 4 with 2,048 batched tokens: one video; pixels 49,152 x 1536 x 2 = 150,994,944 B; ViT peak
// 49,152 x max(6 x 1152 / 4, 2 x 1152 + 2 x 4304 / 4) x 2 = 438,042,624 B; the output padded to
// the placeholder, 153,600 x 2048 x 4 x 2 = 2,516,582,400 B, stays while the LM (peak 1 GiB here)
// runs, and so does the unpadded output the padding loop's variable still holds (12,288 x 2048 x 4
// x 2 = 201,326,592 B), so the profile grows by pixels + both outputs.
TEST(EncoderBudgetTest, QwenThreeVlVideoOnVllmZeroEleven) {
  EXPECT_EQ(QwenThreeVlVideoEmbeds(24576, 65536), 12288);
  EXPECT_EQ(QwenThreeVlVideoEmbeds(24576, 16199), 12100);
  EXPECT_EQ(QwenThreeVlVideoEmbeds(24576, 16200), 12288);
  const ModelSpec spec = ResolveModel("Qwen/Qwen3-VL-30B-A3B-Instruct", DataDirectory());
  MultimodalSettings mm;
  const EncoderProfileSettings s{2048, 256, 65536, 2.0, 4, ParseVllmVersion("0.11.0")};
  const EncoderProfile p = EstimateEncoderProfile(spec, mm, s, GiBToBytes(1));
  EXPECT_TRUE(p.video);
  EXPECT_EQ(p.items, 1);
  EXPECT_EQ(p.tokens_per_item, 153600);
  EXPECT_EQ(p.embeds_per_item, 12288);
  EXPECT_DOUBLE_EQ(p.pixel_bytes, 150994944.0);
  EXPECT_DOUBLE_EQ(p.encoder_peak_bytes, 438042624.0);
  EXPECT_DOUBLE_EQ(p.outputs_bytes, 2516582400.0 + 201326592.0);
  EXPECT_DOUBLE_EQ(p.extra_bytes, 150994944.0 + 2516582400.0 + 201326592.0);
  // 0.13 counts embeddings: the video's 12,288 lose to the 16,384-token image.
  EXPECT_FALSE(EstimateEncoderProfile(spec, mm, {2048, 256, 65536, 2.0, 4, ParseVllmVersion("0.13.0")}, 0.0).video);
  // --limit-mm-per-prompt '{"image": 2, "video": 0}' keeps the image on 0.11 too; '{"image": 0}' on
  // 0.13 profiles the video at its 12,288 embeddings, no placeholder, no padding.
  mm.limit_per_prompt = {{"image", 2}, {"video", 0}};
  EXPECT_FALSE(EstimateEncoderProfile(spec, mm, s, 0.0).video);
  mm.limit_per_prompt = {{"image", 0}};
  const EncoderProfile v13 = EstimateEncoderProfile(spec, mm, {2048, 256, 65536, 2.0, 4, ParseVllmVersion("0.13.0")}, 0.0);
  EXPECT_TRUE(v13.video);
  EXPECT_EQ(v13.tokens_per_item, 12288);
  EXPECT_DOUBLE_EQ(v13.outputs_bytes, 12288.0 * 2048 * 4 * 2);
  // '{"video": 0}' alone leaves the image at its default limit.
  mm.limit_per_prompt = {{"video", 0}};
  EXPECT_GT(EstimateEncoderProfile(spec, mm, s, 0.0).extra_bytes, 0.0);
}

// The case end to end, against its vLLM 0.11.0 log (sipeed_wiki NanoKVM_Pro/cua.md; extra dev
// row X006): Qwen3-VL-30B-A3B-Instruct, TP 4 on RTX 3090s, util 0.90, 65,536 tokens, 2,048 batched.
// The log: "Model loading took 14.7708 GiB" per rank (the text model's quarter plus the vision tower's,
// the 4 x 262,144-position M-RoPE cache and the deepstack buffers), "Available KV cache memory:
// 2.31 GiB", "GPU KV cache size: 100,752 tokens".
TEST(EncoderBudgetTest, QwenThreeVlOnFourRtx3090sMatchesItsLog) {
  DeploymentOptions o;
  o.model = "Qwen/Qwen3-VL-30B-A3B-Instruct";
  o.gpu = "rtx3090";
  o.vllm_version = "0.11.0";
  o.tensor_parallel_size = 4;
  o.gpu_memory_utilization = "0.90";
  o.max_model_len = "65536";
  o.max_num_batched_tokens = "2048";
  const Deployment d = ResolveDeployment(o, DataDirectory());
  const CapacityResult r = PlanCapacity(d.model, d.gpu, d.config);
  EXPECT_NEAR(BytesToGiB(r.weights_bytes), 14.7708, 14.7708 * 0.005);
  EXPECT_NEAR(BytesToGiB(r.kv_cache_bytes), 2.31, 2.31 * 0.05);
  EXPECT_NEAR(static_cast<double>(r.gpu_kv_cache_tokens), 100752.0, 100752.0 * 0.05);
}

// LLaVA-NeXT (vllm/model_executor/models/llava_next.py get_num_image_tokens): base 24^2 = 576
// features, and for the 672 x 672 pinpoint a 2 x 2 grid of 24 x 24 crops with a newline per row:
// 48 x 48 + 48 + 576 = 2,928 tokens (the other pinpoints: 1,752 / 1,776 / 2,376 / 2,328); CLIP runs
// 4 crops + the base image of 577 positions = 2,885 patches. At 16,384 batched tokens the budget
// takes 16384 // 2928 = 5 images, as the X008 log says ("profiled with 5 image items").
TEST(EncoderBudgetTest, LlavaNextAnyresImage) {
  const ModelSpec spec = ResolveModel(std::string(KVSIM_DATA_DIR_FOR_TESTS) + "/validation/configs/llava-hf__llava-v1.6-mistral-7b-hf.json",
                                      DataDirectory());
  EXPECT_EQ(spec.vision.max_tokens_per_image, 2928);
  EXPECT_EQ(spec.vision.max_patches_per_image, 2885);
  const EncoderProfile p = EstimateEncoderProfile(spec, MultimodalSettings{}, {16384, 256, 4096, 2.0, 1, ParseVllmVersion("0.10.2")}, 0.0);
  EXPECT_EQ(p.items, 5);
}

}  // namespace
}  // namespace kvsim
